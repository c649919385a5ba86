// One shipment's row of the operations board (courier 4.4).
import { state } from "./board_page.js";
import { h, human, when } from "./board_text.js";

function openAlertsOf(waybill) {
  let n = 0;
  for (const a of state.alerts.values()) if (a.waybill === waybill) n++;
  return n;
}

export function rowElement(r) {
  const refs = [r.client_order_reference, r.external_customer_code].filter(Boolean).join(" · ");
  const alerts = openAlertsOf(r.waybill);
  const scan = r.last_scan;
  return h(
    "tr",
    {
      "data-waybill": r.waybill,
      "data-health": r.health,
      "data-status": r.status,
      "data-owner": r.next_owner ?? "none",
      "data-overdue": r.overdue ? "true" : "false",
      class: r.overdue ? "overdue" : null,
    },
    h(
      "th",
      { scope: "row" },
      h("span", { class: "waybill" }, r.waybill),
      refs && h("small", {}, refs),
    ),
    h("td", { class: "status" }, human(r.status)),
    h(
      "td",
      {},
      h("span", { class: `badge health-${r.health}` }, human(r.health)),
      r.health_reason && h("small", {}, r.health_reason),
    ),
    h(
      "td",
      {},
      r.custody.holder ?? "—",
      r.custody.facility_id && h("small", {}, r.custody.facility_id),
    ),
    h(
      "td",
      {},
      scan ? human(scan.event) : "—",
      scan &&
        h("small", {}, [when(scan.at), scan.facility_id, scan.note].filter(Boolean).join(" · ")),
    ),
    h(
      "td",
      {},
      human(r.next_milestone),
      r.next_owner && h("small", {}, `Owner: ${human(r.next_owner)}`),
    ),
    h(
      "td",
      {},
      when(r.next_due_at),
      r.overdue && h("span", { class: "badge overdue-tag" }, "Overdue"),
    ),
    h(
      "td",
      { class: "num" },
      r.pieces.count,
      r.pieces.places > 1 && h("small", { class: "warn" }, `in ${r.pieces.places} places`),
    ),
    h("td", { class: alerts > 0 ? "num has-alerts" : "num" }, alerts),
    h("td", { class: "num" }, `${r.age_days} d`),
  );
}

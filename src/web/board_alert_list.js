// The operations board's alert list (courier 4.4): open alerts first, newest first. Its buttons
// name their action (data-action); the page (board.js) acts on their clicks.
import { el, state } from "./board_page.js";
import { h, human, when } from "./board_text.js";

export function renderAlerts() {
  const alerts = [...state.alerts.values()].sort((a, b) =>
    Number(a.status !== "open") - Number(b.status !== "open") ||
    String(b.raised_at).localeCompare(String(a.raised_at))
  );
  el.alertCount.textContent = String(alerts.length);
  el.noAlerts.hidden = alerts.length > 0;
  el.alerts.replaceChildren(...alerts.map(alertElement));
}

function alertElement(a) {
  const subject = a.waybill ?? (a.subject ? `${a.subject.type} ${a.subject.id}` : "");
  const title = `${human(a.kind)}${subject ? ` on ${subject}` : ""}`;
  return h(
    "li",
    { class: "alert", "data-alert-id": a.id, "data-status": a.status, "data-waybill": a.waybill },
    h(
      "div",
      { class: "alert-head" },
      h("div", {}, h("strong", {}, human(a.kind)), subject && h("small", {}, subject)),
      h("span", { class: `badge alert-${a.status}` }, human(a.status)),
    ),
    a.message && h("p", {}, a.message),
    h(
      "p",
      { class: "meta" },
      `Owner: ${human(a.owner)} · Assigned to: ${a.assigned_to ?? "nobody"} · Raised ${
        when(a.raised_at)
      }`,
    ),
    h(
      "div",
      { class: "actions" },
      h("button", {
        type: "button",
        "data-action": "assign",
        "aria-label": `Assign alert ${title}`,
      }, "Assign…"),
      h("button", {
        type: "button",
        "data-action": "acknowledge",
        "aria-label": `Acknowledge alert ${title}`,
        disabled: a.status !== "open",
      }, "Acknowledge"),
      h("button", {
        type: "button",
        "data-action": "resolve",
        "aria-label": `Resolve alert ${title}`,
      }, "Resolve…"),
    ),
  );
}

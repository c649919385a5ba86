// Drawing the operations board (courier 4.4): counts by health, the rows as filtered, sorted and
// grouped, and the alert list; at most once a frame however many changes arrive.
import { el, HEALTHS, ROWS_MAX, state } from "./board_page.js";
import { h, human } from "./board_text.js";
import { rowElement } from "./board_row.js";
import { renderAlerts } from "./board_alert_list.js";
import { everyFrame } from "./board_feed.js";

export const scheduleRender = everyFrame(render);

function render() {
  renderCounts();
  renderRows();
  renderAlerts();
}

function visibleRows() {
  const health = el.health.value;
  const owner = el.owner.value;
  const overdueOnly = el.overdue.checked;
  return [...state.rows.values()].filter((r) =>
    (!health || r.health === health) &&
    (!owner || (r.next_owner ?? "none") === owner) &&
    (!overdueOnly || r.overdue)
  ).sort(byUrgency);
}

function byUrgency(a, b) {
  const rank = (r) => {
    const i = HEALTHS.indexOf(r.health);
    return i === -1 ? HEALTHS.length : i;
  };
  return rank(a) - rank(b) ||
    Number(b.overdue) - Number(a.overdue) ||
    String(a.next_due_at ?? "~").localeCompare(String(b.next_due_at ?? "~")) ||
    a.waybill.localeCompare(b.waybill);
}

/** The count buttons toggle the health filter; the page (board.js) acts on their clicks. */
function renderCounts() {
  const counts = new Map(HEALTHS.map((health) => [health, 0]));
  for (const r of state.rows.values()) counts.set(r.health, (counts.get(r.health) ?? 0) + 1);
  const items = [...counts].filter(([health, n]) =>
    n > 0 || !["delivered", "closed"].includes(health)
  )
    .map(([health, n]) =>
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `count health-${health}`,
            "data-health-count": health,
            "aria-pressed": el.health.value === health ? "true" : "false",
          },
          h("span", { class: "count-n" }, n),
          h("span", { class: "count-label" }, human(health)),
        ),
      )
    );
  el.counts.replaceChildren(...items);
}

function groupOf(row) {
  const by = el.groupBy.value;
  if (by === "health") return human(row.health);
  if (by === "next_owner") return row.next_owner ? human(row.next_owner) : "No next owner";
  return null;
}

function renderRows() {
  const rows = visibleRows();
  const groups = new Map();
  for (const row of rows) {
    const name = groupOf(row);
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(row);
  }
  const bodies = [...groups].map(([name, members]) => {
    const body = h("tbody", name === null ? {} : { "data-group": name });
    if (name !== null) {
      body.append(h(
        "tr",
        { class: "group" },
        h("th", { scope: "colgroup", colspan: 10 }, `${name} (${members.length})`),
      ));
    }
    body.append(...members.map(rowElement));
    return body;
  });
  if (bodies.length === 0) bodies.push(h("tbody"));
  el.table.querySelectorAll("tbody").forEach((b) => b.remove());
  el.table.append(...bodies);
  el.empty.hidden = rows.length > 0;
  const limited = el.table.dataset.limited === "true" ? ` (list capped at ${ROWS_MAX})` : "";
  el.shown.textContent = `Showing ${rows.length} of ${state.rows.size} shipments${limited}`;
}

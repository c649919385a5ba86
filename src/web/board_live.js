// The operations board kept current (ARCHITECTURE "Boards"): the lists from the REST API, then
// every change from the live WebSocket on top of them; a dropped socket reconnects.
import { ALERTS_MAX, API, el, notify, ROWS_MAX, setConnection, state } from "./board_page.js";
import { api, refused } from "./board_api.js";
import { held, hold, liveSocket, newer, release, socketUrl } from "./board_feed.js";
import { alertNewer } from "./board_alert_order.js";
import { scheduleRender } from "./board_render.js";
import { signOut } from "./board_session.js";

export async function loadAll() {
  hold(state);
  try {
    const closed = el.includeClosed.checked ? "&include_closed=1" : "";
    const [rows, open, acknowledged] = await Promise.all([
      api("GET", `/business/courier/operations?limit=${ROWS_MAX}${closed}`),
      api("GET", `/business/courier/alerts?status=open&limit=${ALERTS_MAX}`),
      api("GET", `/business/courier/alerts?status=acknowledged&limit=${ALERTS_MAX}`),
    ]);
    state.rows = new Map(rows.data.map((r) => [r.waybill, r]));
    state.alerts = new Map([...open.data, ...acknowledged.data].map((a) => [a.id, a]));
    for (const a of state.alerts.values()) alertNewer(alertProgress, a);
    const more = rows.data.length >= ROWS_MAX ? ` (the first ${ROWS_MAX})` : "";
    el.table.dataset.limited = more ? "true" : "false";
    release(state, apply);
    notify("");
    scheduleRender();
  } catch (e) {
    release(state, apply, false);
    if (refused(e)) return signOut(e.message);
    notify(`Could not load the board: ${e.message}`);
  }
}

function apply(message) {
  if (held(state, message)) return;
  if (message.type === "shipment") applyRow(message.row, message.version);
  else if (message.type === "alert") applyAlert(message.alert);
}

function applyRow(row, version) {
  if (!newer(state.versions, row.waybill, version)) return;
  const previous = state.rows.get(row.waybill);
  // The live feed does not count alerts; the board counts them from its own alert list.
  const merged = { ...row, open_alerts: row.open_alerts ?? previous?.open_alerts ?? null };
  if (merged.closed && !el.includeClosed.checked) state.rows.delete(row.waybill);
  else state.rows.set(row.waybill, merged);
  scheduleRender();
}

export function applyAlert(alert) {
  if (!alertNewer(alertProgress, alert)) return;
  if (alert.status === "resolved") state.alerts.delete(alert.id);
  else state.alerts.set(alert.id, alert);
  scheduleRender();
}

/** The copy of each alert the board keeps is the one furthest along (board_alert_order.js). */
const alertProgress = new Map();

export const connect = liveSocket({
  url: () => socketUrl(API, "/business/courier/operations/live"),
  state,
  setConnection,
  // Subscribed first, then loaded: no change falls between the list and the feed.
  ready: loadAll,
  message: apply,
  refused: (reason) => signOut(reason),
});

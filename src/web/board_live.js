// The operations board kept current (ARCHITECTURE "Boards"): the lists from the REST API, then
// every change from the live WebSocket on top of them; a dropped socket reconnects.
import {
  ALERTS_MAX,
  API,
  el,
  notify,
  RETRY_MS_MAX,
  RETRY_MS_MIN,
  ROWS_MAX,
  setConnection,
  state,
} from "./board_page.js";
import { api, refused } from "./board_api.js";
import { scheduleRender } from "./board_render.js";
import { signOut } from "./board_session.js";

/** Close codes of the live board (routes/courier/board.ts). */
const CLOSE_UNAUTHENTICATED = 4401;
const CLOSE_REFUSED = 4403;

export async function loadAll() {
  state.queued = [];
  try {
    const closed = el.includeClosed.checked ? "&include_closed=1" : "";
    const [rows, open, acknowledged] = await Promise.all([
      api("GET", `/business/courier/operations?limit=${ROWS_MAX}${closed}`),
      api("GET", `/business/courier/alerts?status=open&limit=${ALERTS_MAX}`),
      api("GET", `/business/courier/alerts?status=acknowledged&limit=${ALERTS_MAX}`),
    ]);
    state.rows = new Map(rows.data.map((r) => [r.waybill, r]));
    state.alerts = new Map([...open.data, ...acknowledged.data].map((a) => [a.id, a]));
    const more = rows.data.length >= ROWS_MAX ? ` (the first ${ROWS_MAX})` : "";
    el.table.dataset.limited = more ? "true" : "false";
    const queued = state.queued;
    state.queued = null;
    for (const message of queued) apply(message);
    notify("");
    scheduleRender();
  } catch (e) {
    state.queued = null;
    if (refused(e)) return signOut(e.message);
    notify(`Could not load the board: ${e.message}`);
  }
}

function apply(message) {
  if (state.queued !== null) {
    state.queued.push(message);
    return;
  }
  if (message.type === "shipment") applyRow(message.row, message.version);
  else if (message.type === "alert") applyAlert(message.alert);
}

function applyRow(row, version) {
  const seen = state.versions.get(row.waybill);
  if (typeof version === "number") {
    if (seen !== undefined && version < seen) return;
    state.versions.set(row.waybill, version);
  }
  const previous = state.rows.get(row.waybill);
  // The live feed does not count alerts; the board counts them from its own alert list.
  const merged = { ...row, open_alerts: row.open_alerts ?? previous?.open_alerts ?? null };
  if (merged.closed && !el.includeClosed.checked) state.rows.delete(row.waybill);
  else state.rows.set(row.waybill, merged);
  scheduleRender();
}

export function applyAlert(alert) {
  if (alert.status === "resolved") state.alerts.delete(alert.id);
  else state.alerts.set(alert.id, alert);
  scheduleRender();
}

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${API}/business/courier/operations/live`;
}

export function connect() {
  clearTimeout(state.retryTimer);
  setConnection("connecting", "Connecting…");
  const socket = new WebSocket(socketUrl());
  state.socket = socket;
  // The key goes in the first message, not the URL, so it stays out of logs.
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "auth", key: state.key }));
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "ready") {
      state.retryMs = RETRY_MS_MIN;
      setConnection("live", "Live");
      // Subscribed first, then loaded: no change falls between the list and the feed.
      loadAll();
    } else {
      apply(message);
    }
  });
  socket.addEventListener("close", (event) => closed(socket, event));
}

/** A socket closed: signed out if its key was refused, else reconnected after a while. */
function closed(socket, event) {
  if (state.socket !== socket) return;
  state.socket = null;
  if (event.code === CLOSE_UNAUTHENTICATED || event.code === CLOSE_REFUSED) {
    return signOut(event.reason || "The key was refused");
  }
  const seconds = Math.round(state.retryMs / 1000);
  const why = event.reason ? `${event.reason}. ` : "";
  setConnection("offline", `${why}Reconnecting in ${seconds} s…`);
  state.retryTimer = setTimeout(connect, state.retryMs);
  state.retryMs = Math.min(state.retryMs * 2, RETRY_MS_MAX);
}

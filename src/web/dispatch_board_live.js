// The dispatch board kept current: the opening state from the REST API, then every change from
// the live WebSocket on top of it; a dropped socket reconnects.
import {
  API,
  notify,
  RETRY_MS_MAX,
  RETRY_MS_MIN,
  setConnection,
  state,
} from "./dispatch_board_page.js";
import { scheduleRender } from "./dispatch_board_render.js";

/** Close codes of the live board (src/web/live_socket.ts). */
const CLOSE_UNAUTHENTICATED = 4401;
const CLOSE_REFUSED = 4403;

/** Trip statuses that are final (Business API 3.1): such a trip is off the board. */
const ENDED = ["completed", "cancelled"];

/** Set by the page: what to do when the key is refused. */
export const hooks = { signOut: (_message) => {} };

async function loadState() {
  state.queued = [];
  try {
    const response = await fetch(`${API}/business/dispatch-board/state`, {
      headers: { "X-Business-API-Key": state.key, Accept: "application/json" },
      cache: "no-store",
    });
    const answer = await response.json().catch(() => null);
    if (response.status === 401 || response.status === 403) {
      state.queued = null;
      return hooks.signOut(answer?.message ?? "The key was refused");
    }
    if (!response.ok || !answer?.success) {
      throw new Error(answer?.message ?? `HTTP ${response.status}`);
    }
    const data = answer.data;
    state.clockOffsetMs = Date.parse(data.at) - Date.now();
    state.freshSeconds = data.position_fresh_seconds;
    state.vehicleTypes = new Map(data.vehicle_types.map((v) => [v.id, v.name]));
    state.trips = new Map(data.trips.map((t) => [t.reference, t]));
    state.drivers = new Map(data.drivers.map((d) => [d.id, d]));
    const queued = state.queued;
    state.queued = null;
    for (const message of queued) apply(message);
    notify("");
    scheduleRender();
  } catch (e) {
    state.queued = null;
    notify(`Could not load the board: ${e.message}`);
  }
}

/** A message older than one already applied for the same thing is ignored. */
function newer(key, version) {
  const seen = state.versions.get(key);
  if (typeof version !== "number") return true;
  if (seen !== undefined && version < seen) return false;
  state.versions.set(key, version);
  return true;
}

function apply(message) {
  if (state.queued !== null) {
    state.queued.push(message);
    return;
  }
  if (message.type === "trip" && newer(`trip:${message.trip.reference}`, message.version)) {
    // An ended trip leaves the board, as it is not among the trips in progress it opens with.
    if (ENDED.includes(message.trip.status)) state.trips.delete(message.trip.reference);
    else state.trips.set(message.trip.reference, message.trip);
  } else if (message.type === "driver_left") {
    // No longer on one of the business's trips: not this board's to show.
    state.drivers.delete(message.driver_id);
    state.positions.delete(message.driver_id);
  } else if (message.type === "driver" && newer(`driver:${message.driver.id}`, message.version)) {
    const known = state.drivers.get(message.driver.id);
    // Off shift: off the board. The shift message carries no position: the known one stays.
    if (!message.driver.online) state.drivers.delete(message.driver.id);
    else {
      const position = known?.position ?? state.positions.get(message.driver.id) ?? null;
      state.positions.delete(message.driver.id);
      state.drivers.set(message.driver.id, { ...message.driver, position });
    }
  } else if (
    message.type === "position" && newer(`position:${message.driver_id}`, message.version)
  ) {
    const known = state.drivers.get(message.driver_id);
    // A position of a driver not (yet) known on shift waits for the driver's shift message.
    if (known) state.drivers.set(message.driver_id, { ...known, position: message.position });
    else state.positions.set(message.driver_id, message.position);
  } else {
    return;
  }
  scheduleRender();
}

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${API}/business/dispatch-board/live`;
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
      // Subscribed first, then loaded: no change falls between the state and the feed.
      loadState();
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
    return hooks.signOut(event.reason || "The key was refused");
  }
  const seconds = Math.round(state.retryMs / 1000);
  const why = event.reason ? `${event.reason}. ` : "";
  setConnection("offline", `${why}Reconnecting in ${seconds} s…`);
  state.retryTimer = setTimeout(connect, state.retryMs);
  state.retryMs = Math.min(state.retryMs * 2, RETRY_MS_MAX);
}

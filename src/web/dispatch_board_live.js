// The dispatch board kept current: the opening state from the REST API, then every change from
// the live WebSocket on top of it; a dropped socket reconnects.
import { API, notify, setConnection, state } from "./dispatch_board_page.js";
import { scheduleRender } from "./dispatch_board_render.js";
import { held, hold, liveSocket, newer, release, socketUrl } from "./board_feed.js";

/** Trip statuses that are final (Business API 3.1): such a trip is off the board. */
const ENDED = ["completed", "cancelled"];

/** Set by the page: what to do when the key is refused. */
export const hooks = { signOut: (_message) => {} };

async function loadState() {
  hold(state);
  try {
    const response = await fetch(`${API}/business/dispatch-board/state`, {
      headers: { "X-Business-API-Key": state.key, Accept: "application/json" },
      cache: "no-store",
    });
    const answer = await response.json().catch(() => null);
    if (response.status === 401 || response.status === 403) {
      release(state, apply, false);
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
    release(state, apply);
    notify("");
    scheduleRender();
  } catch (e) {
    release(state, apply, false);
    notify(`Could not load the board: ${e.message}`);
  }
}

function apply(message) {
  if (held(state, message)) return;
  if (
    message.type === "trip" &&
    newer(state.versions, `trip:${message.trip.reference}`, message.version)
  ) {
    // An ended trip leaves the board, as it is not among the trips in progress it opens with.
    if (ENDED.includes(message.trip.status)) state.trips.delete(message.trip.reference);
    else state.trips.set(message.trip.reference, message.trip);
  } else if (message.type === "driver_left") {
    // No longer on one of the business's trips: not this board's to show.
    state.drivers.delete(message.driver_id);
    state.positions.delete(message.driver_id);
  } else if (
    message.type === "driver" &&
    newer(state.versions, `driver:${message.driver.id}`, message.version)
  ) {
    const known = state.drivers.get(message.driver.id);
    // Off shift: off the board. The shift message carries no position: the known one stays.
    if (!message.driver.online) state.drivers.delete(message.driver.id);
    else {
      const position = known?.position ?? state.positions.get(message.driver.id) ?? null;
      state.positions.delete(message.driver.id);
      state.drivers.set(message.driver.id, { ...message.driver, position });
    }
  } else if (
    message.type === "position" &&
    newer(state.versions, `position:${message.driver_id}`, message.version)
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

export const connect = liveSocket({
  url: () => socketUrl(API, "/business/dispatch-board/live"),
  state,
  setConnection,
  // Subscribed first, then loaded: no change falls between the state and the feed.
  ready: loadState,
  message: apply,
  refused: (reason) => hooks.signOut(reason),
});

// What both boards do with their live feed (ARCHITECTURE "Boards"): one WebSocket whose key goes
// in the first message, reconnected after a drop; messages held while the opening lists load and
// applied on top of them; a message older than one applied for the same thing ignored; and at
// most one drawing a frame however many changes arrive.
import { RETRY_MS_MAX, RETRY_MS_MIN } from "./board_shell.js";

/** Close codes of the live boards (src/web/live_socket.ts). */
const CLOSE_UNAUTHENTICATED = 4401;
const CLOSE_REFUSED = 4403;

/**
 * The board's socket at `url()`: `ready` once subscribed (then the page loads its lists, so no
 * change falls between them and the feed), `message` for each change, `refused` when its key is.
 * Answers the function that connects it.
 */
export function liveSocket({ url, state, setConnection, ready, message, refused }) {
  function connect() {
    clearTimeout(state.retryTimer);
    setConnection("connecting", "Connecting…");
    const socket = new WebSocket(url());
    state.socket = socket;
    // The key goes in the first message, not the URL, so it stays out of logs.
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "auth", key: state.key }));
    });
    socket.addEventListener("message", (event) => {
      let parsed;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        return;
      }
      if (parsed.type === "ready") {
        state.retryMs = RETRY_MS_MIN;
        setConnection("live", "Live");
        ready();
      } else {
        message(parsed);
      }
    });
    socket.addEventListener("close", (event) => closed(socket, event));
  }

  /** A socket closed: signed out if its key was refused, else reconnected after a while. */
  function closed(socket, event) {
    if (state.socket !== socket) return;
    state.socket = null;
    if (event.code === CLOSE_UNAUTHENTICATED || event.code === CLOSE_REFUSED) {
      return refused(event.reason || "The key was refused");
    }
    const seconds = Math.round(state.retryMs / 1000);
    const why = event.reason ? `${event.reason}. ` : "";
    setConnection("offline", `${why}Reconnecting in ${seconds} s…`);
    state.retryTimer = setTimeout(connect, state.retryMs);
    state.retryMs = Math.min(state.retryMs * 2, RETRY_MS_MAX);
  }

  return connect;
}

/** The socket URL of a board's live feed at `path` under the API base. */
export function socketUrl(api, path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${api}${path}`;
}

/** Starts holding live messages: the opening lists are loading. */
export function hold(state) {
  state.queued = [];
}

/** Holds `message` while the lists load; answers whether it was held. */
export function held(state, message) {
  if (state.queued === null) return false;
  state.queued.push(message);
  return true;
}

/** The lists are loaded (`loaded`) or failed: the messages held are applied, or dropped. */
export function release(state, apply, loaded = true) {
  const queued = state.queued;
  state.queued = null;
  if (loaded) { for (const message of queued) apply(message); }
}

/** Whether a message at `version` for `key` is newer than any applied; it is then recorded. */
export function newer(versions, key, version) {
  if (typeof version !== "number") return true;
  const seen = versions.get(key);
  if (seen !== undefined && version < seen) return false;
  versions.set(key, version);
  return true;
}

/** A scheduler drawing with `draw` at the next frame, once however often it is called. */
export function everyFrame(draw) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  };
}

// Signing in and out of the operations board: the key stays in this tab's session storage.
import { el, setConnection, state } from "./board_page.js";

const KEY_STORAGE = "courier-board-key";

/** The key a link or an earlier visit of this tab left, if any. */
export function storedKey() {
  return keyFromFragment() ?? sessionStorage.getItem(KEY_STORAGE);
}

/** Keeps the key for this tab and shows the board instead of the sign-in form. */
export function signIn(key) {
  state.key = key;
  sessionStorage.setItem(KEY_STORAGE, key);
  el.signIn.hidden = true;
  el.signInError.textContent = "";
  el.board.hidden = false;
  el.signOut.hidden = false;
}

export function signOut(message = "") {
  sessionStorage.removeItem(KEY_STORAGE);
  clearTimeout(state.retryTimer);
  const socket = state.socket;
  state.socket = null;
  socket?.close(1000, "signed out");
  state.key = null;
  state.rows = new Map();
  state.alerts = new Map();
  state.versions = new Map();
  el.board.hidden = true;
  el.signOut.hidden = true;
  el.signIn.hidden = false;
  el.signInError.textContent = message;
  setConnection("offline", "Not connected");
  el.key.value = "";
  el.key.focus();
}

function keyFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get("key");
  if (key) {
    // Out of the address bar and history once read.
    history.replaceState(null, "", location.pathname + location.search);
  }
  return key;
}

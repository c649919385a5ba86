// The business's dispatch board (issue 38 item 7, ARCHITECTURE "Boards"): trips by status,
// drivers on shift and offers waiting, on a map drawn from coordinates, kept current by the live
// WebSocket. Plain browser JavaScript modules, no build step, no network resource beyond this
// service. One idea a module: dispatch_board_page (elements and state), dispatch_board_live
// (the state and the socket), dispatch_board_render, dispatch_board_map, board_text.
import { el, setConnection, state } from "./dispatch_board_page.js";
import { connect, hooks } from "./dispatch_board_live.js";
import { render } from "./dispatch_board_render.js";

const KEY_STORAGE = "dispatch-board-key";
/** Ages and offers' time left count on between changes. */
const TICK_MS = 1_000;

function keyFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get("key");
  // Out of the address bar and history once read.
  if (key) history.replaceState(null, "", location.pathname + location.search);
  return key;
}

function signIn(key) {
  state.key = key;
  sessionStorage.setItem(KEY_STORAGE, key);
  el.signIn.hidden = true;
  el.signInError.textContent = "";
  el.board.hidden = false;
  el.signOut.hidden = false;
  connect();
}

function signOut(message = "") {
  sessionStorage.removeItem(KEY_STORAGE);
  clearTimeout(state.retryTimer);
  const socket = state.socket;
  state.socket = null;
  socket?.close(1000, "signed out");
  state.key = null;
  state.trips = new Map();
  state.drivers = new Map();
  state.positions = new Map();
  state.versions = new Map();
  el.board.hidden = true;
  el.signOut.hidden = true;
  el.signIn.hidden = false;
  el.signInError.textContent = message;
  setConnection("offline", "Not connected");
  el.key.value = "";
  el.key.focus();
}

function init() {
  hooks.signOut = signOut;
  el.signIn.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = el.key.value.trim();
    if (key) signIn(key);
  });
  el.signOut.addEventListener("click", () => signOut());
  setInterval(() => {
    if (state.key) render();
  }, TICK_MS);
  const key = keyFromFragment() ?? sessionStorage.getItem(KEY_STORAGE);
  if (key) signIn(key);
  else signOut();
}

init();

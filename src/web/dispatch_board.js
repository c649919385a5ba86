// The business's dispatch board (issue 38 item 7, ARCHITECTURE "Boards"): trips by status,
// drivers on shift and offers waiting, on a map drawn from coordinates, kept current by the live
// WebSocket. Plain browser JavaScript modules, no build step, no network resource beyond this
// service. One idea a module: dispatch_board_page (elements and state), dispatch_board_live
// (the state and the socket), dispatch_board_render, dispatch_board_map; shared with the
// operations board: board_shell (sign-in, notice, connection), board_feed (socket, held
// messages, versions, one drawing a frame), board_text.
import { el, setConnection, state } from "./dispatch_board_page.js";
import { connect, hooks } from "./dispatch_board_live.js";
import { render } from "./dispatch_board_render.js";
import { keySession } from "./board_shell.js";

const KEY_STORAGE = "dispatch-board-key";
/** Ages and offers' time left count on between changes. */
const TICK_MS = 1_000;

const session = keySession(KEY_STORAGE, {
  el,
  state,
  setConnection,
  forget() {
    state.trips = new Map();
    state.drivers = new Map();
    state.positions = new Map();
    state.versions = new Map();
  },
});

function signIn(key) {
  session.signIn(key);
  connect();
}

const signOut = session.signOut;

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
  const key = session.storedKey();
  if (key) signIn(key);
  else signOut();
}

init();

// Signing in and out of the operations board: the key stays in this tab's session storage.
import { el, setConnection, state } from "./board_page.js";
import { keySession } from "./board_shell.js";

export const { storedKey, signIn, signOut } = keySession("courier-board-key", {
  el,
  state,
  setConnection,
  forget() {
    state.rows = new Map();
    state.alerts = new Map();
    state.versions = new Map();
  },
});

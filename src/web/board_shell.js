// What both boards' pages share around their content: the sign-in shell's elements, the notice
// and connection lines, and the key kept in the tab's session storage (the operations board and
// the dispatch board are one page shape; their pages add what they show).

/** Reconnect after a dropped socket: 1 s, doubling to at most 30 s. */
export const RETRY_MS_MIN = 1_000;
export const RETRY_MS_MAX = 30_000;

const $ = (id) => document.getElementById(id);

/** The elements every board page has: sign-in, sign-out, the board, the notice, the connection. */
export function shellElements() {
  return {
    connection: $("connection"),
    signOut: $("sign-out"),
    signIn: $("sign-in"),
    key: $("key"),
    signInError: $("sign-in-error"),
    board: $("board"),
    notice: $("notice"),
  };
}

/** The two lines a page writes to whatever it shows: the notice and the connection state. */
export function shellLines(el) {
  return {
    notify(message) {
      el.notice.textContent = message;
      el.notice.hidden = !message;
    },
    setConnection(kind, text) {
      el.connection.dataset.state = kind;
      el.connection.textContent = text;
    },
  };
}

/**
 * Signing in and out with the key kept in this tab's session storage under `storageName`.
 * `forget` clears what the page held of the board when it signs out.
 */
export function keySession(storageName, { el, state, setConnection, forget }) {
  return {
    /** The key a link or an earlier visit of this tab left, if any. */
    storedKey() {
      return keyFromFragment() ?? sessionStorage.getItem(storageName);
    },
    /** Keeps the key for this tab and shows the board instead of the sign-in form. */
    signIn(key) {
      state.key = key;
      sessionStorage.setItem(storageName, key);
      el.signIn.hidden = true;
      el.signInError.textContent = "";
      el.board.hidden = false;
      el.signOut.hidden = false;
    },
    signOut(message = "") {
      sessionStorage.removeItem(storageName);
      clearTimeout(state.retryTimer);
      const socket = state.socket;
      state.socket = null;
      socket?.close(1000, "signed out");
      state.key = null;
      forget();
      el.board.hidden = true;
      el.signOut.hidden = true;
      el.signIn.hidden = false;
      el.signInError.textContent = message;
      setConnection("offline", "Not connected");
      el.key.value = "";
      el.key.focus();
    },
  };
}

function keyFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get("key");
  // Out of the address bar and history once read.
  if (key) history.replaceState(null, "", location.pathname + location.search);
  return key;
}

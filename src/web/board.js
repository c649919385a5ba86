// The operations board (courier 4.4, ARCHITECTURE "Boards"): rows and open alerts from the REST
// API, kept current by the live WebSocket. Plain browser JavaScript modules, no build step, no
// network resource beyond this service. Every text from the API goes into the page as text,
// never HTML. This module wires the page's controls; one idea a module:
// board_page (elements and state), board_text, board_api, board_session (the key),
// board_live (lists and the socket), board_render, board_row, board_alert_list,
// board_alert_actions; shared with the dispatch board: board_shell (sign-in, notice,
// connection) and board_feed (socket, held messages, versions, one drawing a frame).
import { el, HEALTHS, state } from "./board_page.js";
import { h, human } from "./board_text.js";
import { signIn, signOut, storedKey } from "./board_session.js";
import { connect, loadAll } from "./board_live.js";
import { scheduleRender } from "./board_render.js";
import { ALERT_ACTIONS } from "./board_alert_actions.js";

function start(key) {
  signIn(key);
  connect();
}

/** A count button toggles the health filter to its health. */
function onCountClick(event) {
  const button = event.target.closest("[data-health-count]");
  if (!button) return;
  const health = button.dataset.healthCount;
  el.health.value = el.health.value === health ? "" : health;
  scheduleRender();
}

/** An alert's button acts on the alert as the board holds it now. */
function onAlertClick(event) {
  const button = event.target.closest("button[data-action]");
  const card = button?.closest("[data-alert-id]");
  const alert = card ? state.alerts.get(card.dataset.alertId) : undefined;
  const action = button ? ALERT_ACTIONS[button.dataset.action] : undefined;
  if (alert && action) action(alert);
}

function init() {
  for (const health of HEALTHS) el.health.append(h("option", { value: health }, human(health)));
  for (const control of [el.health, el.owner, el.groupBy, el.overdue]) {
    control.addEventListener("change", scheduleRender);
  }
  el.includeClosed.addEventListener("change", () => {
    if (state.key) loadAll();
  });
  el.counts.addEventListener("click", onCountClick);
  el.alerts.addEventListener("click", onAlertClick);
  el.signIn.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = el.key.value.trim();
    if (key) start(key);
  });
  el.signOut.addEventListener("click", () => signOut());
  const key = storedKey();
  if (key) start(key);
  else signOut();
}

init();

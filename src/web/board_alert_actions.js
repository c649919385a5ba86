// Acting on an alert from the operations board: acknowledge, assign (a prompt), resolve (two
// prompts: what was done and where it can be checked).
import { notify } from "./board_page.js";
import { api, ApiFailure } from "./board_api.js";
import { applyAlert } from "./board_live.js";
import { signOut } from "./board_session.js";
import { human } from "./board_text.js";

/** The alert buttons' actions, by their data-action (board_alert_list.js). */
export const ALERT_ACTIONS = {
  acknowledge: (alert) => act(alert, "acknowledge", {}),
  assign,
  resolve,
};

async function act(alert, action, body) {
  try {
    const answer = await api(
      "POST",
      `/business/courier/alerts/${encodeURIComponent(alert.id)}/${action}`,
      body,
    );
    applyAlert(answer.data);
    notify("");
  } catch (e) {
    if (e instanceof ApiFailure && e.status === 401) return signOut(e.message);
    notify(`Could not ${action} the alert: ${e.message}`);
  }
}

function assign(alert) {
  const to = prompt(`Assign "${human(alert.kind)}" to whom?`, alert.assigned_to ?? "");
  if (to === null || to.trim() === "") return;
  return act(alert, "assign", { to: to.trim() });
}

function resolve(alert) {
  const resolution = prompt("Resolution: what was done?");
  if (resolution === null) return;
  const evidence = prompt("Evidence: where can it be checked (reference, note, document)?");
  if (evidence === null) return;
  if (resolution.trim() === "" || evidence.trim() === "") {
    notify("Resolving an alert needs both a resolution and evidence");
    return;
  }
  return act(alert, "resolve", { resolution: resolution.trim(), evidence: evidence.trim() });
}

/**
 * The operations board keeps the copy of an alert furthest along (src/web/board_alert_order.js):
 * the socket's message of an earlier action, overtaken by the answer to a later one, changes
 * nothing, and brings back no alert resolved; a raising again counts afresh.
 */
import assert from "node:assert/strict";
import { alertNewer } from "../../src/web/board_alert_order.js";

const RAISED = "2026-11-30T08:00:00.000Z";
const alert = (status: string, actions_total: number, raised_at = RAISED) => ({
  id: "alr_1",
  status,
  actions_total,
  raised_at,
});

Deno.test("board alert order: an earlier action's message after a later one's answer is ignored", () => {
  const progress = new Map();
  assert.equal(alertNewer(progress, alert("acknowledged", 2)), true);
  // The resolution's answer (4 actions) comes before the socket's assignment (3).
  assert.equal(alertNewer(progress, alert("resolved", 4)), true);
  assert.equal(alertNewer(progress, alert("acknowledged", 3)), false);
  // The resolution's own message, as far along, is kept (the same copy again).
  assert.equal(alertNewer(progress, alert("resolved", 4)), true);
});

Deno.test("board alert order: an alert raised again counts its actions afresh", () => {
  const progress = new Map();
  assert.equal(alertNewer(progress, alert("resolved", 5)), true);
  assert.equal(alertNewer(progress, alert("open", 1, "2026-11-30T09:00:00.000Z")), true);
  assert.equal(alertNewer(progress, alert("resolved", 5)), false);
});

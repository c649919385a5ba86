// Which copy of an alert the operations board keeps (board_live.js): the one furthest along.

/**
 * Whether `alert` is at least as far along as the copy `progress` (a Map by alert id) last kept,
 * and if so keeps its place: how far along is its raising, then its count of actions. The answer
 * to the board's own action can overtake the socket's message of an earlier one (an assignment's
 * after the resolution's answer): that message must neither undo the action nor bring back an
 * alert resolved. A raising again (a later raised_at) starts the count afresh.
 */
export function alertNewer(progress, alert) {
  const raised = Date.parse(alert.raised_at);
  const seen = progress.get(alert.id);
  const behind = seen !== undefined &&
    (raised < seen.raised || (raised === seen.raised && alert.actions_total < seen.actions));
  if (behind) return false;
  progress.set(alert.id, { raised, actions: alert.actions_total });
  return true;
}

/**
 * A run's border stop presents the shipment to customs (courier 3.2, 3.4), and a presentation the
 * stop went on without is withdrawn. The shipment keeps the presentation it stands in (which
 * crossing, run and stop, when, and its headline before), so a withdrawal takes back only what
 * that presentation did and is still in force, once, whoever sends it again.
 */
import { accept } from "../../../src/runtime/actor.ts";
import {
  FINAL_HEADLINES,
  healthOf,
  type OpenMilestone,
  type ScanEvent,
} from "../../../src/courier/rules/lifecycle.ts";
import { lifecycleChanges, lifecycleOf, obligations, TRAIL_MAX } from "./lifecycle.ts";
import { timersFor } from "./timers.ts";
import type {
  Decided,
  Lifecycle,
  Presentation,
  PresentedAt,
  Shipment,
  ShipmentCommand,
  ShipmentEvent,
  TrailEntry,
} from "./types.ts";

/**
 * spec: courier 3.4: presented at a run's border stop, the shipment stands in that presentation
 * (which a withdrawal takes back); presented otherwise (by hand), in none. `after`: the lifecycle
 * after the scan.
 */
export function presentedAfter(
  state: Shipment,
  command: Extract<ShipmentCommand, { kind: "record" }>,
  after: Lifecycle,
  now: number,
): Lifecycle {
  if (command.scan.event !== "presented_to_customs") return after;
  const p = command.presentation;
  if (!p) return { ...after, presentation: null };
  const clearance_before = state.milestones.find((m) => m.name === "customs_clearance") ?? null;
  return {
    ...after,
    presentation: { ...p, at: now, status_before: state.status, clearance_before },
  };
}

/** Outcomes that settle a crossing (courier 3.2: cleared or released; refused, an exception). */
const SETTLING: ReadonlySet<ScanEvent> = new Set(["cleared", "released", "customs_refused"]);
/** Outcomes that hold it (for papers too): the crossing waits on customs still. */
const HOLDING: ReadonlySet<ScanEvent> = new Set(["customs_hold", "documents_requested"]);

/**
 * spec: courier 3.2: customs_clearance closes when cleared or released, the crossing's own: one
 * per border; a refusal settles it too. A crossing settled that is not the one the shipment
 * stands presented at (an earlier border's, come late) leaves the presentation's clearance (and
 * papers) open and its headline; the one it stands presented at, settled while the earlier border
 * it replaced is not, opens that border's again. Either way the earlier border is settled on the
 * shipment. An earlier border's hold leaves the headline to the border it stands at (heldAfter).
 * `after`: the lifecycle after the scan; a scan naming no crossing (operations') is left as it is.
 */
export function settledAfter(
  state: Shipment,
  command: Extract<ShipmentCommand, { kind: "record" }>,
  after: Lifecycle,
  now: number,
): Lifecycle {
  const p = state.presentation ?? null;
  const { event } = command.scan;
  if (!command.settles || p === null) return after;
  if (HOLDING.has(event)) return heldAfter(state, command.settles, after, now);
  if (!SETTLING.has(event)) return after;
  if (command.settles !== p.crossing_id) {
    // An earlier border's: the presentation's own clearance, while customs has not settled it,
    // stays open (with papers it owes); an earlier one opened again is what settles now.
    const presentation = { ...p, clearance_before: null };
    const left = new Set(after.milestones.map((m) => m.name));
    const kept = state.milestones.filter((m) => isCustoms(m) && !left.has(m.name));
    if (p.settled_at !== undefined || kept.length === 0) return { ...after, presentation };
    const milestones = [...after.milestones, ...kept];
    return relived(after, { status: state.status, milestones }, { presentation, now });
  }
  const presentation = { ...p, clearance_before: null, settled_at: p.settled_at ?? now };
  if (p.clearance_before === null) return { ...after, presentation };
  const milestones = [...after.milestones, p.clearance_before];
  return relived(after, { status: after.status, milestones }, { presentation, now });
}

/**
 * spec: courier 3.2: a hold by an earlier border's customs, while the shipment stands presented
 * at a later border whose crossing is not settled, leaves the headline that border gives it; the
 * earlier border, unsettled still, keeps its clearance to open again (clearance_before).
 */
function heldAfter(state: Shipment, settles: string, after: Lifecycle, now: number): Lifecycle {
  const p = state.presentation!;
  if (settles === p.crossing_id || p.settled_at !== undefined) return after;
  return relived(after, { status: state.status, milestones: after.milestones }, {
    presentation: p,
    now,
  });
}

function isCustoms(m: OpenMilestone): boolean {
  return m.name === "customs_clearance" || m.name === "customs_documents";
}

/** The lifecycle with these status and milestones, its health and obligations read again. */
function relived(
  after: Lifecycle,
  to: { status: Lifecycle["status"]; milestones: readonly OpenMilestone[] },
  o: { presentation: PresentedAt; now: number },
): Lifecycle {
  const verdict = healthOf({ ...to, exception: after.exception }, o.now);
  return {
    ...after,
    ...to,
    health: verdict.health,
    health_reason: verdict.reason,
    presentation: o.presentation,
    ...obligations(to.milestones, to.status),
  };
}

/**
 * The open milestones without the customs_clearance presentation `p` opened, and with the one it
 * replaced (an earlier border's, still uncleared then); one closed since (cleared, released)
 * stays closed, and nothing else changes.
 */
function milestonesWithout(
  milestones: readonly OpenMilestone[],
  p: PresentedAt,
): readonly OpenMilestone[] {
  const own = milestones.find((m) => m.name === "customs_clearance" && m.opened_at === p.at);
  if (!own) return milestones;
  const rest = milestones.filter((m) => m !== own);
  return p.clearance_before ? [...rest, p.clearance_before] : rest;
}

function samePresentation(a: Presentation, b: Presentation): boolean {
  return a.crossing_id === b.crossing_id && a.run_id === b.run_id && a.stop_id === b.stop_id;
}

/**
 * spec: courier 3.4, 3.2: the border stop went on without the shipment before it was recorded
 * (it left that run), so its presentation there did not happen. The customs_clearance it opened
 * is taken back (not closed as cleared: customs cleared nothing, and no deadline of it runs on
 * to raise alerts), an earlier border's it replaced is open again, and a headline the presentation still sets (customs_processing) is the one
 * before it. What came after it stands: a clearance, a hold, the departure of the run carrying it
 * now. The trail keeps the presentation and adds its withdrawal. Only the presentation the
 * shipment stands in: one replaced by a later presentation, or withdrawn already, changes nothing.
 */
export function withdrawPresentation(
  state: Shipment,
  c: Extract<ShipmentCommand, { kind: "withdraw_presentation" }>,
  now: number,
): Decided {
  const p = state.presentation ?? null;
  if (p === null || !samePresentation(p, c.presentation) || FINAL_HEADLINES.has(state.status)) {
    return accept([], (next) => next!);
  }
  const milestones = milestonesWithout(state.milestones, p);
  const status = state.status === "customs_processing" ? p.status_before : state.status;
  const entry: TrailEntry = {
    at: now,
    event: "presentation_withdrawn",
    facility_id: null,
    holder: null,
    note: `presentation to customs withdrawn: crossing ${p.crossing_id}, ` +
      `stop ${p.stop_id} of run ${p.run_id}`,
    reason: null,
    pieces: null,
    by: c.by,
  };
  const verdict = healthOf({ status, exception: state.exception, milestones }, now);
  const lifecycle: Lifecycle = {
    ...lifecycleOf(state),
    status,
    milestones,
    health: verdict.health,
    health_reason: verdict.reason,
    trail: [...state.trail, entry].slice(-TRAIL_MAX),
    trail_total: state.trail_total + 1,
    presentation: null,
    presentations_withdrawn: (state.presentations_withdrawn ?? 0) + 1,
    ...obligations(milestones, status),
  };
  const changed = lifecycleChanges(lifecycleOf(state), lifecycle);
  const events: ShipmentEvent[] = [{ kind: "presentation_withdrawn", entry, changed }];
  if (status !== state.status) {
    events.push({
      kind: "stage_reached",
      stage: status,
      at: now,
      occurrence: lifecycle.trail_total,
    });
  }
  return accept(events, (next) => next!, timersFor({ ...state, ...lifecycle }, state));
}

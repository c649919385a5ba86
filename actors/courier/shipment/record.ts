/**
 * A scan or custody move recorded on the shipment (courier 3.2): the decision, and what the scan
 * calls for (a later charge, a stage reached, a moved estimate, an alert). What a scan may be is
 * scan_admission.ts; the lifecycle after it, scan_lifecycle.ts.
 */
import { accept, type Rejection, type TimerOp } from "../../../src/runtime/actor.ts";
import { scanCharge } from "../../../src/courier/rules/lifecycle.ts";
import { chargeRetry } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueOf } from "./charges.ts";
import { alertDue, lifecycleChanges, lifecycleOf, placesOf } from "./lifecycle.ts";
import { presentedAfter, settledAfter } from "./presentation.ts";
import { stepsMet } from "./run_steps.ts";
import { scanGate } from "./scan_gates.ts";
import { admit, closes, outOfOrder } from "./scan_admission.ts";
import { lifecycleAfter } from "./scan_lifecycle.ts";
import { timersFor } from "./timers.ts";
import type {
  ChargeDue,
  Decided,
  Lifecycle,
  ScanEntry,
  Shipment,
  ShipmentCommand,
  ShipmentEvent,
} from "./types.ts";

export function record(
  state: Shipment,
  command: Extract<ShipmentCommand, { kind: "record" }>,
  now: number,
): Decided {
  const { scan } = command;
  const admitted = admit(state, scan, now);
  if (!admitted.ok) return admitted;
  const held = scanGate(state, command.customs_gate);
  if (held) return held;
  const order = command.ordered === true ? outOfOrder(state, scan.event) : null;
  if (order) return order;
  const { step, entry } = admitted;
  // spec: courier 3.4: a run's step under way is recorded or voided before the shipment closes.
  const met = stepsMet(state, {
    closes: closes(step),
    key: command.step,
    voiding: command.voiding,
  });
  if (!Array.isArray(met)) return met as Rejection;
  const after = lifecycleAfter(state, scan, step, entry, now);
  const lifecycle = settledAfter(state, command, presentedAfter(state, command, after, now), now);
  const scanned = scanEvents(state, entry, lifecycle, now);
  const { due } = scanned;
  const events = [...scanned.events, ...met];
  const timers: TimerOp[] = timersFor({ ...state, ...lifecycle }, state);
  // The first charge due arms the retry; one already due has armed it.
  if (due && chargesDueOf(state).length === 0) timers.push(chargeRetry(now));
  return accept(events, (next) => next!, timers);
}

/** The scan and what it calls for: a later charge, a stage, a moved estimate, alerts. */
function scanEvents(
  state: Shipment,
  entry: ScanEntry,
  lifecycle: Lifecycle,
  now: number,
): { events: ShipmentEvent[]; due: ChargeDue | null } {
  const changed = lifecycleChanges(lifecycleOf(state), lifecycle);
  const events: ShipmentEvent[] = [{ kind: "scanned", entry, changed }];
  // spec: courier 2.6 rule 3: a redelivery or a return is a later charge, due from this commit on.
  const attempts = lifecycle.attempts;
  const charge = scanCharge({ waybill: state.waybill, attempts }, entry.event);
  const due: ChargeDue | null = charge && {
    source_event: charge.source_event,
    scan: entry.event,
    attempts,
    by: entry.by,
  };
  if (due) events.push({ kind: "charge_due", charge: due });
  if (lifecycle.status !== state.status) {
    events.push({
      kind: "stage_reached",
      stage: lifecycle.status,
      at: now,
      occurrence: lifecycle.trail_total,
    });
  }
  const estimate = lifecycle.estimated_delivery_on;
  if (estimate !== state.estimated_delivery_on) {
    events.push({
      kind: "estimate_changed",
      from: state.estimated_delivery_on,
      to: estimate,
      at: now,
    });
  }
  events.push(...scanAlerts(state, entry, lifecycle, now));
  return { events, due };
}

/** Alerts a scan raises (courier 2.9): pieces newly separated; papers newly asked for. */
function scanAlerts(
  state: Shipment,
  entry: ScanEntry,
  lifecycle: Lifecycle,
  now: number,
): ShipmentEvent[] {
  const alerts: ShipmentEvent[] = [];
  if (lifecycle.separated_since !== null && state.separated_since === null) {
    alerts.push(
      alertDue(
        state,
        "pieces_separated",
        `separated:${now}`,
        "courier",
        `the pieces of ${state.waybill} are in different places with no exception recorded`,
        { places: placesOf(lifecycle.pieces) },
      ),
    );
  }
  // spec: courier 2.9: documents_missing only when customs asked for papers, not on any hold; and
  // once while they are missing: asked for again before they were supplied is the same condition.
  const papersOwed = state.milestones.some((m) =>
    m.name === "customs_documents" && m.supplied_at === null
  );
  if (entry.event === "documents_requested" && !papersOwed) {
    const reason = entry.reason;
    alerts.push(
      alertDue(
        state,
        "documents_missing",
        `documents:${now}`,
        "courier",
        `customs holds ${state.waybill} for documents: ${reason}`,
        { reason },
      ),
    );
  }
  return alerts;
}

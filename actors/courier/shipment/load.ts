/** Shipments stored by earlier versions, loaded as today's rules leave them. */
import { healthOf, openUnderRules } from "../../../src/courier/rules/lifecycle.ts";
import { accept } from "../../../src/runtime/actor.ts";
import { lifecycleOf, obligations, startLifecycle } from "./lifecycle.ts";
import { rearm } from "./timers.ts";
import type { Decided, Shipment, ShipmentState } from "./types.ts";

/**
 * Version 1 knew only bookings: they start their lifecycle as booked. One stored returning before
 * the returning rule (lifecycle.ts STEPS.returning) loads as that rule leaves it: the recipient's
 * milestones and the promise closed, health and next obligation as of its last scan.
 */
export function load(stored: unknown, version: number): ShipmentState {
  if (stored === null) return null;
  const s = stored as Shipment;
  if (version < 2 || s.milestones === undefined) return { ...s, ...startLifecycle(s) };
  const milestones = openUnderRules(s.status, s.milestones);
  if (milestones === s.milestones) return s;
  const verdict = healthOf({ ...s, milestones }, s.trail.at(-1)?.at ?? s.booked_at);
  return {
    ...s,
    milestones,
    health: verdict.health,
    health_reason: verdict.reason,
    ...obligations(milestones, s.status),
  };
}

/**
 * The lifecycle as load left it, stated as a check (old data: a pass writes each shipment whose
 * stored record today's rules would change), so the store, the log and the snapshot that the
 * board reads say what is true now, without waiting for the next scan or check.
 */
export function restated(state: Shipment, now: number): Decided {
  const { trail: _, trail_total: __, ...changed } = lifecycleOf(state);
  return accept([{ kind: "checked", at: now, changed }], () => state, rearm(state, now));
}

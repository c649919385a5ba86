/**
 * A courier shipment (courier 2.3): identified by its waybill, it keeps a frozen pricing snapshot
 * and the service-level terms of the moment it was booked; nothing later rewrites them. It can
 * stay open 1 to 14 days (courier 1.4): scans move its headline, per-piece custody and milestones
 * (3.2); durable timers at each milestone's at-risk point and deadline, and after a silence,
 * raise alerts (2.9) and move health; one at the end of the estimated delivery day moves the
 * estimate on (2.3). Timers only ever raise alerts and move the estimate: they never cancel,
 * release or complete a shipment (1.4).
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import { load } from "./load.ts";
import { closedOnRuns } from "./run_steps.ts";
import type { ShipmentCommand, ShipmentEvent, ShipmentReply, ShipmentState } from "./types.ts";
import { loggedEvent, shipmentSearchView } from "./views.ts";

export * from "./types.ts";
export { startLifecycle, termsOf, TRAIL_MAX } from "./lifecycle.ts";
export { DELIVERY_SCANS, SCAN_TEXT_CHARS_MAX } from "./scan_admission.ts";
export { loggedEvent, shipmentSearchView } from "./views.ts";
export { CLOSED_ON_RUNS_OUTBOX, type ClosedOnRuns } from "./run_steps.ts";

export const shipmentActor: ActorDefinition<
  ShipmentState,
  ShipmentCommand,
  ShipmentEvent,
  ShipmentReply
> = {
  type: "shipment",
  version: 2,
  initial: null,
  decide,
  evolve,
  load,
  indexes: (s) => s === null ? [] : [{ index: "tracking", key: s.tracking_token_hash }],
  project: (s) => s === null ? null : shipmentSearchView(s),
  // The booked record is stored once, as the state (STATE_BYTES_MAX holds it), not again in the log.
  logged: loggedEvent,
  // spec: courier 3.4: the runs holding a shipment learn its end from the commit that closes it.
  outbox: closedOnRuns,
};

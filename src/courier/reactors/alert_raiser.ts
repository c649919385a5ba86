/**
 * Raises the alerts shipments call for (courier 2.9, 3.3): a shipment's decision records an
 * `alert_due` event (an actor cannot ask another), published after its commit; this subscriber
 * turns each into its alert actor. Raising is idempotent by condition key, so a change delivered
 * twice (recovery republishes) raises once.
 *
 * spec: courier 2.9: "each condition is raised once": a raise that fails is tried again within
 * the delivery (src/bus/retry.ts), so a transient failure loses no alert, and a crash meanwhile
 * republishes the change at start; one still failing is deferred (src/platform/reactors/deferred.ts) and tried
 * again on a durable schedule until raised.
 */
import type { AlertDue } from "../../../actors/courier/shipment/mod.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { raiseAlert } from "../flows/alerts.ts";

export interface ShipmentAlertRaiserOptions extends ReactorOptions {
  readonly runtime: ActorRuntime;
}

// Shipments side by side, one shipment's changes in order: a raise being retried holds up only
// its own shipment's later alerts.
export class ShipmentAlertRaiser extends UnitReactor<AlertDue> {
  constructor(options: ShipmentAlertRaiserOptions) {
    super(options, {
      worker: "alert_raiser",
      actorType: shipmentActor.type,
      unitsOf: alertsDue,
      work: (due, change) =>
        raiseAlert(options.runtime, change.tenant, {
          kind: due.kind,
          condition_key: due.condition_key,
          owner: due.owner,
          subject: { type: "shipment", id: change.id },
          waybill: change.id,
          message: due.message,
          detail: due.detail,
        }),
      describe: (due, change) => `${due.kind} of ${change.id}`,
    });
  }
}

/** The alerts a shipment's change calls for. */
function alertsDue(change: ActorChange): AlertDue[] {
  return change.events.flatMap(({ event }) => {
    const e = event as { kind?: string; alert?: AlertDue };
    return e.kind === "alert_due" && e.alert ? [e.alert] : [];
  });
}

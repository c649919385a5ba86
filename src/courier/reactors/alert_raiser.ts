/**
 * Raises the alerts shipments call for (courier 2.9, 3.3): a shipment's decision records an
 * `alert_due` event (an actor cannot ask another), published after its commit; this subscriber
 * turns each into its alert actor. Raising is idempotent by condition key, so a change delivered
 * twice (recovery republishes) raises once.
 *
 * spec: courier 2.9: "each condition is raised once": a raise that fails is tried again within
 * the delivery (src/bus/retry.ts), so a transient failure loses no alert, and a crash meanwhile
 * republishes the change at start; one still failing is deferred (src/bus/deferred.ts) and tried
 * again on a durable schedule until raised.
 */
import type { AlertDue } from "../../../actors/courier/shipment.ts";
import { shipmentActor } from "../../../actors/courier/shipment.ts";
import type { ActorChange, Bus } from "../../bus/bus.ts";
import { subjectPattern } from "../../bus/bus.ts";
import { type KeyedSubscription, subscribeUnits } from "../../bus/keyed.ts";
import type { RetryPolicy } from "../../bus/retry.ts";
import type { Deferral } from "../../bus/keyed.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { raiseAlert } from "../flows/alerts.ts";

export interface ShipmentAlertRaiserOptions {
  readonly runtime: ActorRuntime;
  readonly bus: Bus;
  /** Where a raise that still fails after its retries is reported; `console.error` by default. */
  readonly onError?: (error: unknown, where: string) => void;
  readonly retry?: RetryPolicy;
  /** Where a raise still failing after its retries is kept to be tried again later. */
  readonly deferral?: Deferral;
}

export class ShipmentAlertRaiser {
  readonly #o: ShipmentAlertRaiserOptions;
  // Shipments side by side, one shipment's changes in order: a raise being retried holds up only
  // its own shipment's later alerts.
  readonly #changes: KeyedSubscription;

  constructor(options: ShipmentAlertRaiserOptions) {
    this.#o = options;
    this.#changes = subscribeUnits({
      bus: options.bus,
      pattern: subjectPattern(options.runtime.busPrefix, "*", shipmentActor.type),
      worker: "alert_raiser",
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
      report: (error, due, change) => this.#error(error, `${due.kind} of ${change.id}`),
      retry: options.retry,
      deferral: options.deferral,
    });
  }

  /** Stops taking changes and waits for the raises under way (retries included). */
  async close(): Promise<void> {
    await this.#changes.close();
  }

  #error(error: unknown, where: string): void {
    if (this.#o.onError) this.#o.onError(error, where);
    else console.error(`alert raiser: ${where}:`, error);
  }
}

/** The alerts a shipment's change calls for. */
function alertsDue(change: ActorChange): AlertDue[] {
  return change.events.flatMap(({ event }) => {
    const e = event as { kind?: string; alert?: AlertDue };
    return e.kind === "alert_due" && e.alert ? [e.alert] : [];
  });
}

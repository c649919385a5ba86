/**
 * Raises the alerts shipments call for (courier 2.9, 3.3): a shipment's decision records an
 * `alert_due` event (an actor cannot ask another), published after its commit; this subscriber
 * turns each into its alert actor. Raising is idempotent by condition key, so a change delivered
 * twice (recovery republishes) raises once.
 */
import type { AlertDue } from "../../actors/shipment.ts";
import { shipmentActor } from "../../actors/shipment.ts";
import type { ActorChange, Bus, Subscription } from "../bus/bus.ts";
import { subjectPattern } from "../bus/bus.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";
import { raiseAlert } from "./alerts.ts";

export class ShipmentAlertRaiser {
  readonly #subscription: Subscription;

  constructor(
    readonly runtime: ActorRuntime,
    bus: Bus,
    readonly onError: (error: unknown, where: string) => void = (e, w) =>
      console.error(`alert raiser: ${w}:`, e),
  ) {
    const pattern = subjectPattern(runtime.env, "*", shipmentActor.type);
    this.#subscription = bus.subscribe(pattern, (m) => this.#onChange(m.payload));
  }

  close(): void {
    this.#subscription.unsubscribe();
  }

  async #onChange(payload: unknown): Promise<void> {
    const change = payload as ActorChange;
    for (const { event } of change.events) {
      const e = event as { kind?: string; alert?: AlertDue };
      if (e.kind !== "alert_due" || !e.alert) continue;
      try {
        await raiseAlert(this.runtime, change.tenant, {
          kind: e.alert.kind,
          condition_key: e.alert.condition_key,
          owner: e.alert.owner,
          subject: { type: "shipment", id: change.id },
          waybill: change.id,
          message: e.alert.message,
          detail: e.alert.detail,
        });
      } catch (error) {
        this.onError(error, `${e.alert.kind} of ${change.id}`);
      }
    }
  }
}

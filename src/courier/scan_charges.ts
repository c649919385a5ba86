/**
 * Books the later charges scans cause (courier 2.6 rule 3: redeliveries, returns) from the
 * shipment's own committed `charge_due` events, so that none is lost to a request that dies, or
 * whose booking fails, after its scan was committed. The request books the charge too, before it
 * answers; the same source event books once however often it is sent (2.6 rule 2).
 *
 * Nothing is lost on the way: the charge is due in the shipment's state from the scan's own
 * commit; the runtime publishes that commit at least once (recovery markers); a booking that
 * fails here is logged and stays due, and the shipment's durable `charge` timer makes it due again
 * (SCAN_CHARGE_RETRY_MS) until this handler confirms it booked.
 */
import { type ChargeDue, shipmentActor, type ShipmentEvent } from "../../actors/shipment.ts";
import type { ActorChange, Bus, BusMessage } from "../bus/bus.ts";
import { subjectPattern } from "../bus/bus.ts";
import { type KeyedSubscription, subscribeKeyed } from "../bus/keyed.ts";
import type { ShipmentSnapshot } from "../domain/operations_row.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";
import { bookScanCharge } from "./later_charges.ts";

export interface ScanChargesOptions {
  readonly runtime: ActorRuntime;
  /** The bus the runtime publishes on. */
  readonly bus: Bus;
  /** Books one charge, throwing when it was not booked; `bookScanCharge` unless a test breaks it. */
  readonly book?: typeof bookScanCharge;
  readonly onError?: (error: unknown, where: string) => void;
}

export class ScanCharges {
  readonly #o: ScanChargesOptions;
  readonly #book: typeof bookScanCharge;
  // Each booking is a round trip of its own: shipments side by side, one shipment's in order.
  readonly #changes: KeyedSubscription;

  constructor(options: ScanChargesOptions) {
    this.#o = options;
    this.#book = options.book ?? bookScanCharge;
    this.#changes = subscribeKeyed(
      options.bus,
      subjectPattern(options.runtime.busPrefix, "*", shipmentActor.type),
      (m) => this.#onChange(m),
    );
  }

  /** Stops taking changes and waits for the bookings under way (what is left stays due). */
  async close(): Promise<void> {
    await this.#changes.close();
  }

  async #onChange(message: BusMessage): Promise<void> {
    const change = message.payload as ActorChange;
    const s = change.snapshot as ShipmentSnapshot | undefined;
    if (change.type !== shipmentActor.type || !s) return;
    const due = new Map<string, ChargeDue>();
    for (const { event } of change.events) {
      const e = event as ShipmentEvent;
      if (e.kind === "charge_due") due.set(e.charge.source_event, e.charge);
    }
    if (due.size === 0) return;
    const booked: string[] = [];
    for (const charge of due.values()) {
      try {
        // spec: courier 2.6 rule 3: priced as the shipment stood after the scan that caused it.
        await this.#book(
          this.#o.runtime,
          { ...s, attempts: charge.attempts },
          charge.scan,
          charge.by,
        );
        booked.push(charge.source_event);
      } catch (error) {
        this.#error(error, `charge ${charge.source_event}`); // due again at the shipment's retry
      }
    }
    if (booked.length === 0) return;
    try {
      const confirmed = await this.#o.runtime.ask(shipmentActor, change.tenant, change.id, {
        kind: "confirm_charges",
        source_events: booked,
      });
      if (!confirmed.ok) throw new Error(`${confirmed.code}: ${confirmed.message}`);
    } catch (error) {
      // Booked but still due: booked again (a no-op) and confirmed at the shipment's retry.
      this.#error(error, `charges of ${change.id} booked, not confirmed`);
    }
  }

  #error(error: unknown, where: string): void {
    if (this.#o.onError) this.#o.onError(error, where);
    else console.error(`scan charges: ${where}:`, error);
  }
}

/**
 * Books the customs-administration charges clearances cause (courier 2.6 rule 3: one per crossing
 * cleared) from the crossing's own committed `charge_due` events, so that none is lost to a
 * request that dies, or whose booking fails, after the clearance was committed, whether or not
 * the clearance is ever sent again. The request books the charge too, before it answers; the same
 * source event books once however often it is sent (2.6 rule 2). As scan_charges.ts does for the
 * charges scans cause.
 *
 * Nothing is lost on the way: the charge is due in the crossing's state from the clearance's own
 * commit; the runtime publishes that commit at least once (recovery markers); a booking that fails
 * here is logged and stays due, and the crossing's durable `charge` timer makes it due again
 * (SCAN_CHARGE_RETRY_MS) until this handler confirms it booked.
 */
import {
  type Crossing,
  type CrossingChargeDue,
  type CrossingEvent,
  customsCrossingActor,
} from "../../actors/customs_crossing.ts";
import type { ActorChange, Bus, BusMessage } from "../bus/bus.ts";
import { subjectPattern } from "../bus/bus.ts";
import { type KeyedSubscription, subscribeKeyed } from "../bus/keyed.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";
import { bookCrossingCharge } from "./customs.ts";

export interface CustomsChargesOptions {
  readonly runtime: ActorRuntime;
  /** The bus the runtime publishes on. */
  readonly bus: Bus;
  /** Books one charge, throwing when it was not booked; `bookCrossingCharge` unless a test breaks it. */
  readonly book?: typeof bookCrossingCharge;
  readonly onError?: (error: unknown, where: string) => void;
}

export class CustomsCharges {
  readonly #o: CustomsChargesOptions;
  readonly #book: typeof bookCrossingCharge;
  // Each booking is a round trip of its own: crossings side by side, one crossing's in order.
  readonly #changes: KeyedSubscription;

  constructor(options: CustomsChargesOptions) {
    this.#o = options;
    this.#book = options.book ?? bookCrossingCharge;
    this.#changes = subscribeKeyed(
      options.bus,
      subjectPattern(options.runtime.busPrefix, "*", customsCrossingActor.type),
      (m) => this.#onChange(m),
    );
  }

  /** Stops taking changes and waits for the bookings under way (what is left stays due). */
  async close(): Promise<void> {
    await this.#changes.close();
  }

  async #onChange(message: BusMessage): Promise<void> {
    const change = message.payload as ActorChange;
    if (change.type !== customsCrossingActor.type) return;
    const due = new Map<string, CrossingChargeDue>();
    for (const { event } of change.events) {
      const e = event as CrossingEvent;
      if (e.kind === "charge_due") due.set(e.charge.source_event, e.charge);
    }
    if (due.size === 0) return;
    const runtime = this.#o.runtime;
    let crossing: Crossing;
    try {
      const got = await runtime.read(customsCrossingActor, change.tenant, change.id, {
        kind: "get",
      });
      if (!got.ok) throw new Error(`${got.code}: ${got.message}`);
      if (got.reply.kind !== "crossing") throw new Error(`get answered ${got.reply.kind}`);
      crossing = got.reply.crossing;
    } catch (error) {
      this.#error(error, `crossing ${change.id}`); // due again at the crossing's retry
      return;
    }
    const booked: string[] = [];
    for (const charge of due.values()) {
      try {
        await this.#book(runtime, change.tenant, crossing, charge);
        booked.push(charge.source_event);
      } catch (error) {
        this.#error(error, `charge ${charge.source_event}`); // due again at the crossing's retry
      }
    }
    if (booked.length === 0) return;
    try {
      const confirmed = await runtime.ask(customsCrossingActor, change.tenant, change.id, {
        kind: "confirm_charges",
        source_events: booked,
      });
      if (!confirmed.ok) throw new Error(`${confirmed.code}: ${confirmed.message}`);
    } catch (error) {
      // Booked but still due: booked again (a no-op) and confirmed at the crossing's retry.
      this.#error(error, `charges of ${change.id} booked, not confirmed`);
    }
  }

  #error(error: unknown, where: string): void {
    if (this.#o.onError) this.#o.onError(error, where);
    else console.error(`customs charges: ${where}:`, error);
  }
}

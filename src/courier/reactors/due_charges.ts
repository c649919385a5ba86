/**
 * The worker behind scan_charges.ts and customs_charges.ts. An actor keeps each later charge its
 * commits cause due in its own state (src/domain/charges_due.ts) until it is told the charge was
 * booked (`confirm_charges`). This worker books each charge a committed change makes due and confirms
 * those it booked (courier 2.6 rule 3), so none is lost to a request that dies, or whose booking
 * fails, after the commit. The same source event books once however often it is sent (rule 2).
 */
import type { ActorChange, Bus, BusMessage } from "../../bus/bus.ts";
import { subjectPattern } from "../../bus/bus.ts";
import { type KeyedSubscription, subscribeKeyed } from "../../bus/keyed.ts";
import type { DueCharge } from "../rules/charges_due.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

export interface DueChargesOptions {
  readonly runtime: ActorRuntime;
  /** The bus the runtime publishes on. */
  readonly bus: Bus;
  readonly onError?: (error: unknown, where: string) => void;
}

/** What differs between the actors that keep charges due. */
export interface DueChargeSource<C extends DueCharge, S> {
  /** The actor type whose changes carry the `charge_due` events. */
  readonly type: string;
  /** The worker's name in the log. */
  readonly name: string;
  /** What booking needs beyond the charge (the actor as it stood); null: nothing to book. */
  subjectOf(change: ActorChange): Promise<S | null> | S | null;
  /** Books one charge, throwing when it was not booked. */
  book(tenant: string, subject: S, charge: C): Promise<unknown>;
  /** Tells the actor these charges were booked: they are no longer due. */
  confirm(tenant: string, id: string, sourceEvents: string[]): Promise<void>;
}

export class DueCharges<C extends DueCharge, S> {
  readonly #source: DueChargeSource<C, S>;
  readonly #onError: ((error: unknown, where: string) => void) | undefined;
  // Each booking is a round trip of its own: actors side by side, one actor's in order.
  readonly #changes: KeyedSubscription;

  constructor(options: DueChargesOptions, source: DueChargeSource<C, S>) {
    this.#source = source;
    this.#onError = options.onError;
    this.#changes = subscribeKeyed(
      options.bus,
      subjectPattern(options.runtime.busPrefix, "*", source.type),
      (m) => this.#onChange(m),
    );
  }

  /** Stops taking changes and waits for the bookings under way (what is left stays due). */
  async close(): Promise<void> {
    await this.#changes.close();
  }

  async #onChange(message: BusMessage): Promise<void> {
    const change = message.payload as ActorChange;
    if (change.type !== this.#source.type) return;
    const due = new Map<string, C>();
    for (const { event } of change.events) {
      const e = event as { kind?: unknown; charge?: C };
      if (e.kind === "charge_due" && e.charge) due.set(e.charge.source_event, e.charge);
    }
    if (due.size === 0) return;
    let subject: S | null;
    try {
      subject = await this.#source.subjectOf(change);
    } catch (error) {
      this.#error(error, `${change.type} ${change.id}`); // due again at the actor's retry
      return;
    }
    if (subject === null) return;
    const booked: string[] = [];
    for (const charge of due.values()) {
      try {
        await this.#source.book(change.tenant, subject, charge);
        booked.push(charge.source_event);
      } catch (error) {
        this.#error(error, `charge ${charge.source_event}`); // due again at the actor's retry
      }
    }
    if (booked.length === 0) return;
    try {
      await this.#source.confirm(change.tenant, change.id, booked);
    } catch (error) {
      // Booked but still due: booked again (a no-op) and confirmed at the actor's retry.
      this.#error(error, `charges of ${change.id} booked, not confirmed`);
    }
  }

  #error(error: unknown, where: string): void {
    if (this.#onError) this.#onError(error, where);
    else console.error(`${this.#source.name}: ${where}:`, error);
  }
}

/** A refusal of `confirm_charges` as an error (the charges stay due, and are confirmed later). */
export function confirmed(r: { ok: true } | { ok: false; code: string; message: string }): void {
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
}

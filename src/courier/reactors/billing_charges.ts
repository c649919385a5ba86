/**
 * Charge billing events (courier 2.7, 6.1): one event per charge entry of a client account, and
 * one `charge.resolved` per conversion that got its rate, made from the accounts' changes on the
 * bus. Each id is derived from the entry, so an entry reported twice is one event.
 *
 * Not on the shared reactor base (src/bus/reactor.ts): the events of one change are made
 * together, so that their commits share group commits (the base works a change's units one after
 * another), and a change whose events still fail is not deferred: the charge sweep
 * (BillingEvents.sweep) finds every entry whose event never reached the query side.
 */
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import {
  courierClientActor,
  type CourierClientEvent,
} from "../../../actors/courier/courier_client.ts";
import {
  type BilledClient,
  CHARGE_RESOLVED,
  chargeEventBody,
  chargeEventType,
  type ChargeShipment,
  eventIdOf,
} from "../rules/billing_events.ts";
import { entryOf, type LedgerEntry } from "../rules/ledger.ts";
import type { ActorChange, Bus } from "../../bus/bus.ts";
import { subjectPattern } from "../../bus/bus.ts";
import { type KeyedSubscription, subscribeKeyed } from "../../bus/keyed.ts";
import { HANDLER_RETRY, retried, type RetryPolicy } from "../../bus/retry.ts";
import { billedClientOf, createBillingEvent, type OutboxOptions } from "./billing_outbox.ts";

/**
 * The id of the billing event reporting `entry`, or null when the entry is no charge. A note's
 * reference is the caller's own and may repeat another entry's (courier 2.6: a reference is
 * unique within its kind): its kind keeps its event apart. Other kinds keep the id they had.
 */
export async function chargeEventIdOf(
  tenant: string,
  clientId: string,
  entry: LedgerEntry,
): Promise<string | null> {
  if (chargeEventType(entry) === null) return null;
  if (entry.kind === "debit_note" || entry.kind === "credit_note") {
    return await eventIdOf("billing", tenant, clientId, entry.reference, entry.kind);
  }
  return await eventIdOf("billing", tenant, clientId, entry.reference);
}

/** The id of the `charge.resolved` event of an entry's conversion (courier 6.1). */
export function resolvedEventIdOf(tenant: string, clientId: string, reference: string): string {
  return eventIdOf("billing.resolved", tenant, clientId, reference);
}

export interface ChargeEventsOptions extends OutboxOptions {
  readonly bus: Bus;
  readonly retry?: RetryPolicy | undefined;
  /** Where an event that still fails after its retries is reported. */
  readonly report: (error: unknown, where: string) => void;
}

/** Makes the charge events of the client accounts' changes (`<env>.*.courier_client.*`). */
export class ChargeEvents {
  readonly #o: ChargeEventsOptions;
  readonly #changes: KeyedSubscription;

  constructor(options: ChargeEventsOptions) {
    this.#o = options;
    // The events of many accounts are made side by side, one account's in order; taken one
    // change at a time, accounts booking apart fell further behind with each booking.
    this.#changes = subscribeKeyed(
      options.bus,
      subjectPattern(options.runtime.busPrefix, "*", courierClientActor.type),
      (m) => this.#onChange(m.payload as ActorChange),
    );
  }

  async close(): Promise<void> {
    await this.#changes.close();
  }

  /**
   * Creates (or finds) the billing event of one charge entry; `storedId`: the id its projected
   * row names (the sweeper's), which stands even if the derivation changed since.
   */
  async emitCharge(
    tenant: string,
    client: BilledClient,
    entry: LedgerEntry,
    shipment?: ChargeShipment | null,
    storedId?: string,
  ): Promise<void> {
    const eventType = chargeEventType(entry);
    if (eventType === null) return;
    const eventId = storedId ?? (await chargeEventIdOf(tenant, client.id, entry))!;
    await this.#emitEntry(tenant, client, entry, eventId, eventType, shipment);
  }

  /**
   * Creates (or finds) the `charge.resolved` event of a conversion that got its rate (courier 6.1:
   * the converted amount, once the rate is known); `resolved` is the entry as resolved, and
   * `storedId` the id its projected row names (the sweeper's).
   */
  async emitResolved(
    tenant: string,
    client: BilledClient,
    resolved: LedgerEntry,
    storedId?: string,
  ): Promise<void> {
    const entry = entryOf({
      ...resolved,
      reason: `conversion resolved at ${resolved.fx_rate} (${resolved.fx_source})`,
      source_event: `${CHARGE_RESOLVED}:${resolved.reference}`,
    });
    const eventId = storedId ?? resolvedEventIdOf(tenant, client.id, resolved.reference);
    // Occurs at the resolution's moment (the entry's created_at), when the charge is booked;
    // `charged_at` says when it arose.
    await this.#emitEntry(tenant, client, entry, eventId, CHARGE_RESOLVED);
  }

  /** Creates (or finds) the event `eventId` telling of `entry`, occurring when it was booked. */
  async #emitEntry(
    tenant: string,
    client: BilledClient,
    entry: LedgerEntry,
    eventId: string,
    eventType: string,
    shipment?: ChargeShipment | null,
  ): Promise<void> {
    await createBillingEvent(this.#o, {
      tenant,
      clientId: client.id,
      entry: { reference: entry.reference, kind: entry.kind },
      eventId,
      eventType,
      rawBody: chargeEventBody({
        eventId,
        eventType,
        occurredAt: entry.created_at,
        client,
        entry,
        shipment: shipment === undefined ? await this.#shipmentOf(tenant, entry) : shipment,
      }),
    });
  }

  async #onChange(change: ActorChange): Promise<void> {
    if (change.type !== courierClientActor.type || !change.snapshot) return;
    const client = billedClientOf(change.snapshot);
    if (!client) return;
    // The events of one change (a busy account's whole batch) are made together, so that their
    // commits share group commits instead of taking one each, in turn.
    await Promise.all(change.events.map(async ({ event }) => {
      try {
        await retried(
          () => this.#onEvent(change.tenant, client, event as CourierClientEvent),
          this.#o.retry ?? HANDLER_RETRY,
        );
      } catch (e) {
        this.#o.report(e, `billing event of ${change.tenant}/${change.id}`);
      }
    }));
  }

  async #onEvent(tenant: string, client: BilledClient, event: CourierClientEvent): Promise<void> {
    switch (event.kind) {
      case "booking_charged":
        if (!event.entry) return;
        return await this.emitCharge(
          tenant,
          client,
          event.entry,
          event.references ? { waybill: event.waybill, ...event.references } : undefined,
        );
      case "entry_posted":
      case "cod_remitted":
        return await this.emitCharge(tenant, client, event.entry);
      case "fx_resolved":
        return await this.emitResolved(tenant, client, entryOf(event.resolution));
      default:
        return;
    }
  }

  async #shipmentOf(tenant: string, entry: LedgerEntry): Promise<ChargeShipment | null> {
    if (entry.shipment === null) return null;
    const got = await this.#o.runtime.read(shipmentActor, tenant, entry.shipment, { kind: "get" });
    const refs = got.ok && "references" in got.reply ? got.reply.references : null;
    return {
      waybill: entry.shipment,
      external_customer_code: refs?.external_customer_code ?? null,
      external_billing_reference: refs?.external_billing_reference ?? null,
      client_order_reference: refs?.client_order_reference ?? null,
    };
  }
}

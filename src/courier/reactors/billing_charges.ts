/**
 * Charge billing events (courier 2.7, 6.1): one event per charge entry of a client account, and
 * one `charge.resolved` per conversion that got its rate. The account's commit that books the
 * entry adds it to the `billing_charge` outbox (actors/courier/client_ledger/outbox.ts), in the
 * same commit; this makes the event once the commit is done, and the runtime's outbox sweep hands
 * over again what a crash or a failure left. Each id is derived from the entry, so an entry
 * handed over twice is one event.
 */
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import { foundOrNull } from "../../runtime/actor.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { CourierClientEvent } from "../../../actors/courier/courier_client.ts";
import {
  BILLING_CHARGE_OUTBOX,
  type BillingChargeItem,
} from "../../../actors/courier/client_ledger/outbox.ts";
import {
  type BilledClient,
  CHARGE_RESOLVED,
  chargeEventBody,
  chargeEventType,
  type ChargeShipment,
  eventIdOf,
} from "../rules/billing_events.ts";
import { entryOf, type LedgerEntry } from "../rules/ledger.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import { type OutboxOptions, sendBillingEvent } from "./billing_outbox.ts";

/**
 * Kinds whose reference may repeat another entry's: a note's is the caller's, and a claim's
 * credit note and compensation share the claim's. The kind keeps their events apart.
 */
const NOTE_KINDS: ReadonlySet<string> = new Set(["debit_note", "credit_note", "compensation"]);

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
  if (NOTE_KINDS.has(entry.kind)) {
    return await eventIdOf("billing", tenant, clientId, entry.reference, entry.kind);
  }
  return await eventIdOf("billing", tenant, clientId, entry.reference);
}

/** The id of the `charge.resolved` event of an entry's conversion (courier 6.1). */
export function resolvedEventIdOf(tenant: string, clientId: string, reference: string): string {
  return eventIdOf("billing.resolved", tenant, clientId, reference);
}

/**
 * What an event is made from beyond its entry: the id a projected row names (the sweeper's),
 * and the request whose command made the charge (for the attempts' log lines).
 */
interface Made {
  readonly storedId?: string;
  readonly requestId?: string | undefined;
}

/** Makes the charge events the client accounts' commits put in the `billing_charge` outbox. */
export class ChargeEvents {
  readonly #o: OutboxOptions;
  readonly #handling: OutboxHandling;

  constructor(options: OutboxOptions) {
    this.#o = options;
    this.#handling = new OutboxHandling(
      options.runtime,
      BILLING_CHARGE_OUTBOX,
      (item) => this.#onItem(item),
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being made. */
  close(): Promise<void> {
    return this.#handling.close();
  }

  /**
   * Creates (or finds) the billing event of one charge entry; `made.storedId`: the id its
   * projected row names (the sweeper's), which stands even if the derivation changed since.
   */
  async emitCharge(
    tenant: string,
    client: BilledClient,
    entry: LedgerEntry,
    shipment?: ChargeShipment | null,
    made: Made = {},
  ): Promise<void> {
    const eventType = chargeEventType(entry);
    if (eventType === null) return;
    const eventId = made.storedId ?? (await chargeEventIdOf(tenant, client.id, entry))!;
    await this.#emitEntry(tenant, client, entry, { eventId, eventType, ...made }, shipment);
  }

  /**
   * Creates (or finds) the `charge.resolved` event of a conversion that got its rate (courier 6.1:
   * the converted amount, once the rate is known); `resolved` is the entry as resolved, and
   * `made.storedId` the id its projected row names (the sweeper's).
   */
  async emitResolved(
    tenant: string,
    client: BilledClient,
    resolved: LedgerEntry,
    made: Made = {},
  ): Promise<void> {
    const entry = entryOf({
      ...resolved,
      reason: `conversion resolved at ${resolved.fx_rate} (${resolved.fx_source})`,
      source_event: `${CHARGE_RESOLVED}:${resolved.reference}`,
    });
    const eventId = made.storedId ??
      resolvedEventIdOf(tenant, client.id, resolved.reference);
    // Occurs at the resolution's moment (the entry's created_at), when the charge is booked;
    // `charged_at` says when it arose.
    await this.#emitEntry(tenant, client, entry, {
      eventId,
      eventType: CHARGE_RESOLVED,
      ...made,
    });
  }

  /** Creates (or finds) the event `eventId` telling of `entry`, occurring when it was booked. */
  async #emitEntry(
    tenant: string,
    client: BilledClient,
    entry: LedgerEntry,
    o: Made & { readonly eventId: string; readonly eventType: string },
    shipment?: ChargeShipment | null,
  ): Promise<void> {
    const { eventId, eventType } = o;
    await sendBillingEvent(this.#o, {
      tenant,
      clientId: client.id,
      entry: { reference: entry.reference, kind: entry.kind },
      eventId,
      eventType,
      requestId: o.requestId,
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

  /** One item of the outbox; a failure is thrown (reported by the runtime, made at a sweep). */
  async #onItem(item: OutboxItem): Promise<void> {
    const { client, event } = item.payload as BillingChargeItem;
    await this.#onEvent(item.tenant, client, event, { requestId: item.requestId });
  }

  async #onEvent(
    tenant: string,
    client: BilledClient,
    event: CourierClientEvent,
    made: Made,
  ): Promise<void> {
    switch (event.kind) {
      case "booking_charged":
        if (!event.entry) return;
        return await this.emitCharge(
          tenant,
          client,
          event.entry,
          event.references ? { waybill: event.waybill, ...event.references } : undefined,
          made,
        );
      case "entry_posted":
      case "cod_remitted":
        return await this.emitCharge(tenant, client, event.entry, undefined, made);
      case "fx_resolved":
        return await this.emitResolved(tenant, client, entryOf(event.resolution), made);
      default:
        return;
    }
  }

  async #shipmentOf(tenant: string, entry: LedgerEntry): Promise<ChargeShipment | null> {
    if (entry.shipment === null) return null;
    // A refused read (a full mailbox) is thrown, so the item is made again: sent without the
    // shipment's references, the event (its id derived) could never be sent right (courier 2.7).
    const got = await this.#o.runtime.read(shipmentActor, tenant, entry.shipment, { kind: "get" });
    const found = foundOrNull(got);
    const refs = found && "references" in found ? found.references : null;
    return {
      waybill: entry.shipment,
      external_customer_code: refs?.external_customer_code ?? null,
      external_billing_reference: refs?.external_billing_reference ?? null,
      client_order_reference: refs?.client_order_reference ?? null,
    };
  }
}

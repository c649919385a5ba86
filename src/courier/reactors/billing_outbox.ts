/**
 * Where billing events are made (courier 6.1): each is an `outbound_event` actor handed to the
 * delivery engine, made under an id derived from what it reports, so making it again (a change
 * heard twice, the sweeper, a second instance) changes nothing; and the client it bills, read
 * from its account.
 */
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { outboundEventActor, type Recipient } from "../../../actors/platform/outbound_event/mod.ts";
import type { BilledClient } from "../rules/billing_events.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { DeliveryTarget } from "../../platform/reactors/deliver.ts";

/** What making billing events needs. */
export interface OutboxOptions {
  readonly runtime: ActorRuntime;
  /**
   * Where the courier's events go (targets.ts): an event made while there is none is made with
   * its first attempt already noted as finding none. Without it, the delivery engine finds out.
   */
  readonly targets?: (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>;
}

/** One billing event to make: its id, type and body as sent, and what it reports. */
export interface BillingEventMade {
  readonly tenant: string;
  readonly clientId: string;
  /** The ledger entry it reports; null for a completion. */
  readonly entry: { readonly reference: string; readonly kind: string } | null;
  readonly eventId: string;
  readonly eventType: string;
  readonly rawBody: string;
  /** The request whose change it reports, named by its attempts' log lines; none from a sweep. */
  readonly requestId?: string | undefined;
}

/** Creates the billing event, or finds it made; a failure to make it is thrown. */
export async function createBillingEvent(o: OutboxOptions, e: BillingEventMade): Promise<void> {
  const recipient: Recipient = { kind: "courier" };
  // A failed lookup leaves the first attempt to the delivery engine, which looks again.
  const target = await o.targets?.(e.tenant, recipient).catch(() => undefined);
  const created = await o.runtime.ask(outboundEventActor, e.tenant, e.eventId, {
    kind: "create",
    event: {
      event_id: e.eventId,
      stream: "billing",
      event_type: e.eventType,
      raw_body: e.rawBody,
      recipient,
      entry: e.entry === null ? null : { client_id: e.clientId, ...e.entry },
      // spec: courier 4.3: a completion is its shipment's client's too, for the outbox by client.
      client_id: e.clientId,
      ...(e.requestId === undefined ? {} : { request_id: e.requestId }),
    },
    endpoint_missing: target === null,
    // Derived from a change heard now: new unless the change is heard again, when the
    // commit's check finds the stored event (AskOptions.fresh).
  }, { fresh: true });
  // The same event made twice with other bytes (a client renamed between two emissions) is
  // the event already made: it stands.
  if (!created.ok && created.code !== "exists_with_different_body") {
    throw new Error(`billing event ${e.eventId}: ${created.code}: ${created.message}`);
  }
}

/**
 * The client and the last entry seq its account handed out, or null when there is none; a
 * refused read (a busy actor) throws.
 */
export async function billedAccountOf(
  runtime: ActorRuntime,
  tenant: string,
  clientId: string,
): Promise<{ client: BilledClient; seq: number } | null> {
  const got = await runtime.read(courierClientActor, tenant, clientId, { kind: "get" });
  if (!got.ok && got.code !== "not_found") {
    throw new Error(`client ${clientId}: ${got.code}: ${got.message}`);
  }
  if (!got.ok || !got.reply || !("ledger" in got.reply)) return null;
  const c = got.reply;
  return { client: { id: c.id, code: c.code, name: c.name }, seq: c.ledger.seq };
}

/** The client of a client account's snapshot on the bus, or null when it names none. */
export function billedClientOf(snapshot: unknown): BilledClient | null {
  const s = snapshot as Partial<Record<"id" | "code" | "name", unknown>>;
  if (typeof s.id !== "string" || typeof s.code !== "string" || typeof s.name !== "string") {
    return null;
  }
  return { id: s.id, code: s.code, name: s.name };
}

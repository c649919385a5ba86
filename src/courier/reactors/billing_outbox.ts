/**
 * Where billing events are made (courier 6.1): each is an `outbound_event` actor handed to the
 * delivery engine, or, for a charge's event delivered at its first attempt, a delivery-log row
 * (issue 36 item 2). Each is made under an id derived from what it reports, so making it again (a
 * change heard twice, the sweeper, a second instance) changes nothing; and the client it bills,
 * read from its account.
 */
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import type { Kysely } from "kysely";
import {
  type FirstAttempt,
  type NewOutboundEvent,
  outboundEventActor,
  type Recipient,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { BilledClient } from "../rules/billing_events.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { DeliveryTarget } from "../../platform/reactors/deliver.ts";
import type { Database } from "../../db/schema.ts";
import { writeDeliveredLog } from "../queries/outbound_log.ts";
import { NO_ENDPOINT_RETRY_MS } from "../../platform/rules/delivery_schedule.ts";
import type { WaitingRows } from "./waiting_rows.ts";

/** What making billing events needs. */
export interface OutboxOptions {
  readonly runtime: ActorRuntime;
  /**
   * Where the courier's events go (targets.ts): an event made while there is none is made with
   * its first attempt already noted as finding none. Without it, the delivery engine finds out.
   */
  readonly targets?: (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>;
  /**
   * The delivery engine's first attempt (src/platform/reactors/deliver.ts): with it and `db`, a
   * charge's event is sent by its outbox's handler before any actor is made (sendBillingEvent).
   */
  readonly attemptFirst?: (
    tenant: string,
    event: NewOutboundEvent,
    target: DeliveryTarget,
  ) => Promise<FirstAttempt | null>;
  /** Where an event delivered at its first attempt, or waiting, is logged (outbound_log.ts). */
  readonly db?: Kysely<Database>;
  /** Where the waiting rows of many charges are written together (waiting_rows.ts). */
  readonly waiting?: WaitingRows;
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
  const event = newEventOf(e);
  // A failed lookup leaves the first attempt to the delivery engine, which looks again.
  const target = await o.targets?.(e.tenant, COURIER).catch(() => undefined);
  await make(o, e.tenant, event, { endpoint_missing: target === null });
}

/**
 * Sends a billing event made by an outbox's handler (issue 36 item 2): the first attempt is made
 * here, and an event it delivers is one delivery-log row, no actor; so is one made while there
 * is no endpoint (it waits). An actor is made only to own the retries of a failed first attempt
 * (or when the query side refuses the row). At least once: a crash before
 * the row is written leaves the outbox item, whose handling sends again; an event found made
 * (its actor, or its row, which the runtime reads as the actor) is not sent again.
 */
export async function sendBillingEvent(o: OutboxOptions, e: BillingEventMade): Promise<void> {
  const { attemptFirst, db, waiting, runtime } = o;
  // The delivery log's pieces (its table and the batcher of its waiting rows), or actors.
  if (!attemptFirst || !db || !waiting) return await createBillingEvent(o, e);
  const event = newEventOf(e);
  const target = await o.targets?.(e.tenant, COURIER).catch(() => undefined);
  // None set: it waits for one (courier 3.1), as a row retried with the courier's others.
  if (target === null) return await wait(o, waiting, e.tenant, event);
  // A failed lookup: the engine looks again. Made as before, with no read first: a row already
  // written is only a crash's, with the endpoint cleared since, and costs a second delivery of
  // the same id, which receivers dedupe (6.1).
  if (!target) return await make(o, e.tenant, event, { endpoint_missing: false });
  const held = await runtime.read(outboundEventActor, e.tenant, e.eventId, { kind: "get" });
  if (held.ok) return;
  if (held.code !== "not_found") {
    throw new Error(`billing event ${e.eventId}: ${held.code}: ${held.message}`);
  }
  const createdAt = runtime.clock.now();
  const first = await attemptFirst(e.tenant, event, target);
  // Not attempted (the tenant's first attempts are at their cap): the engine attempts it.
  if (first === null) return await make(o, e.tenant, event, { endpoint_missing: false });
  if (first.outcome.result === "delivered") {
    const attempt = { ...first, at: runtime.clock.now() };
    const logged = await writeDeliveredLog(db, e.tenant, { event, created_at: createdAt, attempt })
      .then(() => true, () => false);
    if (logged) return;
    // The query side refused the row: the actor holds the delivery instead (never sent twice).
  }
  // spec: courier 3.1: retried after 1, 5, 30, 120 and 720 minutes, counted from this attempt.
  await make(o, e.tenant, event, { first_attempt: first });
}

const COURIER: Recipient = { kind: "courier" };

/**
 * An event made while the courier has no endpoint (courier 3.1): a delivery-log row, tried again
 * in an hour by the courier's `billing_wait` timer, armed with it (a pass, not a timer, per
 * event; waiting_rows.ts writes the rows of one commit's charges together). The query side
 * refusing the row, the event is made an actor waiting as before. A row or an actor already made
 * (a handling again) stands.
 */
async function wait(
  o: OutboxOptions,
  write: WaitingRows,
  tenant: string,
  event: NewOutboundEvent,
): Promise<void> {
  const now = o.runtime.clock.now();
  const log = { event, created_at: now, missing_at: now, retry_at: now + NO_ENDPOINT_RETRY_MS };
  if (!(await write({ tenant, log }))) await make(o, tenant, event, { endpoint_missing: true });
}

function newEventOf(e: BillingEventMade): NewOutboundEvent {
  return {
    event_id: e.eventId,
    stream: "billing",
    event_type: e.eventType,
    raw_body: e.rawBody,
    recipient: COURIER,
    entry: e.entry === null ? null : { client_id: e.clientId, ...e.entry },
    // spec: courier 4.3: a completion is its shipment's client's too, for the outbox by client.
    client_id: e.clientId,
    ...(e.requestId === undefined ? {} : { request_id: e.requestId }),
  };
}

/** Makes the event's actor, or finds it made; a failure to make it is thrown. */
async function make(
  o: OutboxOptions,
  tenant: string,
  event: NewOutboundEvent,
  first: { endpoint_missing: boolean } | { first_attempt: FirstAttempt },
): Promise<void> {
  // Derived from a change heard now: new unless the change is heard again, when the commit's
  // check finds the stored event (AskOptions.fresh).
  const created = await o.runtime.ask(outboundEventActor, tenant, event.event_id, {
    kind: "create",
    event,
    ...first,
  }, { fresh: true });
  // The same event made twice with other bytes (a client renamed between two emissions) is
  // the event already made: it stands.
  if (!created.ok && created.code !== "exists_with_different_body") {
    throw new Error(`billing event ${event.event_id}: ${created.code}: ${created.message}`);
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

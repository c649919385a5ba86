/**
 * The delivery log of outbound events no actor holds (issue 36 item 2, migration 0020): an event
 * delivered at its first attempt, or a charge's event made while there is no endpoint (it waits,
 * retried hourly by billing_wait.ts), is one row of `outbound_events`, written by its outbox's
 * handler with the body, status, attempt count and next attempt, instead of an actor. Read back
 * as the state the actor would hold (stateOfLog, stateOfWaiting), so a read answers as before,
 * and the runtime makes the actor from it when a requeue, an acknowledgement or an endpoint set
 * changes it (its cold source).
 */
import type { Kysely, Selectable } from "kysely";
import {
  type AttemptRecord,
  type DeliveredAtFirst,
  type EntryLink,
  type NewOutboundEvent,
  type OutboundEvent,
  type OutboundStream,
  stateOfLog,
  stateOfWaiting,
  type WaitingForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import { insertRows } from "../../db/json.ts";
import type { Database } from "../../db/schema.ts";

/**
 * Below every version a projected actor writes (its first commit is 1), so the actor made from
 * the row later replaces its columns.
 */
const LOG_VERSION = 0;

/** Writes the row of an event delivered at its first attempt; a row already there stands. */
export async function writeDeliveredLog(
  db: Kysely<Database>,
  tenant: string,
  log: DeliveredAtFirst,
): Promise<void> {
  await insertRows(db, "outbound_events", [logRow(tenant, log.event, {
    status: "delivered",
    created_at: log.created_at,
    attempts: [log.attempt],
    endpoint_missing_at: null,
    next_attempt_at: null,
  })]).onConflict((c) => c.column("id").doNothing()).execute();
}

/**
 * Writes the rows of events waiting for an endpoint, in one statement (the charges of one group
 * commit are handled together); a row already there stands.
 */
export async function writeWaitingLogs(
  db: Kysely<Database>,
  logs: readonly { readonly tenant: string; readonly log: WaitingForEndpoint }[],
): Promise<void> {
  if (logs.length === 0) return;
  const rows = logs.map(({ tenant, log }) =>
    logRow(tenant, log.event, {
      status: "pending",
      created_at: log.created_at,
      attempts: [],
      endpoint_missing_at: log.missing_at,
      next_attempt_at: log.retry_at,
    })
  );
  await insertRows(db, "outbound_events", rows)
    .onConflict((c) => c.column("id").doNothing()).execute();
}

/** A delivery-log row (insertRows' JSON): the event as made, with what its course so far left. */
function logRow(
  tenant: string,
  event: NewOutboundEvent,
  course: {
    readonly status: "delivered" | "pending";
    readonly created_at: number;
    readonly attempts: readonly AttemptRecord[];
    readonly endpoint_missing_at: number | null;
    readonly next_attempt_at: number | null;
  },
) {
  const recipient = event.recipient ?? null;
  return {
    id: event.event_id,
    tenant,
    version: LOG_VERSION,
    stream: event.stream,
    event_type: event.event_type,
    status: course.status,
    client_id: event.client_id ?? event.entry?.client_id ?? null,
    recipient_kind: recipient?.kind ?? null,
    recipient_client_id: recipient?.kind === "client" ? recipient.client_id : null,
    endpoint_missing_at: course.endpoint_missing_at,
    reported_state: null,
    external_references: null,
    created_at: course.created_at,
    raw_body: event.raw_body,
    attempts: course.attempts,
    attempts_total: course.attempts.length,
    next_attempt_at: course.next_attempt_at,
    entry: event.entry ?? null,
    request_id: event.request_id ?? null,
  };
}

/** The columns a logged event is read back from. */
export const LOG_COLUMNS = [
  "id",
  "stream",
  "event_type",
  "client_id",
  "recipient_kind",
  "recipient_client_id",
  "created_at",
  "raw_body",
  "attempts",
  "entry",
  "request_id",
  "endpoint_missing_at",
  "next_attempt_at",
] as const;

export type LogRow = Pick<Selectable<Database["outbound_events"]>, typeof LOG_COLUMNS[number]>;

/** The event a tenant's row logs, as its actor would hold it; null: no such row, or no log. */
export async function loggedEventOf(
  db: Kysely<Database>,
  tenant: string,
  id: string,
): Promise<OutboundEvent | null> {
  const row = await db.selectFrom("outbound_events").select(LOG_COLUMNS)
    .where("id", "=", id)
    .where("tenant", "=", tenant)
    .where("raw_body", "is not", null)
    .executeTakeFirst();
  return row ? loggedEventOfRow(row) : null;
}

/** A row's logged event (null when the row is an actor's projection, with no log). */
export function loggedEventOfRow(row: LogRow): OutboundEvent | null {
  if (row.raw_body === null) return null;
  const attempts = parsed(row.attempts) as AttemptRecord[];
  const entry = (parsed(row.entry) ?? null) as EntryLink | null;
  const recipient = row.recipient_kind === "client"
    ? { kind: "client" as const, client_id: row.recipient_client_id! }
    : { kind: "courier" as const };
  const event = {
    event_id: row.id,
    stream: row.stream as OutboundStream,
    event_type: row.event_type,
    raw_body: row.raw_body,
    recipient,
    entry,
    ...(row.client_id === null ? {} : { client_id: row.client_id }),
    ...(row.request_id === null ? {} : { request_id: row.request_id }),
  };
  // Nothing attempted: an event waiting for an endpoint (writeWaitingLogs).
  if (attempts.length === 0) {
    return stateOfWaiting({
      event,
      created_at: row.created_at,
      missing_at: Number(row.endpoint_missing_at ?? row.created_at),
      retry_at: Number(row.next_attempt_at ?? row.created_at),
    });
  }
  return stateOfLog({ event, created_at: row.created_at, attempt: attempts[0]! });
}

/** jsonb as a driver answers it: parsed already (postgres.js, PGlite) or as text. */
function parsed(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

/** A courier's waiting rows, as the hourly retry reads them: nothing attempted, not an actor's. */
function waitingOf(db: Kysely<Database>, tenant: string) {
  return db.selectFrom("outbound_events")
    .where("tenant", "=", tenant)
    .where("version", "=", LOG_VERSION)
    .where("status", "=", "pending")
    .where("endpoint_missing_at", "is not", null);
}

/**
 * Up to `limit` of a courier's waiting rows due by `now`, the earliest due first; after the row
 * due at `after.at` with id `after.id` (a page read before, whose rows may not have moved yet).
 */
export async function waitingDue(
  db: Kysely<Database>,
  tenant: string,
  now: number,
  limit: number,
  after: { readonly at: number; readonly id: string } | null = null,
): Promise<LogRow[]> {
  let q = waitingOf(db, tenant).select(LOG_COLUMNS).where("next_attempt_at", "<=", now);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb("next_attempt_at", ">", after.at),
        eb.and([eb("next_attempt_at", "=", after.at), eb("id", ">", after.id)]),
      ])
    );
  }
  return await q.orderBy("next_attempt_at").orderBy("id").limit(limit).execute();
}

/**
 * Notes the retry of these waiting rows at `now` that found no endpoint again: tried again at
 * `retryAt`. A row an actor holds since (made from it meanwhile) is the actor's, left as it is.
 */
export async function noteWaitingRetry(
  db: Kysely<Database>,
  tenant: string,
  ids: readonly string[],
  at: { readonly now: number; readonly retryAt: number },
): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable("outbound_events")
    .set({ endpoint_missing_at: at.now, next_attempt_at: at.retryAt })
    .where("tenant", "=", tenant)
    .where("id", "in", ids)
    .where("version", "=", LOG_VERSION)
    .where("status", "=", "pending")
    .execute();
}

/** When a courier's next waiting row is due; null when none waits. */
export async function nextWaitingAt(db: Kysely<Database>, tenant: string): Promise<number | null> {
  const row = await waitingOf(db, tenant)
    .select((eb) => eb.fn.min("next_attempt_at").as("at"))
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}

/**
 * The delivery log of outbound events no actor holds (issue 36 item 2, migration 0020): an event
 * delivered at its first attempt is one row of `outbound_events`, written by its outbox's handler
 * with the body, status, attempt count and next attempt, instead of an actor. Read back as the
 * state the actor would hold (stateOfLog), so a read answers as before, and the runtime makes the
 * actor from it when a requeue or an acknowledgement changes it (its cold source).
 */
import { type Kysely, type Selectable, sql } from "kysely";
import {
  type AttemptRecord,
  type DeliveredAtFirst,
  type EntryLink,
  type OutboundEvent,
  type OutboundStream,
  stateOfLog,
} from "../../../actors/platform/outbound_event/mod.ts";
import { jsonb } from "../../db/json.ts";
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
  const { event } = log;
  const recipient = event.recipient ?? null;
  await db.insertInto("outbound_events").values({
    id: event.event_id,
    tenant,
    version: LOG_VERSION,
    stream: event.stream,
    event_type: event.event_type,
    status: "delivered",
    client_id: event.client_id ?? event.entry?.client_id ?? null,
    recipient_kind: recipient?.kind ?? null,
    recipient_client_id: recipient?.kind === "client" ? recipient.client_id : null,
    endpoint_missing_at: null,
    reported_state: null,
    external_references: sql`null`,
    created_at: log.created_at,
    raw_body: event.raw_body,
    attempts: jsonb([log.attempt]),
    attempts_total: 1,
    next_attempt_at: null,
    entry: event.entry ? jsonb(event.entry) : sql`null`,
    request_id: event.request_id ?? null,
  }).onConflict((c) => c.column("id").doNothing()).execute();
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
  return stateOfLog({
    event: {
      event_id: row.id,
      stream: row.stream as OutboundStream,
      event_type: row.event_type,
      raw_body: row.raw_body,
      recipient,
      entry,
      ...(row.client_id === null ? {} : { client_id: row.client_id }),
      ...(row.request_id === null ? {} : { request_id: row.request_id }),
    },
    created_at: row.created_at,
    attempt: attempts[0]!,
  });
}

/** jsonb as a driver answers it: parsed already (postgres.js, PGlite) or as text. */
function parsed(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

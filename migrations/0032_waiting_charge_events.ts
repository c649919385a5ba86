/**
 * Charge events waiting for an endpoint are delivery-log rows (issue 36 item 2, courier 3.1),
 * retried hourly per courier: the retry finds a courier's rows due by the time they are due.
 * Frozen in time: never import app code here.
 */
import type { Kysely } from "kysely";
import { sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index outbound_events_log_waiting_idx
    on outbound_events (tenant, next_attempt_at, id)
    where version = 0 and status = 'pending' and endpoint_missing_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists outbound_events_log_waiting_idx`.execute(db);
}

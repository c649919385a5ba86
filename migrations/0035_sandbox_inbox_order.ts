/**
 * The sandbox inbox lists what it received newest first (Business API 4.4): deliveries kept in
 * one millisecond (a step's several webhooks) were told apart by their random ids, in no order;
 * `seq` numbers each row as it is written, and the list and its trim order by it after the time.
 * Rows written before are numbered in no particular order among themselves.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sandbox_inbox add column seq bigint generated always as identity`
    .execute(db);
  await sql`drop index sandbox_inbox_newest_idx`.execute(db);
  await sql`create index sandbox_inbox_newest_idx
    on sandbox_inbox (tenant, received_at desc, seq desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index sandbox_inbox_newest_idx`.execute(db);
  await sql`alter table sandbox_inbox drop column seq`.execute(db);
  await sql`create index sandbox_inbox_newest_idx
    on sandbox_inbox (tenant, received_at desc, id desc)`.execute(db);
}

/**
 * How far the ledger projection has got with each client account (courier 2.6): the highest
 * entry seq of the account whose change it has handled. The account hands out its entries' seqs
 * in order and the projection writes one account's changes in that order, so every entry up to
 * it is in `ledger_entries`, or was kept out and reported (a reference another fact holds). A
 * completion billing event (courier 2.7, 6.1) lists the shipment's adjustments only once the
 * query side has got as far as the account had when the completion was made. An entry kept out
 * still moves it on: unlike the highest seq in `ledger_entries`, it never holds a completion
 * back for good. Backfilled from the entries already there.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("ledger_watermarks")
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("ledger_watermarks_pkey", ["tenant", "client_id"])
    .execute();
  await sql`insert into ledger_watermarks (tenant, client_id, seq)
    select tenant, client_id, max(seq) from ledger_entries group by tenant, client_id`
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("ledger_watermarks").execute();
}

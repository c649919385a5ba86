/**
 * A ledger entry is one fact of one kind (courier 2.6): its reference is unique within its kind
 * only, since a client's own references (a payment quoting a waybill, a note numbered like a
 * charge) may repeat another entry's. The key takes the kind, so no accepted entry is kept out of
 * Postgres; a note names the kind of the entry it corrects beside its reference, and is judged
 * against the account's highest entry seq Postgres holds. Frozen in time: never import app code
 * here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ledger_entries").addColumn("corrects_kind", "text").execute();
  // Until now a reference named one entry of its client: the note's original is that entry.
  await sql`update ${sql.table("ledger_entries")} as n set corrects_kind = o.kind
    from ${sql.table("ledger_entries")} as o
    where n.corrects is not null and o.tenant = n.tenant and o.client_id = n.client_id
      and o.reference = n.corrects`.execute(db);
  await db.schema.alterTable("ledger_entries").dropConstraint("ledger_entries_pkey").execute();
  // Reference before kind: a look-up by reference alone still uses the key's index.
  await db.schema.alterTable("ledger_entries")
    .addPrimaryKeyConstraint("ledger_entries_pkey", ["tenant", "client_id", "reference", "kind"])
    .execute();
  // A note is judged against the highest entry seq of its account that Postgres holds.
  await db.schema
    .createIndex("ledger_entries_client_seq_idx")
    .on("ledger_entries")
    .columns(["tenant", "client_id", "seq"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("ledger_entries_client_seq_idx").execute();
  // Entries that share a reference cannot go back under the old key: down refuses then.
  await db.schema.alterTable("ledger_entries").dropConstraint("ledger_entries_pkey").execute();
  await db.schema.alterTable("ledger_entries")
    .addPrimaryKeyConstraint("ledger_entries_pkey", ["tenant", "client_id", "reference"])
    .execute();
  await db.schema.alterTable("ledger_entries").dropColumn("corrects_kind").execute();
}

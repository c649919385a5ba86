/**
 * A parked ledger change (0014) holds back what readers take as written of its client account
 * (courier 2.6 rule 5, 2.7). The account's later changes still move `ledger_watermarks` on, so
 * without this a reader counted the parked entry as in `ledger_entries`: a second credit note
 * was judged without a parked first one, and a completion listed its adjustments without one.
 * Each parked ledger change now names its account and the first entry seq it hands out; a
 * reader's watermark stops just before it until the change goes in and its row is let go.
 * Backfilled from the changes already parked.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("parked_changes")
    .addColumn("tenant", "text")
    .addColumn("actor_id", "text")
    .addColumn("holds_seq", "integer")
    .execute();
  await db.schema.createIndex("parked_changes_holds")
    .on("parked_changes")
    .columns(["tenant", "actor_id", "holds_seq"])
    .where(sql.ref("holds_seq"), "is not", null)
    .execute();
  // The builder, not raw SQL, so the tables are those of the schema being migrated.
  const parked = db as unknown as Kysely<{ parked_changes: ParkedRow }>;
  const rows = await parked.selectFrom("parked_changes").select(["digest", "payload"])
    .where("projection", "=", "ledger").execute();
  for (const row of rows) {
    const hold = holdOf(row.payload);
    if (hold === null) continue;
    await parked.updateTable("parked_changes")
      .set({ tenant: hold.tenant, actor_id: hold.actor_id, holds_seq: hold.seq })
      .where("projection", "=", "ledger").where("digest", "=", row.digest)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("parked_changes_holds").execute();
  await db.schema.alterTable("parked_changes")
    .dropColumn("tenant")
    .dropColumn("actor_id")
    .dropColumn("holds_seq")
    .execute();
}

interface ParkedRow {
  projection: string;
  digest: string;
  payload: string;
  tenant: string | null;
  actor_id: string | null;
  holds_seq: number | null;
}

interface ParkedLedgerChange {
  owner?: { tenant?: unknown; client_id?: unknown };
  events?: { entry?: { seq?: unknown } | null; resolution?: { seq?: unknown } }[];
}

/** The account and lowest entry seq of a ledger change as 0014 kept it; null without one. */
function holdOf(payload: string): { tenant: string; actor_id: string; seq: number } | null {
  let change: ParkedLedgerChange;
  try {
    change = JSON.parse(payload);
  } catch {
    return null;
  }
  const tenant = change.owner?.tenant;
  const actorId = change.owner?.client_id;
  if (typeof tenant !== "string" || typeof actorId !== "string") return null;
  const seqs = (change.events ?? [])
    .map((e) => e?.entry?.seq ?? e?.resolution?.seq)
    .filter((s): s is number => Number.isSafeInteger(s));
  return seqs.length === 0 ? null : { tenant, actor_id: actorId, seq: Math.min(...seqs) };
}

/**
 * The client ledger (courier 2.6, 4.2, 4.3): one row per ledger entry of a client account, and
 * the invoices issued from them. Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("ledger_entries")
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("reference", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("period", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("amount_minor", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("payer", "text", (c) => c.notNull())
    .addColumn("recoverable", "boolean", (c) => c.notNull())
    .addColumn("invoiceable", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("reason", "text")
    .addColumn("evidence_path", "text")
    .addColumn("source_event", "text")
    .addColumn("original_amount_minor", "bigint")
    .addColumn("original_currency", "text")
    .addColumn("fx_rate", "text")
    .addColumn("fx_source", "text")
    .addColumn("corrects", "text")
    .addColumn("shipment", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("invoice_id", "text")
    .addColumn("export_state", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("event_state", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("external_reference", "text")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("ledger_entries_pkey", ["tenant", "client_id", "reference"])
    .execute();
  await db.schema
    .createIndex("ledger_entries_client_period_idx")
    .on("ledger_entries")
    .columns(["tenant", "client_id", "period", "seq"])
    .execute();
  await db.schema
    .createIndex("ledger_entries_tenant_created_idx")
    .on("ledger_entries")
    .columns(["tenant", "created_at"])
    .execute();
  await db.schema
    .createIndex("ledger_entries_corrects_idx")
    .on("ledger_entries")
    .columns(["tenant", "client_id", "corrects"])
    .execute();

  await db.schema
    .createTable("invoices")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("period", "text", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("amount_minor", "bigint", (c) => c.notNull())
    .addColumn("paid_minor", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("supplementary", "boolean", (c) => c.notNull())
    .addColumn("issued_at", "timestamptz", (c) => c.notNull())
    .addColumn("due_on", "date", (c) => c.notNull())
    .addColumn("watermark", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("invoices_client_idx")
    .on("invoices")
    .columns(["tenant", "client_id", "issued_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("invoices").execute();
  await db.schema.dropTable("ledger_entries").execute();
}

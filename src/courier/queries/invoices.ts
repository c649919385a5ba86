/** Invoices on the query side (courier 4.2): every invoice ever issued, beyond what the account keeps. */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

/** The currencies in which the client has an invoice of `period`. */
export async function invoicedCurrencies(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  period: string,
): Promise<string[]> {
  const rows = await db.selectFrom("invoices")
    .select("currency").distinct()
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("period", "=", period)
    .execute();
  return rows.map((r) => r.currency);
}

/** Whether the client holds the invoice `id` (issued to it by courier `tenant`). */
export async function isInvoiceOf(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  id: string,
): Promise<boolean> {
  const row = await db.selectFrom("invoices").select("id")
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The ledger projection's invoices (ledger_writer.ts): an invoice written with the entries it
 * marks, the invoice covering an entry written after it, what payments paid, and the check that a
 * row a change updates is written already (else the change parks behind the earlier one).
 */
import { type Expression, expressionBuilder, sql, type Transaction } from "kysely";
import type { Allocation, Invoice } from "../rules/ledger.ts";
import type { Database } from "../../db/schema.ts";

/** The client account a ledger change belongs to. */
export interface Owner {
  readonly tenant: string;
  readonly client_id: string;
}

/**
 * The invoice that covers a posted, invoiceable entry: the first of its period and currency whose
 * watermark reaches the entry's seq (spec: courier 2.6 rule 5: a later entry waits for a
 * supplementary invoice), if it is written yet. An entry is normally written before the invoice
 * that marks it (`insertInvoice`); one parked meanwhile (parked_changes.ts), or a resolution
 * parked behind its placeholder, goes in after that invoice, and takes its id here: otherwise the
 * invoice's entries in Postgres would never add up to its amount (courier 2.6, 4.2). Null when
 * no written invoice covers it: an invoice written later marks it.
 */
export function coveringInvoice(
  owner: Owner,
  period: string,
  currency: string,
  seq: number,
) {
  // A subquery of the statement that writes the entry, not a statement of its own.
  return coveringInvoiceOf({ ...owner, period, currency, seq });
}

/** A value, or an expression of the statement (a column of the row it writes). */
type Operand<T> = T | Expression<T>;

/**
 * coveringInvoice of the entry row `r` an insert reads (insertRows), when it is posted and
 * invoiceable; null for every other entry.
 */
export const COVERING_INVOICE_OF_ROW = sql<string | null>`case
  when r.invoiceable and r.status = 'posted' then (${
  coveringInvoiceOf({
    tenant: sql.ref("r.tenant"),
    client_id: sql.ref("r.client_id"),
    period: sql.ref("r.period"),
    currency: sql.ref("r.currency"),
    seq: sql.ref("r.seq"),
  })
}) end`;

function coveringInvoiceOf(e: {
  readonly tenant: Operand<string>;
  readonly client_id: Operand<string>;
  readonly period: Operand<string>;
  readonly currency: Operand<string>;
  readonly seq: Operand<number>;
}) {
  return periodInvoices(e, e.period, e.currency)
    .where("watermark", ">=", e.seq)
    .orderBy("watermark")
    .limit(1);
}

/** The ids of a client's invoices of one period and currency, as a subquery. */
function periodInvoices(
  owner: { readonly tenant: Operand<string>; readonly client_id: Operand<string> },
  period: Operand<string>,
  currency: Operand<string>,
) {
  return expressionBuilder<Database, never>().selectFrom("invoices").select("id")
    .where("tenant", "=", owner.tenant)
    .where("client_id", "=", owner.client_id)
    .where("period", "=", period)
    .where("currency", "=", currency);
}

export async function recordPaid(
  trx: Transaction<Database>,
  owner: Owner,
  allocations: readonly Allocation[],
): Promise<void> {
  for (const a of allocations) {
    const paid = await trx.updateTable("invoices")
      .set({ paid_minor: sql<number>`greatest(paid_minor, ${a.paid_minor})` })
      .where("id", "=", a.invoice_id)
      .where("tenant", "=", owner.tenant)
      .where("client_id", "=", owner.client_id)
      .executeTakeFirst();
    if (Number(paid.numUpdatedRows) === 0) {
      await assertWritten(trx, owner, "invoices", null, a.invoice_id);
    }
  }
}

/** The row a later change updates is not written yet: an earlier change of it was parked. */
class EarlierChangeParked extends Error {
  override readonly name = "EarlierChangeParked";
}

/**
 * Throws EarlierChangeParked when the row a change updates (an entry by kind and reference, an
 * invoice by id) is not in Postgres: the change that writes it could not be written and waits
 * in parked_changes. Thrown, this change is parked behind it and written again after it, instead
 * of updating nothing and being let go: a resolved conversion would stay `unresolved_fx`, a
 * payment's allocation would never reach its invoice (product rule: nothing is lost; parked
 * changes are written again oldest first, each round until they all go in).
 */
export async function assertWritten(
  trx: Transaction<Database>,
  owner: Owner,
  table: "ledger_entries" | "invoices",
  kind: string | null,
  key: string,
): Promise<void> {
  const found = table === "invoices"
    ? await trx.selectFrom("invoices").select("id")
      .where("tenant", "=", owner.tenant).where("client_id", "=", owner.client_id)
      .where("id", "=", key).executeTakeFirst()
    : await trx.selectFrom("ledger_entries").select("reference")
      .where("tenant", "=", owner.tenant).where("client_id", "=", owner.client_id)
      .where("reference", "=", key).where("kind", "=", kind!).executeTakeFirst();
  if (found !== undefined) return; // written before: this change is a replay
  const what = table === "invoices" ? `invoice ${key}` : `${kind} entry ${key}`;
  throw new EarlierChangeParked(
    `${what} of client ${owner.client_id} is not written yet; this change waits behind it`,
  );
}

export async function insertInvoice(
  trx: Transaction<Database>,
  owner: Owner,
  invoice: Invoice,
): Promise<void> {
  await trx.insertInto("invoices")
    .values({
      id: invoice.id,
      tenant: owner.tenant,
      client_id: owner.client_id,
      period: invoice.period,
      currency: invoice.currency,
      amount_minor: invoice.amount_minor,
      paid_minor: invoice.paid_minor,
      supplementary: invoice.supplementary,
      issued_at: new Date(invoice.issued_at),
      due_on: invoice.due_on,
      watermark: invoice.watermark,
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  // spec: courier 2.6 rule 5: the entries it covers; later ones wait for a supplementary invoice.
  await trx.updateTable("ledger_entries")
    .set({ invoice_id: invoice.id, updated_at: sql<Date>`now()` })
    .where("tenant", "=", owner.tenant)
    .where("client_id", "=", owner.client_id)
    .where("period", "=", invoice.period)
    .where("currency", "=", invoice.currency)
    .where("invoiceable", "=", true)
    .where("status", "=", "posted")
    .where((eb) =>
      eb.or([
        eb("invoice_id", "is", null),
        // Taken by a later (supplementary) invoice of its period written first, while this one
        // was parked (parked_changes.ts): an entry is on the first invoice whose watermark
        // reaches it, as `coveringInvoice` finds it.
        eb(
          "invoice_id",
          "in",
          periodInvoices(owner, invoice.period, invoice.currency)
            .where("watermark", ">", invoice.watermark),
        ),
      ])
    )
    .where("seq", "<=", invoice.watermark)
    .execute();
}

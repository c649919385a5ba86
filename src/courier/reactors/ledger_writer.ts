/**
 * The ledger projection's writes of one transaction (ledger_projection.ts): entries gathered into
 * multi-row inserts, resolutions, invoices and what they paid, and the accounts' watermarks; each
 * write idempotent, so a replayed change changes nothing.
 */
import { sql, type Transaction } from "kysely";
import type { CourierClientEvent } from "../../../actors/courier/courier_client.ts";
import type { Allocation, LedgerEntry } from "../rules/ledger.ts";
import { insertRows } from "../../db/json.ts";
import type { Database } from "../../db/schema.ts";
import { chargeEventIdOf, resolvedEventIdOf } from "./billing_events.ts";
import {
  assertWritten,
  COVERING_INVOICE_OF_ROW,
  coveringInvoice,
  insertInvoice,
  type Owner,
  recordPaid,
} from "./ledger_invoices.ts";

export type { Owner };

/** Rows per entry INSERT (one JSON parameter, insertRows): a bounded statement. */
const ENTRIES_PER_INSERT_MAX = 1_000;
/** Keys per conflict SELECT: 4 parameters each. */
const KEYS_PER_SELECT_MAX = 1_000;

/** An entry waiting for the next multi-row INSERT. */
interface PendingEntry {
  /** The change of the batch it came from, for the conflict report. */
  readonly item: number;
  readonly owner: Owner;
  readonly entry: LedgerEntry;
  readonly invoiceable: boolean;
  /** A payment's or remittance's allocations by invoice; null for other entries. */
  readonly allocations: readonly Allocation[] | null;
  /** An earlier pending entry has its key: left out of the INSERT, judged after it. */
  readonly repeat: boolean;
}

/**
 * Applies a batch's events in stream order within one transaction. Entry inserts are gathered
 * and written as multi-row statements; any other statement first flushes them, so it sees every
 * entry before it in the stream, as it did when each entry was inserted on its own.
 */
export class LedgerWriter {
  readonly #trx: Transaction<Database>;
  #pending: PendingEntry[] = [];
  readonly #pendingKeys = new Set<string>();
  /** By change of the batch: the references another entry already held, in stream order. */
  readonly conflicts: string[][];
  /** By account: the highest entry seq the batch's events hand out (see `writeWatermarks`). */
  readonly #seen = new Map<string, Owner & { seq: number }>();

  constructor(trx: Transaction<Database>, changes: number) {
    this.#trx = trx;
    this.conflicts = Array.from({ length: changes }, () => []);
  }

  async apply(item: number, owner: Owner, event: CourierClientEvent): Promise<void> {
    const trx = this.#trx;
    this.#saw(owner, seqOf(event));
    switch (event.kind) {
      case "booking_charged":
        if (event.entry) {
          this.#add(item, owner, event.entry, event.posted && event.settlement_mode === "credit");
        }
        return;
      case "topped_up":
        if (event.entry) this.#add(item, owner, event.entry, false);
        return;
      case "entry_posted":
        this.#add(item, owner, event.entry, event.invoiceable);
        return;
      case "fx_resolved": {
        await this.flush();
        const r = event.resolution;
        // spec: courier 2.6 rule 4, 3.1: the converted charge is booked at its resolution, in
        // that period and export range; the placeholder it replaces was left out of both.
        const resolved = await trx.updateTable("ledger_entries")
          .set({
            seq: r.seq,
            period: r.period,
            created_at: new Date(r.created_at),
            charged_at: r.charged_at === undefined ? null : new Date(r.charged_at),
            amount_minor: r.amount_minor,
            currency: r.currency,
            status: r.status,
            invoiceable: event.invoiceable,
            original_amount_minor: r.original_amount_minor,
            original_currency: r.original_currency,
            fx_rate: r.fx_rate,
            fx_source: r.fx_source,
            resolved_event_id: resolvedEventIdOf(owner.tenant, owner.client_id, r.reference),
            // spec: courier 2.6 rule 5, 4.2: on the invoice already written that covers it.
            invoice_id: event.invoiceable && r.status === "posted"
              ? coveringInvoice(owner, r.period, r.currency, r.seq)
              : null,
            updated_at: sql<Date>`now()`,
          })
          .where("tenant", "=", owner.tenant)
          .where("client_id", "=", owner.client_id)
          .where("reference", "=", r.reference)
          .where("kind", "=", r.kind)
          .where("status", "=", "unresolved_fx")
          .executeTakeFirst();
        if (Number(resolved.numUpdatedRows) === 0) {
          await assertWritten(trx, owner, "ledger_entries", r.kind, r.reference);
        }
        return;
      }
      case "payment_received":
      case "cod_remitted":
        this.#add(item, owner, event.entry, false, event.allocations);
        // With no allocation there is no statement to order after the entry.
        if (event.allocations.length > 0) {
          await this.flush();
          await recordPaid(trx, owner, event.allocations);
        }
        return;
      case "invoices_issued":
        if (event.invoices.length === 0) return;
        await this.flush();
        for (const invoice of event.invoices) await insertInvoice(trx, owner, invoice);
        // Credit on account that paid invoices issued before (courier 4.2).
        await recordPaid(trx, owner, event.allocations ?? []);
        return;
      default:
        return;
    }
  }

  #saw(owner: Owner, seq: number | null): void {
    if (seq === null) return;
    const key = `${owner.tenant}\u0000${owner.client_id}`;
    const seen = this.#seen.get(key);
    if (!seen || seen.seq < seq) this.#seen.set(key, { ...owner, seq });
  }

  /**
   * Moves each account's watermark (migration 0013) up to the highest entry seq of the batch, in
   * the batch's transaction, so never ahead of its entries; never back (a replay), and past an
   * entry a reference conflict kept out (reported), which would otherwise hold back for good
   * what waits for the query side to catch up (a completion billing event, courier 2.7).
   */
  async writeWatermarks(): Promise<void> {
    const rows = [...this.#seen.values()];
    if (rows.length === 0) return;
    await insertRows(this.#trx, "ledger_watermarks", rows)
      .onConflict((oc) =>
        oc.columns(["tenant", "client_id"])
          .doUpdateSet({ seq: (eb) => eb.ref("excluded.seq") })
          .whereRef("ledger_watermarks.seq", "<", "excluded.seq")
      )
      .execute();
  }

  #add(
    item: number,
    owner: Owner,
    entry: LedgerEntry,
    invoiceable: boolean,
    allocations: readonly Allocation[] | null = null,
  ): void {
    const key = keyOf(owner.tenant, owner.client_id, entry.kind, entry.reference);
    // One statement must not carry a key twice: which row won would not be known.
    const repeat = this.#pendingKeys.has(key);
    this.#pendingKeys.add(key);
    this.#pending.push({ item, owner, entry, invoiceable, allocations, repeat });
  }

  /** Inserts the pending entries, then judges those whose reference was already held. */
  async flush(): Promise<void> {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    this.#pendingKeys.clear();
    const fresh = pending.filter((p) => !p.repeat);
    const inserted = new Set<string>();
    for (let i = 0; i < fresh.length; i += ENTRIES_PER_INSERT_MAX) {
      const chunk = fresh.slice(i, i + ENTRIES_PER_INSERT_MAX);
      const entries = await Promise.all(chunk.map(entryRow));
      // spec: courier 2.6 rule 5, 4.2: a posted, invoiceable entry goes on the invoice already
      // written that covers it.
      const rows = await insertRows(this.#trx, "ledger_entries", entries, {
        invoice_id: COVERING_INVOICE_OF_ROW,
      })
        .onConflict((oc) => oc.columns(["tenant", "client_id", "reference", "kind"]).doNothing())
        .returning(["tenant", "client_id", "kind", "reference"])
        .execute();
      for (const r of rows) inserted.add(keyOf(r.tenant, r.client_id, r.kind, r.reference));
    }
    const held = pending.filter((p) => p.repeat || !inserted.has(pendingKey(p)));
    if (held.length > 0) await this.#judge(held);
  }

  /** Already there: the same entry replayed, or another fact of its kind reusing the reference. */
  async #judge(held: readonly PendingEntry[]): Promise<void> {
    const keys = new Map<string, Owner & { kind: string; reference: string }>();
    for (const p of held) {
      keys.set(pendingKey(p), { ...p.owner, kind: p.entry.kind, reference: p.entry.reference });
    }
    const stored = new Map<
      string,
      { kind: string; created_at: Date; charged_at: Date | null; source_event: string | null }
    >();
    const all = [...keys.values()];
    for (let i = 0; i < all.length; i += KEYS_PER_SELECT_MAX) {
      const chunk = all.slice(i, i + KEYS_PER_SELECT_MAX);
      const rows = await this.#trx.selectFrom("ledger_entries")
        .select([
          "tenant",
          "client_id",
          "reference",
          "kind",
          "created_at",
          "charged_at",
          "source_event",
        ])
        .where((eb) =>
          eb(
            eb.refTuple("tenant", "client_id", "reference", "kind"),
            "in",
            chunk.map((k) => eb.tuple(k.tenant, k.client_id, k.reference, k.kind)),
          )
        )
        .execute();
      for (const r of rows) stored.set(keyOf(r.tenant, r.client_id, r.kind, r.reference), r);
    }
    for (const p of held) {
      const e = p.entry;
      const h = stored.get(pendingKey(p));
      // A resolved conversion was booked later than its placeholder was made: the placeholder
      // replayed is the same fact if it arose when the row says the charge arose.
      const same = h !== undefined &&
        (h.charged_at ?? h.created_at).getTime() === (e.charged_at ?? e.created_at) &&
        h.source_event === e.source_event;
      if (!same) this.conflicts[p.item]!.push(e.reference);
    }
  }
}

/** The entry seq a ledger event hands out, or null: an invoice issue hands out none. */
export function seqOf(event: CourierClientEvent): number | null {
  switch (event.kind) {
    case "booking_charged":
    case "topped_up":
      return event.entry?.seq ?? null;
    case "entry_posted":
    case "payment_received":
    case "cod_remitted":
      return event.entry.seq;
    case "fx_resolved":
      return event.resolution.seq;
    default:
      return null;
  }
}

/** An entry's key in `ledger_entries`: its reference is unique within its kind (courier 2.6). */
function keyOf(tenant: string, clientId: string, kind: string, reference: string): string {
  return `${tenant}\u0000${clientId}\u0000${kind}\u0000${reference}`;
}

function pendingKey(p: PendingEntry): string {
  return keyOf(p.owner.tenant, p.owner.client_id, p.entry.kind, p.entry.reference);
}

async function entryRow(p: PendingEntry) {
  const { owner, entry: e } = p;
  return {
    tenant: owner.tenant,
    client_id: owner.client_id,
    reference: e.reference,
    seq: e.seq,
    period: e.period,
    kind: e.kind,
    amount_minor: e.amount_minor,
    currency: e.currency,
    status: e.status,
    payer: e.payer,
    recoverable: e.recoverable,
    invoiceable: p.invoiceable,
    reason: e.reason,
    evidence_path: e.evidence_path,
    source_event: e.source_event,
    original_amount_minor: e.original_amount_minor,
    original_currency: e.original_currency,
    fx_rate: e.fx_rate,
    fx_source: e.fx_source,
    corrects: e.corrects,
    corrects_kind: e.corrects_kind ?? null,
    allocations: p.allocations === null
      ? null
      : p.allocations.map((a) => ({ invoice_id: a.invoice_id, amount_minor: a.amount_minor })),
    shipment: e.shipment,
    created_at: new Date(e.created_at),
    charged_at: e.charged_at == null ? null : new Date(e.charged_at),
    external_reference: null,
    event_id: await chargeEventIdOf(owner.tenant, owner.client_id, e),
  };
}

/**
 * Projects the client accounts' ledger (courier 2.6, 4.2) into `ledger_entries` and `invoices`,
 * and how far it has got with each account into `ledger_watermarks`. Every write is idempotent:
 * an entry is inserted once by its kind and reference (a reference is unique within its kind
 * only: a payment may quote a waybill), a resolution only moves an unresolved row, an entry is
 * only ever marked with the first invoice of its period whose watermark reaches it, and paid
 * totals and account watermarks only grow; so a replayed or duplicated change changes nothing.
 */
import { BusProjection, type ProjectionOptions, type Reporter } from "../../db/bus_projection.ts";
import type { ParkedHold } from "../../db/parked_changes.ts";
import { expressionBuilder, type Kysely, sql, type Transaction } from "kysely";
import type { CourierClientEvent } from "../../../actors/courier/courier_client.ts";
import type { Allocation, Invoice, LedgerEntry } from "../rules/ledger.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { jsonb } from "../../db/json.ts";
import type { Database } from "../../db/schema.ts";
import { chargeEventIdOf, resolvedEventIdOf } from "./billing_events.ts";

/** The actor type whose changes carry the ledger. */
const CLIENT_ACTOR_TYPE = "courier_client";

export type LedgerProjectorOptions = ProjectionOptions;

interface Owner {
  readonly tenant: string;
  readonly client_id: string;
}

const LEDGER_KINDS: ReadonlySet<string> = new Set([
  "booking_charged",
  "topped_up",
  "entry_posted",
  "fx_resolved",
  "payment_received",
  "cod_remitted",
  "invoices_issued",
]);

/** Changes written together in one transaction when a backlog builds up. */
const LEDGER_BATCH_CHANGES_MAX = 500;
/** Ledger events per batch (always at least one change): a hot account's changes carry many. */
const LEDGER_BATCH_EVENTS_MAX = 2_000;
/**
 * Rows per entry INSERT: at most 31 parameters each (an invoiceable entry's covering invoice
 * takes 6) stays below Postgres' 65,535 per statement.
 */
const ENTRIES_PER_INSERT_MAX = 1_000;
/** Keys per conflict SELECT: 4 parameters each. */
const KEYS_PER_SELECT_MAX = 1_000;

/** A received change reduced to what the ledger writes. */
interface LedgerChange {
  readonly owner: Owner;
  readonly events: readonly CourierClientEvent[];
  readonly subject: string;
}

/**
 * Writes changes in the order the bus delivers them, many per transaction, like the snapshot
 * `Projector`: a pipelined subscription hands over the next change without waiting for this
 * one's write, so a hot account's back-to-back changes are written in one transaction with
 * multi-row entry inserts. The lifecycle (queue, park, retry, sync, stop) is bus_projection.ts'.
 */
export class LedgerProjector extends BusProjection<LedgerChange> {
  constructor(options: LedgerProjectorOptions) {
    const db = options.db;
    super(options, {
      name: "ledger",
      type: CLIENT_ACTOR_TYPE,
      limits: {
        itemsMax: LEDGER_BATCH_CHANGES_MAX,
        weightMax: LEDGER_BATCH_EVENTS_MAX,
        weightOf: (change) => change.events.length,
      },
      take: takeLedgerChange,
      // A transient failure is written again by the queue, so no entry is lost from statements
      // and exports (every write is idempotent, a replay changes nothing).
      write: async (changes, report) =>
        reportConflicts(changes, await writeBatch(db, changes), report),
      parked: (change) => change,
      unparked: asLedgerChange,
      // spec: courier 2.6 rule 5, 2.7: a parked entry is not counted as written by readers
      // (ledger_watermarks.ts) while the account's later changes move its watermark on.
      holdOf,
    });
  }
}

export function startLedgerProjector(options: LedgerProjectorOptions): LedgerProjector {
  return new LedgerProjector(options);
}

/** The ledger events of a client account's change; null when it has none. */
function takeLedgerChange(change: ActorChange, subject: string): LedgerChange | null {
  if (change.type !== CLIENT_ACTOR_TYPE) return null;
  const events = change.events.map((e) => e.event).filter(isLedgerEvent);
  if (events.length === 0) return null;
  return { owner: { tenant: change.tenant, client_id: change.id }, events, subject };
}

/** Writes the changes in one transaction; the references each one found held by another fact. */
function writeBatch(db: Kysely<Database>, batch: readonly LedgerChange[]): Promise<string[][]> {
  return db.transaction().execute(async (trx) => {
    const writer = new LedgerWriter(trx, batch.length);
    for (const [i, change] of batch.entries()) {
      for (const event of change.events) await writer.apply(i, change.owner, event);
    }
    await writer.flush();
    await writer.writeWatermarks();
    return writer.conflicts;
  });
}

/** Conflicts are reported only once their transaction committed. */
function reportConflicts(
  batch: readonly LedgerChange[],
  conflicts: readonly string[][],
  report: Reporter,
): void {
  for (const [i, change] of batch.entries()) {
    for (const reference of conflicts[i] ?? []) {
      report(
        new Error(`another entry of client ${change.owner.client_id} holds reference ${reference}`),
        change.subject,
      );
    }
  }
}

/** A parked change as it was kept (parked_changes.ts); throws a TypeError if it is not one. */
function asLedgerChange(value: unknown): LedgerChange {
  const v = value as Partial<LedgerChange> | null;
  if (
    typeof v?.subject !== "string" || typeof v.owner?.tenant !== "string" ||
    typeof v.owner.client_id !== "string" || !Array.isArray(v.events) ||
    !v.events.every(isLedgerEvent)
  ) throw new TypeError("a parked ledger change must have a subject, an owner and ledger events");
  return { subject: v.subject, owner: v.owner, events: v.events };
}

/** The account of a ledger change and the lowest entry seq it hands out; null without one. */
function holdOf(change: LedgerChange): ParkedHold | null {
  let seq: number | null = null;
  for (const event of change.events) {
    const s = seqOf(event);
    if (s !== null && (seq === null || s < seq)) seq = s;
  }
  return seq === null
    ? null
    : { tenant: change.owner.tenant, actor_id: change.owner.client_id, seq };
}

function isLedgerEvent(event: unknown): event is CourierClientEvent {
  if (typeof event !== "object" || event === null || !("kind" in event)) return false;
  return typeof event.kind === "string" && LEDGER_KINDS.has(event.kind);
}

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
class LedgerWriter {
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
    await this.#trx.insertInto("ledger_watermarks")
      .values(rows)
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
      const rows = await this.#trx.insertInto("ledger_entries")
        .values(await Promise.all(chunk.map(entryRow)))
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
function seqOf(event: CourierClientEvent): number | null {
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
    allocations: p.allocations === null ? null : jsonb(
      p.allocations.map((a) => ({ invoice_id: a.invoice_id, amount_minor: a.amount_minor })),
    ),
    shipment: e.shipment,
    created_at: new Date(e.created_at),
    charged_at: e.charged_at == null ? null : new Date(e.charged_at),
    // spec: courier 2.6 rule 5, 4.2: on the invoice already written that covers it.
    invoice_id: p.invoiceable && e.status === "posted"
      ? coveringInvoice(owner, e.period, e.currency, e.seq)
      : null,
    external_reference: null,
    event_id: await chargeEventIdOf(owner.tenant, owner.client_id, e),
  };
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
function coveringInvoice(
  owner: Owner,
  period: string,
  currency: string,
  seq: number,
) {
  // A subquery of the statement that writes the entry, not a statement of its own.
  return periodInvoices(owner, period, currency)
    .where("watermark", ">=", seq)
    .orderBy("watermark")
    .limit(1);
}

/** The ids of a client's invoices of one period and currency, as a subquery. */
function periodInvoices(owner: Owner, period: string, currency: string) {
  return expressionBuilder<Database, never>().selectFrom("invoices").select("id")
    .where("tenant", "=", owner.tenant)
    .where("client_id", "=", owner.client_id)
    .where("period", "=", period)
    .where("currency", "=", currency);
}

async function recordPaid(
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
async function assertWritten(
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

async function insertInvoice(
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

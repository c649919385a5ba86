/**
 * Projects the client accounts' ledger (courier 2.6, 4.2) into `ledger_entries` and `invoices`.
 * Every write is idempotent: an entry is inserted once by its reference, a resolution only moves
 * an unresolved row, an invoice marks only uninvoiced rows up to its watermark, and paid totals
 * only grow; so a replayed or duplicated change changes nothing.
 */
import { syncIdOf, SyncWaiters } from "./sync.ts";
import { type Kysely, sql, type Transaction } from "kysely";
import type { CourierClientEvent } from "../../actors/courier_client.ts";
import type { Allocation, Invoice, LedgerEntry } from "../domain/ledger.ts";
import { type Bus, type BusMessage, subjectPattern, type Subscription } from "../bus/bus.ts";
import { parseChange } from "./projection.ts";
import type { Database } from "./schema.ts";
import { chargeEventIdOf } from "../outbound/billing_events.ts";

/** The actor type whose changes carry the ledger. */
const CLIENT_ACTOR_TYPE = "courier_client";

export interface LedgerProjectorOptions {
  readonly bus: Bus;
  readonly db: Kysely<Database>;
  /** The environment whose changes it writes: it subscribes to `<env>.*.courier_client.*`. */
  readonly env: string;
  /** Where a failed write or a reference conflict is reported; never thrown into the bus. */
  readonly onError?: (error: unknown, subject: string) => void;
}

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

/** Sequential per subscription (the bus awaits each handler), like the snapshot `Projector`. */
export class LedgerProjector {
  readonly #db: Kysely<Database>;
  readonly #onError: (error: unknown, subject: string) => void;
  readonly #inflight = new Set<Promise<void>>();
  readonly #syncs = new SyncWaiters();
  #subscription: Subscription | null;

  constructor(options: LedgerProjectorOptions) {
    this.#db = options.db;
    this.#onError = options.onError ??
      ((error, subject) => console.error(`ledger projection of ${subject} failed:`, error));
    this.#subscription = options.bus.subscribe(
      subjectPattern(options.env, "*", CLIENT_ACTOR_TYPE),
      (message) => this.#receive(message),
    );
  }

  /** Resolves once no received change is still being written. */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  /** Stops receiving, then waits for the writes under way. Leaves the database open. */
  async stop(): Promise<void> {
    this.#subscription?.unsubscribe();
    this.#subscription = null;
    await this.idle();
  }

  /** Resolves once every change published before the sentinel `id` is written (see sync.ts). */
  synced(id: string): Promise<void> {
    return this.#syncs.wait(id);
  }

  #receive(message: BusMessage): Promise<void> {
    if (this.#subscription === null) return Promise.resolve();
    const sync = syncIdOf(message.payload);
    if (sync !== null) return this.idle().then(() => this.#syncs.reached(sync));
    const write: Promise<void> = this.#write(message)
      .catch((error) => this.#report(error, message.subject))
      .finally(() => this.#inflight.delete(write));
    this.#inflight.add(write);
    return write;
  }

  #report(error: unknown, subject: string): void {
    try {
      this.#onError(error, subject);
    } catch (failure) {
      console.error(`ledger projection of ${subject} failed, and so did onError:`, error, failure);
    }
  }

  async #write(message: BusMessage): Promise<void> {
    const change = parseChange(message.payload);
    if (change.type !== CLIENT_ACTOR_TYPE) return;
    const events = change.events.map((e) => e.event).filter(isLedgerEvent);
    if (events.length === 0) return;
    const owner = { tenant: change.tenant, client_id: change.id };
    const conflicts: string[] = [];
    await this.#db.transaction().execute(async (trx) => {
      for (const event of events) conflicts.push(...await applyEvent(trx, owner, event));
    });
    for (const reference of conflicts) {
      this.#report(
        new Error(`another entry of client ${owner.client_id} holds reference ${reference}`),
        message.subject,
      );
    }
  }
}

export function startLedgerProjector(options: LedgerProjectorOptions): LedgerProjector {
  return new LedgerProjector(options);
}

function isLedgerEvent(event: unknown): event is CourierClientEvent {
  if (typeof event !== "object" || event === null || !("kind" in event)) return false;
  return typeof event.kind === "string" && LEDGER_KINDS.has(event.kind);
}

/** Writes one event; returns the references another entry already held (conflicts). */
async function applyEvent(
  trx: Transaction<Database>,
  owner: Owner,
  event: CourierClientEvent,
): Promise<string[]> {
  switch (event.kind) {
    case "booking_charged":
      if (!event.entry) return [];
      return await insertEntry(
        trx,
        owner,
        event.entry,
        event.posted && event.settlement_mode === "credit",
      );
    case "topped_up":
      return event.entry ? await insertEntry(trx, owner, event.entry, false) : [];
    case "entry_posted":
      return await insertEntry(trx, owner, event.entry, event.invoiceable);
    case "fx_resolved": {
      const r = event.resolution;
      await trx.updateTable("ledger_entries")
        .set({
          seq: r.seq,
          amount_minor: r.amount_minor,
          currency: r.currency,
          status: r.status,
          invoiceable: event.invoiceable,
          original_amount_minor: r.original_amount_minor,
          original_currency: r.original_currency,
          fx_rate: r.fx_rate,
          fx_source: r.fx_source,
          updated_at: sql<Date>`now()`,
        })
        .where("tenant", "=", owner.tenant)
        .where("client_id", "=", owner.client_id)
        .where("reference", "=", r.reference)
        .where("status", "=", "unresolved_fx")
        .execute();
      return [];
    }
    case "payment_received":
    case "cod_remitted": {
      const conflicts = await insertEntry(trx, owner, event.entry, false);
      await recordPaid(trx, owner, event.allocations);
      return conflicts;
    }
    case "invoices_issued":
      for (const invoice of event.invoices) await insertInvoice(trx, owner, invoice);
      return [];
    default:
      return [];
  }
}

async function insertEntry(
  trx: Transaction<Database>,
  owner: Owner,
  e: LedgerEntry,
  invoiceable: boolean,
): Promise<string[]> {
  const result = await trx.insertInto("ledger_entries")
    .values({
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
      invoiceable,
      reason: e.reason,
      evidence_path: e.evidence_path,
      source_event: e.source_event,
      original_amount_minor: e.original_amount_minor,
      original_currency: e.original_currency,
      fx_rate: e.fx_rate,
      fx_source: e.fx_source,
      corrects: e.corrects,
      shipment: e.shipment,
      created_at: new Date(e.created_at),
      invoice_id: null,
      external_reference: null,
      event_id: await chargeEventIdOf(owner.tenant, owner.client_id, e),
    })
    .onConflict((oc) => oc.columns(["tenant", "client_id", "reference"]).doNothing())
    .executeTakeFirst();
  if ((result.numInsertedOrUpdatedRows ?? 0n) > 0n) return [];
  // Already there: the same entry replayed, or another fact reusing the reference.
  const held = await trx.selectFrom("ledger_entries")
    .select(["kind", "created_at", "source_event"])
    .where("tenant", "=", owner.tenant)
    .where("client_id", "=", owner.client_id)
    .where("reference", "=", e.reference)
    .executeTakeFirst();
  const same = held !== undefined && held.kind === e.kind &&
    held.created_at.getTime() === e.created_at && held.source_event === e.source_event;
  return same ? [] : [e.reference];
}

async function recordPaid(
  trx: Transaction<Database>,
  owner: Owner,
  allocations: readonly Allocation[],
): Promise<void> {
  for (const a of allocations) {
    await trx.updateTable("invoices")
      .set({ paid_minor: sql<number>`greatest(paid_minor, ${a.paid_minor})` })
      .where("id", "=", a.invoice_id)
      .where("tenant", "=", owner.tenant)
      .where("client_id", "=", owner.client_id)
      .execute();
  }
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
    .where("invoice_id", "is", null)
    .where("seq", "<=", invoice.watermark)
    .execute();
}

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
import { type Kysely } from "kysely";
import type { CourierClientEvent } from "../../../actors/courier/courier_client.ts";
import type { ActorChange } from "../../bus/bus.ts";
import type { Database } from "../../db/schema.ts";
import { LedgerWriter, type Owner, seqOf } from "./ledger_writer.ts";

/** The actor type whose changes carry the ledger. */
const CLIENT_ACTOR_TYPE = "courier_client";

export type LedgerProjectorOptions = ProjectionOptions;

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

/** What the ledger projection's tests share: entries, changes, a projector on a test database. */
import type { KyselyPlugin } from "kysely";
import type { ActorChange } from "../../../src/bus/bus.ts";
import { subjectOf } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { entryOf, type LedgerEntry } from "../../../src/courier/rules/ledger.ts";
import { LedgerProjector } from "../../../src/courier/reactors/ledger_projection.ts";
import { blockTable, openTestDatabase, type TestDatabase } from "../../db/helpers.ts";

export const TENANT = "ten";
export const JAN = Date.UTC(2026, 0, 10);

export function entry(
  reference: string,
  seq: number,
  fields: Partial<LedgerEntry> = {},
): LedgerEntry {
  return entryOf({
    reference,
    seq,
    kind: "shipment",
    amount_minor: 1_000 + seq,
    currency: "BWP",
    status: "posted",
    created_at: JAN + seq,
    source_event: `booked:${reference}`,
    ...fields,
  });
}

/** A credit booking's charge: posted and invoiceable. */
export function charged(e: LedgerEntry) {
  return {
    kind: "booking_charged",
    waybill: `WB-${e.reference}`,
    amount_minor: e.amount_minor,
    currency: e.currency,
    settlement_mode: "credit",
    posted: true,
    by: "test",
    entry: e,
  };
}

let version = 0;

export function change(client: string, events: readonly unknown[]): ActorChange {
  const first = version + 1;
  version += events.length;
  return {
    env: "live",
    tenant: TENANT,
    type: "courier_client",
    id: client,
    version,
    events: events.map((event, i) => ({ seq: first + i, at: JAN, event })),
  };
}

export function subjectOfChange(c: ActorChange): string {
  return subjectOf("live", c.tenant, c.type, c.id);
}

export function publish(bus: MemoryBus, c: ActorChange): Promise<void> {
  return bus.publish(subjectOfChange(c), c);
}

/** Counts the statements Kysely runs (BEGIN and COMMIT are not compiled queries). */
export function counting() {
  const counts: Record<string, number> = {};
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      counts[args.node.kind] = (counts[args.node.kind] ?? 0) + 1;
      return args.node;
    },
    transformResult(args) {
      return Promise.resolve(args.result);
    },
  };
  return {
    plugin,
    counts,
    reset: () => Object.keys(counts).forEach((k) => delete counts[k]),
  };
}

export interface Setup {
  readonly t: TestDatabase;
  readonly bus: MemoryBus;
  readonly projector: LedgerProjector;
  readonly errors: [string, string][];
  readonly counter: ReturnType<typeof counting>;
}

export async function withProjector(run: (s: Setup) => Promise<void>): Promise<void> {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: [string, string][] = [];
  const counter = counting();
  const projector = new LedgerProjector({
    bus,
    db: t.db.withPlugin(counter.plugin),
    env: "live",
    onError: (e, subject) => errors.push([e instanceof Error ? e.message : String(e), subject]),
    // asOneBatch lets its first change's write start alone: no pace merges it into the batch.
    paceMs: 0,
  });
  try {
    await run({ t, bus, projector, errors, counter });
  } finally {
    await projector.stop();
    await bus.drain();
  }
}

/**
 * Publishes `first` and lets its write start (and wait on the lock), then the rest, which queue
 * behind it and so are written together in one batch once the lock is released.
 */
export async function asOneBatch(s: Setup, first: ActorChange, rest: readonly ActorChange[]) {
  const block = await blockTable(s.t, "ledger_entries");
  try {
    await publish(s.bus, first);
    for (const c of rest) await publish(s.bus, c);
  } finally {
    await block.release();
  }
  await s.projector.idle();
}

export function rowsOf(t: TestDatabase, client: string) {
  return t.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", TENANT).where("client_id", "=", client).orderBy("seq").execute();
}

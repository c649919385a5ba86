/** What the parked-changes tests share: a projection of its own, a lasting failure, changes. */
import { sql } from "kysely";
import { type ActorChange, subjectOf } from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import type { LedgerProjector } from "../../src/courier/reactors/ledger_projection.ts";
import type { Projector } from "../../src/db/projection.ts";
import { openTestDatabase, type TestDatabase } from "./helpers.ts";

export const JAN = Date.UTC(2026, 0, 10);

export function parkedRows(t: TestDatabase) {
  return t.db.selectFrom("parked_changes")
    .select(["projection", "subject", "attempts", "error"])
    .orderBy("parked_at").orderBy("digest").execute();
}

export async function publish(bus: MemoryBus, c: ActorChange): Promise<void> {
  await bus.publish(subjectOf(c.env, c.tenant, c.type, c.id), c);
  await bus.flush();
}

/** A lasting cause of failure the test can take away: a check the table's rows must pass. */
export function refuse(t: TestDatabase, table: "snapshots" | "ledger_entries", condition: string) {
  return {
    add: () =>
      sql`alter table ${sql.table(table)} add constraint poison check (${sql.raw(condition)})`
        .execute(t.db),
    drop: () => sql`alter table ${sql.table(table)} drop constraint poison`.execute(t.db),
  };
}

export type Projection = Projector | LedgerProjector;

/** A projection of its own database and bus; `errors` holds the subjects it reported. */
export async function withProjection<P extends Projection>(
  make: (options: ConstructorParameters<typeof Projector>[0]) => P,
  run: (t: TestDatabase, bus: MemoryBus, projection: P, errors: string[]) => Promise<void>,
): Promise<void> {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: string[] = [];
  const projection = make({
    bus,
    db: t.db,
    env: "live",
    onError: (_e, subject) => errors.push(subject),
  });
  try {
    await run(t, bus, projection, errors);
  } finally {
    await projection.stop();
    await bus.drain();
  }
}

/** One client account's changes in order, each carrying one event (version = seq). */
export function accountChanges(): (event: unknown) => ActorChange {
  let version = 0;
  return (event) => ({
    env: "live",
    tenant: "ten",
    type: "courier_client",
    id: "c1",
    version: ++version,
    events: [{ seq: version, at: JAN, event }],
  });
}

/** An account's balances with nothing in them. */
export const NO_BALANCES = { prepaid_minor: 0, receivable_minor: 0, recoverable_minor: 0 };

export function order(id: string, version: number, snapshot: unknown): ActorChange {
  return {
    env: "live",
    tenant: "ten",
    type: "order",
    id,
    version,
    events: [{ seq: version, at: JAN, event: { kind: `step_${version}` } }],
    snapshot,
  };
}

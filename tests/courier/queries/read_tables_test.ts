import assert from "node:assert/strict";
import fc from "fast-check";
import { sql } from "kysely";
import { type ActorChange, subjectOf } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { startReadTables } from "../../../src/courier/queries/read_tables.ts";
import type { ShipmentSnapshot } from "../../../src/courier/queries/operations_row.ts";
import { openTestDatabase, type TestDatabase } from "../../db/helpers.ts";
import { DAY, shipment } from "./read_tables_fixtures.ts";

function shipmentChange(id: string, version: number, data: ShipmentSnapshot): ActorChange {
  return { env: "live", tenant: "ten", type: "shipment", id, version, events: [], snapshot: data };
}

async function publish(bus: MemoryBus, ...changes: ActorChange[]): Promise<void> {
  for (const c of changes) await bus.publish(subjectOf(c.env, c.tenant, c.type, c.id), c);
  await bus.flush();
}

async function statusOf(t: TestDatabase, id: string) {
  return await t.db.selectFrom("shipments").select(["version", "status", "first_due_at"])
    .where("id", "=", id).executeTakeFirst();
}

Deno.test("read tables: a replayed or reordered older change never overwrites a newer row", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: unknown[] = [];
  const projection = startReadTables({
    bus,
    db: t.db,
    env: "live",
    onError: (e) => errors.push(e),
  });
  const make = fc.sample(shipment, { numRuns: 1, seed: 7 })[0]!;
  const at = (version: number, status: string) =>
    shipmentChange("WB1", version, { ...make("WB1"), status, first_due_at: version } as never);
  try {
    await publish(bus, at(2, "in_transit"));
    assert.deepEqual(await statusOf(t, "WB1"), {
      version: 2,
      status: "in_transit",
      first_due_at: 2,
    });
    // After a restart the runtime republishes what its recovery markers hold: older versions.
    await publish(bus, at(1, "booked"), at(2, "booked"));
    assert.deepEqual(await statusOf(t, "WB1"), {
      version: 2,
      status: "in_transit",
      first_due_at: 2,
    });
    // One batch with both versions of one shipment, newest first: the newest stays.
    await publish(bus, at(4, "delivered"), at(3, "out_for_delivery"));
    assert.deepEqual(await statusOf(t, "WB1"), {
      version: 4,
      status: "delivered",
      first_due_at: 4,
    });
    // A change of another environment is not this projection's.
    await bus.publish(subjectOf("sandbox", "ten", "shipment", "WB2"), {
      ...at(1, "booked"),
      env: "sandbox",
      id: "WB2",
    });
    await bus.flush();
    assert.equal(await statusOf(t, "WB2"), undefined);
    assert.deepEqual(errors, []);
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

Deno.test("read tables: any order of versions, duplicates included, ends at the newest", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projection = startReadTables({ bus, db: t.db, env: "live" });
  const make = fc.sample(shipment, { numRuns: 1, seed: 8 })[0]!;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 12 }),
        fc.uuid(),
        async (versions, id) => {
          await publish(
            bus,
            ...versions.map((v) =>
              shipmentChange(id, v, { ...make(id), first_due_at: v } as ShipmentSnapshot)
            ),
          );
          const row = await statusOf(t, id);
          assert.equal(row?.version, Math.max(...versions));
          assert.equal(row?.first_due_at, Math.max(...versions));
        },
      ),
      { numRuns: 25 },
    );
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

Deno.test("read tables: a change a table refuses is parked, not dropped, and goes in once the cause is gone", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: string[] = [];
  const projection = startReadTables({
    bus,
    db: t.db,
    env: "live",
    onError: (_e, subject) => errors.push(subject),
  });
  const make = fc.sample(shipment, { numRuns: 1, seed: 9 })[0]!;
  try {
    await sql`alter table shipments add constraint poison check (id <> 'WB-P')`.execute(t.db);
    await publish(
      bus,
      shipmentChange("WB-P", 1, make("WB-P")),
      shipmentChange("WB1", 1, make("WB1")),
    );
    assert.deepEqual(errors, ["live.ten.shipment.WB-P"]);
    assert.equal(await statusOf(t, "WB-P"), undefined);
    assert.equal((await statusOf(t, "WB1"))?.version, 1, "one bad change keeps no other out");
    const parked = await t.db.selectFrom("parked_changes").select(["projection", "subject"])
      .execute();
    assert.deepEqual(parked, [{ projection: "read_tables", subject: "live.ten.shipment.WB-P" }]);

    assert.equal(await projection.retryParked(), 0, "still refused: kept");
    await sql`alter table shipments drop constraint poison`.execute(t.db);
    assert.equal(await projection.retryParked(), 1);
    assert.equal((await statusOf(t, "WB-P"))?.version, 1);
    assert.deepEqual(await t.db.selectFrom("parked_changes").selectAll().execute(), []);
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

Deno.test("board counts: after any writes, replays and closings they are the open shipments by health and owner", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projection = startReadTables({ bus, db: t.db, env: "live" });
  const make = fc.sample(shipment, { numRuns: 1, seed: 10 })[0]!;
  const versions = new Map<string, number>();
  const write = fc.record({
    id: fc.constantFrom("WB1", "WB2", "WB3", "WB4"),
    tenant: fc.constantFrom("ten", "other"),
    health: fc.constantFrom("on_schedule", "late", "at_risk"),
    owner: fc.option(fc.constantFrom("courier", "customs"), { nil: null }),
    closed: fc.boolean(),
    replay: fc.boolean(),
  });
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 15 }), async (writes) => {
        for (const w of writes) {
          const id = `${w.tenant}-${w.id}`;
          // A replay is an older version again: it must change nothing, counts included.
          const version = w.replay ? (versions.get(id) ?? 1) : (versions.get(id) ?? 0) + 1;
          versions.set(id, Math.max(version, versions.get(id) ?? 0));
          const data = {
            ...make(id),
            health: w.health,
            next_owner: w.owner,
            closed_at: w.closed ? DAY : null,
          } as unknown as ShipmentSnapshot;
          await publish(bus, { ...shipmentChange(id, version, data), tenant: w.tenant });
        }
        const counted = await t.db.selectFrom("shipments")
          .select((eb) => ["tenant", "health", "next_owner", eb.fn.countAll<number>().as("n")])
          .where("closed_at", "is", null)
          .groupBy(["tenant", "health", "next_owner"])
          .execute();
        const kept = await t.db.selectFrom("board_counts")
          .select(["tenant", "health", "next_owner", "n"])
          .where("n", "<>", 0)
          .execute();
        const key = (r: { tenant: string; health: string | null; next_owner: string | null }) =>
          `${r.tenant}|${r.health}|${r.next_owner}`;
        const byKey = (a: Parameters<typeof key>[0], b: Parameters<typeof key>[0]) =>
          key(a) < key(b) ? -1 : 1;
        assert.deepEqual(
          kept.map((k) => ({ ...k, n: Number(k.n), next_owner: k.next_owner || null }))
            .sort(byKey),
          counted.map((c) => ({ ...c, n: Number(c.n) })).sort(byKey),
        );
      }),
      { numRuns: 20 },
    );
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

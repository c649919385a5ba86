import assert from "node:assert/strict";
import fc from "fast-check";
import type { ActorChange } from "../../src/bus/bus.ts";
import { subjectOf } from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { Projector, upsertSnapshot } from "../../src/db/projection.ts";
import { blockTable, macrotask, openTestDatabase, settled, type TestDatabase } from "./helpers.ts";

function snapshotOf(t: TestDatabase, type: string, id: string) {
  return t.db.selectFrom("snapshots").select(["tenant", "version", "data"])
    .where("type", "=", type).where("id", "=", id).executeTakeFirst();
}

Deno.test("upsertSnapshot(): a newer version replaces the row, an older or equal one never does", async () => {
  await using t = await openTestDatabase();
  const row = { type: "order", id: "o1", tenant: "ten" };

  assert.equal(await upsertSnapshot(t.db, { ...row, version: 2, data: { status: "b" } }), true);
  assert.equal(await upsertSnapshot(t.db, { ...row, version: 5, data: { status: "e" } }), true);
  assert.deepEqual(await snapshotOf(t, "order", "o1"), {
    tenant: "ten",
    version: 5,
    data: { status: "e" },
  });

  assert.equal(await upsertSnapshot(t.db, { ...row, version: 4, data: { status: "d" } }), false);
  assert.equal(await upsertSnapshot(t.db, { ...row, version: 5, data: { status: "x" } }), false);
  assert.deepEqual((await snapshotOf(t, "order", "o1"))?.data, { status: "e" });

  // The key is (type, id): another type with the same id is another row.
  assert.equal(
    await upsertSnapshot(t.db, { ...row, type: "courier", version: 1, data: "c" }),
    true,
  );
  assert.deepEqual((await snapshotOf(t, "courier", "o1"))?.data, "c");
  assert.deepEqual((await snapshotOf(t, "order", "o1"))?.version, 5);
});

Deno.test("upsertSnapshot(): JSON null, strings and arrays round-trip as themselves", async () => {
  await using t = await openTestDatabase();
  for (const [id, data] of [["n", null], ["s", '{"a":1}'], ["a", [1, "two", { three: 3 }]]]) {
    await upsertSnapshot(t.db, { type: "x", id: String(id), tenant: "ten", version: 1, data });
    assert.deepEqual((await snapshotOf(t, "x", String(id)))?.data, data);
  }
});

Deno.test("upsertSnapshot(): any order of versions, duplicates and concurrency included, ends at the max", async () => {
  await using t = await openTestDatabase();
  let run = 0;
  const versions = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 15 });
  const orders = versions.chain((vs) =>
    fc.tuple(
      fc.shuffledSubarray(vs, { minLength: vs.length, maxLength: vs.length }),
      fc.boolean(),
    )
  );
  await fc.assert(
    fc.asyncProperty(orders, async ([order, concurrent]) => {
      const id = `a${run++}`;
      const write = (v: number) =>
        upsertSnapshot(t.db, { type: "prop", id, tenant: "ten", version: v, data: { v } });
      if (concurrent) await Promise.all(order.map(write));
      else for (const v of order) await write(v);
      const max = Math.max(...order);
      assert.deepEqual(await snapshotOf(t, "prop", id), {
        tenant: "ten",
        version: max,
        data: { v: max },
      });
    }),
    { numRuns: 60 },
  );
});

function change(id: string, version: number, snapshot?: unknown): ActorChange {
  const events = [{ seq: version, at: 1_000 * version, event: { kind: `step_${version}` } }];
  return {
    env: "live",
    tenant: "ten",
    type: "order",
    id,
    version,
    events,
    ...(snapshot === undefined ? {} : { snapshot }),
  };
}

function publish(bus: MemoryBus, c: ActorChange, env = c.env): Promise<void> {
  return bus.publish(subjectOf(env, c.tenant, c.type, c.id), c);
}

Deno.test("Projector: writes what the bus delivers and a replayed older change changes nothing", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: unknown[] = [];
  const projector = new Projector({ bus, db: t.db, env: "live", onError: (e) => errors.push(e) });
  try {
    await publish(bus, change("o1", 1, { status: "created" }));
    await publish(bus, change("o1", 2, { status: "paid" }));
    await publish(bus, change("o2", 1)); // no snapshot: nothing to write
    await bus.flush();
    await projector.idle();
    assert.deepEqual(await snapshotOf(t, "order", "o1"), {
      tenant: "ten",
      version: 2,
      data: { status: "paid" },
    });
    assert.equal(await snapshotOf(t, "order", "o2"), undefined);

    await publish(bus, change("o1", 1, { status: "created" })); // a replay after a restart
    await bus.flush();
    await projector.idle();
    assert.deepEqual((await snapshotOf(t, "order", "o1"))?.data, { status: "paid" });

    await publish(bus, change("o3", 1, { status: "sandboxed" }), "sandbox"); // another env
    await bus.flush();
    await projector.idle();
    assert.equal(await snapshotOf(t, "order", "o3"), undefined);
    assert.deepEqual(errors, []);
  } finally {
    await projector.stop();
    await bus.drain();
  }
});

Deno.test("Projector: a malformed change is reported, not thrown, and later changes still land", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: [unknown, string][] = [];
  const projector = new Projector({
    bus,
    db: t.db,
    env: "live",
    onError: (e, subject) => errors.push([e, subject]),
  });
  try {
    await bus.publish("live.ten.order.bad", { type: "order", id: "bad" });
    await bus.publish("live.ten.order.seq", { ...change("seq", 1, { x: 1 }), version: -1 });
    await publish(bus, change("o1", 1, { ok: true }));
    await bus.flush();
    await projector.idle();
    assert.deepEqual(errors.map(([e, subject]) => [e instanceof Error, subject]), [
      [true, "live.ten.order.bad"],
      [true, "live.ten.order.seq"],
    ]);
    assert.deepEqual((await snapshotOf(t, "order", "o1"))?.data, { ok: true });
    assert.equal(await snapshotOf(t, "order", "seq"), undefined);
  } finally {
    await projector.stop();
    await bus.drain();
  }
});

Deno.test("Projector: idle() and stop() wait for the write under way; nothing lands after stop()", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projector = new Projector({ bus, db: t.db, env: "live" });
  try {
    const block = await blockTable(t, "snapshots");
    let idle: () => boolean;
    try {
      await publish(bus, change("o1", 1, { n: 1 }));
      await publish(bus, change("o2", 1, { n: 2 })); // queued in the projector behind o1
      await macrotask(); // the bus hands o1 over; its write waits for the lock
      idle = settled(projector.idle());
      const stop = settled(projector.stop());
      await macrotask(50);
      assert.equal(idle(), false, "idle() resolved while a write was blocked");
      assert.equal(stop(), false, "stop() resolved while a write was blocked");
    } finally {
      await block.release();
    }
    await projector.stop();
    assert.equal(idle(), true);
    assert.deepEqual((await snapshotOf(t, "order", "o1"))?.data, { n: 1 });

    // o2 was received before stop(), so it is written; a change after stop() is dropped.
    await publish(bus, change("late", 1, { late: true }));
    await bus.flush();
    await macrotask(50);
    const ids = await t.db.selectFrom("snapshots").select("id").orderBy("id").execute();
    assert.deepEqual(ids, [{ id: "o1" }, { id: "o2" }]);
  } finally {
    await projector.stop();
    await bus.drain();
  }
});

Deno.test("Projector: a change counts for the bus's flush (and so for recovery markers) only once written", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projector = new Projector({ bus, db: t.db, env: "live" });
  try {
    const block = await blockTable(t, "snapshots");
    let flushed: () => boolean;
    try {
      await publish(bus, change("o1", 1, { n: 1 }));
      await publish(bus, change("o2", 1, { n: 2 }));
      flushed = settled(bus.flush());
      await macrotask(50);
      assert.equal(flushed(), false, "flush resolved while the write was blocked");
    } finally {
      await block.release();
    }
    await bus.flush();
    assert.deepEqual((await snapshotOf(t, "order", "o2"))?.data, { n: 2 });
  } finally {
    await projector.stop();
    await bus.drain();
  }
});

Deno.test("Projector: a backlog of 1,000 changes is written in batches, each actor at its newest", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projector = new Projector({ bus, db: t.db, env: "live" });
  try {
    for (let v = 1; v <= 100; v++) {
      for (let a = 0; a < 10; a++) await publish(bus, change(`b${a}`, v, { v }));
    }
    await bus.flush();
    await projector.idle();
    const rows = await t.db.selectFrom("snapshots").select(["id", "version"]).orderBy("id")
      .execute();
    assert.deepEqual(rows, Array.from({ length: 10 }, (_, a) => ({ id: `b${a}`, version: 100 })));
  } finally {
    await projector.stop();
    await bus.drain();
  }
});

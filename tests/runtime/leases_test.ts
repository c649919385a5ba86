/**
 * Leased placement (src/runtime/leases.ts): the fair share and each renewal's plan, pure; then two
 * instances on one store (Deno KV, and Postgres when DATABASE_URL is set) sharing the partitions,
 * and one that stops renewing (a death) losing them to the other within the lease time.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { PARTITIONS } from "../../src/limits.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { LeasedPlacement, leasePlan, shareOf } from "../../src/runtime/leases.ts";
import type { ActorStore, Lease, LeaseStore } from "../../src/runtime/store.ts";
import { PgActorStore } from "../../src/runtime/pg_store.ts";
import { dropSchemaAt } from "./fixtures.ts";

const LEASE_MS = 10_000;

Deno.test("leases: an instance's fair share is the partitions over the live instances, rounded up", () => {
  assert.equal(shareOf(64, 1), 64);
  assert.equal(shareOf(64, 2), 32);
  assert.equal(shareOf(64, 3), 22);
  assert.equal(shareOf(64, 64), 1);
  assert.equal(shareOf(64, 100), 1);
  assert.equal(shareOf(64, 0), 64); // none seen yet: itself
  fc.assert(fc.property(fc.integer({ min: 1, max: 200 }), (live) => {
    const share = shareOf(PARTITIONS, live);
    // Enough for all between them, and none holds more than one above another's share.
    assert.ok(share * live >= PARTITIONS && (share - 1) * live < PARTITIONS);
  }));
});

Deno.test("leases: a renewal takes free or expired partitions up to the share, or gives up a few above it", () => {
  const now = 1_000_000;
  const arbitraryLeases = fc.array(
    fc.record({
      holder: fc.constantFrom(null, "a", "b", "c"),
      live: fc.boolean(),
    }),
    { minLength: PARTITIONS, maxLength: PARTITIONS },
  );
  fc.assert(fc.property(arbitraryLeases, fc.integer({ min: 1, max: 5 }), (rows, live) => {
    const leases: Lease[] = rows.map((r, partition) => ({
      partition,
      holder: r.holder,
      epoch: r.holder === null ? 0 : 1,
      expires: r.holder !== null && r.live ? now + 1 : now,
    }));
    const held = new Set(
      leases.filter((l) => l.holder === "a" && l.expires > now).map((l) => l.partition),
    );
    const plan = leasePlan({ instance: "a", leases, held, live, now, releaseMax: 8 });
    const share = shareOf(PARTITIONS, live);
    assert.ok(plan.take.length === 0 || plan.release.length === 0);
    for (const p of plan.take) assert.ok(!held.has(p) && leases[p]!.expires <= now);
    assert.equal(new Set(plan.take).size, plan.take.length);
    const free = leases.filter((l) => !held.has(l.partition) && l.expires <= now).length;
    assert.equal(plan.take.length, held.size >= share ? 0 : Math.min(free, share - held.size));
    for (const p of plan.release) assert.ok(held.has(p));
    assert.equal(plan.release.length, Math.min(8, Math.max(0, held.size - share)));
  }));
  // Two instances prefer different partitions: starting together, they seldom race for one.
  const free: Lease[] = Array.from(
    { length: PARTITIONS },
    (_, partition) => ({ partition, holder: null, epoch: 0, expires: 0 }),
  );
  const [a, b] = ["a", "b"].map((instance) =>
    leasePlan({ instance, leases: free, held: new Set(), live: 2, now, releaseMax: 8 }).take
  );
  const both = a!.filter((p) => b!.includes(p)).length;
  assert.ok(both < PARTITIONS / 4, `${both} of ${a!.length} wanted by both`);
});

/**
 * Stores sharing one body of data: one KV in memory (its instances share the store object), or
 * a store each on one fresh Postgres schema.
 */
function storesOn(kind: "kv" | "pg") {
  const schema = `actor_store_lt_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const url = Deno.env.get("DATABASE_URL")!;
  const opened: ActorStore[] = [];
  return {
    async open(): Promise<ActorStore> {
      if (kind === "kv") return opened[0] ??= await KvActorStore.open(":memory:");
      opened.push(await PgActorStore.open({ url, schema }));
      return opened.at(-1)!;
    },
    async close() {
      for (const s of opened) await s.close();
      if (kind === "pg") await dropSchemaAt(url, schema);
    },
  };
}

for (const kind of ["kv", "pg"] as const) {
  Deno.test({
    name:
      `leases (${kind}): two instances share the partitions; one that stops renewing loses them within the lease time`,
    ignore: kind === "pg" && !Deno.env.has("DATABASE_URL"),
    async fn() {
      const place = storesOn(kind);
      const clock = new ManualClock();
      const changes: string[] = [];
      const takenOver: number[] = [];
      const placementOn = async (instance: string) => {
        const p = new LeasedPlacement({
          store: (await place.open()).leases,
          clock,
          instance,
          leaseMs: LEASE_MS,
          observe: { renewed: () => {}, takenOver: (p) => takenOver.push(p) },
        });
        p.onChange((partition, held) => changes.push(`${instance}${held ? "+" : "-"}${partition}`));
        return p;
      };
      try {
        const a = await placementOn("a");
        await a.start();
        assert.equal(a.heldPartitions().length, PARTITIONS);
        assert.equal(changes.length, PARTITIONS);
        const b = await placementOn("b");
        await b.start();
        assert.deepEqual(b.heldPartitions(), []); // all held: it waits for its share
        assert.equal(b.ownerOf(7), "a");
        // Each renewal (a third of the lease) `a` gives up 8, and `b` takes them.
        let renewals = 0;
        while (b.heldPartitions().length < PARTITIONS / 2) {
          clock.advanceBy(LEASE_MS / 3);
          await a.renew();
          await b.renew();
          assert.ok(++renewals <= PARTITIONS / 2 / 8, `${renewals} renewals`);
        }
        const [ha, hb] = [a.heldPartitions(), b.heldPartitions()];
        assert.deepEqual([ha.length, hb.length], [PARTITIONS / 2, PARTITIONS / 2]);
        assert.deepEqual([...ha, ...hb].sort((x, y) => x - y), [...Array(PARTITIONS).keys()]);
        await a.renew(); // what `a` knows of the others is as of its last renewal
        for (const p of hb) {
          assert.deepEqual([a.held(p), a.ownerOf(p), b.ownerOf(p)], [undefined, "b", "b"]);
        }
        assert.deepEqual(takenOver, []); // given up, not taken over
        // `a` dies (no more renewals): its leases run out, and `b` takes them at its next renewal.
        a.stop();
        const aEpochs = ha.map((p) => a.held(p));
        clock.advanceBy(LEASE_MS - 1);
        await b.renew();
        assert.equal(b.heldPartitions().length, PARTITIONS / 2); // not yet expired
        clock.advanceBy(1);
        assert.deepEqual(ha.map((p) => a.held(p)), ha.map(() => undefined)); // its own clock says so
        await b.renew();
        assert.equal(b.heldPartitions().length, PARTITIONS);
        assert.deepEqual(takenOver.sort((x, y) => x - y), ha);
        ha.forEach((p, i) => assert.equal(b.held(p), aEpochs[i]! + 1));
        // A clean stop gives every partition up at once, free for the next to take.
        changes.length = 0;
        await b.close();
        assert.equal(changes.filter((c) => c.startsWith("b-")).length, PARTITIONS);
        const c = await placementOn("c");
        await c.start();
        assert.equal(c.heldPartitions().length, PARTITIONS);
        await c.close();
      } finally {
        await place.close();
      }
    },
  });
}

Deno.test("leases: a renewal that took longer than a lease is made again at once, so the instance answers for its partitions", async () => {
  const store = await KvActorStore.open(":memory:");
  const clock = new ManualClock();
  let slow = false;
  // The real store, whose renewal takes longer than a lease when `slow` (time passing meanwhile).
  const leases: LeaseStore = {
    all: () => store.leases.all(),
    take: (...a) => store.leases.take(...a),
    release: (...a) => store.leases.release(...a),
    presence: (...a) => store.leases.presence(...a),
    renew: async (...a) => {
      const renewed = await store.leases.renew(...a);
      if (slow) clock.advanceBy(LEASE_MS + 1);
      slow = false;
      return renewed;
    },
  };
  const a = new LeasedPlacement({ store: leases, clock, instance: "a", leaseMs: LEASE_MS });
  try {
    await a.start();
    assert.equal(a.heldPartitions().length, PARTITIONS);
    clock.advanceBy(LEASE_MS / 3);
    slow = true;
    await a.renew();
    assert.equal(slow, false, "the slow renewal was made");
    assert.equal(a.heldPartitions().length, PARTITIONS, "renewed again: every partition held");
  } finally {
    await a.close();
    await store.close();
  }
});

Deno.test("leases: an instance cut off from the others renews nothing, stops holding at its lease's end, and the others take over then", async () => {
  const place = storesOn("kv");
  const clock = new ManualClock();
  let reachable = true;
  try {
    const a = new LeasedPlacement({
      store: (await place.open()).leases,
      clock,
      instance: "a",
      leaseMs: LEASE_MS,
      reachable: () => reachable,
    });
    const lost: number[] = [];
    a.onChange((p, held) => held || lost.push(p));
    await a.start();
    const b = new LeasedPlacement({
      store: (await place.open()).leases,
      clock,
      instance: "b",
      leaseMs: LEASE_MS,
    });
    await b.start();
    assert.equal(a.heldPartitions().length, PARTITIONS);
    // Cut off: a renews nothing, yet holds what its leases still cover by its own clock.
    reachable = false;
    clock.advanceBy(3_000);
    await a.renew();
    await b.renew();
    assert.equal(a.heldPartitions().length, PARTITIONS);
    assert.deepEqual(b.heldPartitions(), []);
    // At the lease's end a holds nothing (and says so) before b may take anything.
    clock.advanceBy(LEASE_MS - 3_001);
    assert.equal(a.heldPartitions().length, PARTITIONS);
    clock.advanceBy(1);
    assert.deepEqual(a.heldPartitions(), []);
    await a.renew();
    assert.equal(lost.length, PARTITIONS);
    await b.renew();
    assert.equal(b.heldPartitions().length, PARTITIONS);
    // Reached again: a takes a share back as a newcomer does.
    reachable = true;
    for (let i = 0; i < 8 && a.heldPartitions().length < PARTITIONS / 2; i++) {
      clock.advanceBy(LEASE_MS / 3);
      await a.renew();
      await b.renew();
    }
    assert.equal(a.heldPartitions().length, PARTITIONS / 2);
    await a.close();
    await b.close();
  } finally {
    await place.close();
  }
});

/**
 * The store conformance suite (store_conformance.ts) on Postgres, when DATABASE_URL is set: each
 * place a fresh schema, dropped after; skipped otherwise.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { SCHEMAS_LOCK_KEY } from "../../src/db/migrate.ts";
import { IDEMPOTENCY_TTL_MS, PARTITIONS } from "../../src/limits.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import { PgActorStore } from "../../src/runtime/pg_store.ts";
import type { ActorStore } from "../../src/runtime/store.ts";
import { storeConformance } from "./store_conformance.ts";
import { committed, writeOf } from "./store_conformance_kit.ts";

const url = Deno.env.get("DATABASE_URL");

const newSchema = () => `actor_store_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

async function dropSchema(schema: string): Promise<void> {
  const sql = postgres(url!, { max: 1, onnotice: () => {} });
  try {
    // In turn with migrations (SCHEMAS_LOCK_KEY): their look at the catalog fails on a schema
    // dropped meanwhile.
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${SCHEMAS_LOCK_KEY})`;
      await tx.unsafe(`drop schema if exists "${schema}" cascade`);
    });
  } finally {
    await sql.end();
  }
}

storeConformance({
  name: "pg",
  ignore: url === undefined,
  place() {
    const schema = newSchema();
    const opened: ActorStore[] = [];
    return Promise.resolve({
      async open() {
        const store = await PgActorStore.open({ url: url!, schema });
        opened.push(store);
        return store;
      },
      async close() {
        for (const s of opened) await s.close();
        await dropSchema(schema);
      },
    });
  },
});

Deno.test({
  name:
    "pg store: a kept reply expires after IDEMPOTENCY_TTL_MS, a permanent one never; a timer sweep removes the expired",
  ignore: url === undefined,
  async fn() {
    const schema = newSchema();
    let now = 1_700_000_000_000;
    const store = await PgActorStore.open({ url: url!, schema, now: () => now });
    try {
      const key = { type: "nb", id: "n1" };
      await committed(
        store,
        writeOf("nb", "n1", null, {
          replies: [
            { key: "once", reply: 1, permanent: false },
            { key: "kept", reply: 2, permanent: true },
          ],
        }),
      );
      now += IDEMPOTENCY_TTL_MS - 1;
      const kept = async () => [...(await store.replies(key, ["once", "kept"])).keys()].sort();
      assert.deepEqual(await kept(), ["kept", "once"]);
      now += 1;
      assert.deepEqual(await kept(), ["kept"]);
      await store.dueTimers(now, 10);
      const sql = postgres(url!, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql.unsafe(`select key from "${schema}".actor_store_replies`);
        assert.deepEqual(rows.map((r) => r.key), ["kept"]);
      } finally {
        await sql.end();
      }
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "pg store: a store made before partitions gains their column on open; its rows of no partition are every instance's",
  ignore: url === undefined,
  async fn() {
    const schema = newSchema();
    let store = await PgActorStore.open({ url: url!, schema });
    const sql = postgres(url!, { max: 1, onnotice: () => {} });
    try {
      await committed(
        store,
        writeOf("acct", "old", null, { timerSet: [{ name: "t", at: 5 }], unpublishedFrom: 1 }),
      );
      // As a store made before the column: its rows have none.
      for (const table of ["actor_store_timers", "actor_store_unpublished", "actor_store_outbox"]) {
        await sql.unsafe(`alter table "${schema}".${table} drop column partition`);
      }
      await store.close();
      store = await PgActorStore.open({ url: url!, schema });
      const other = [(partitionOf({ type: "acct", id: "old" }) + 1) % PARTITIONS];
      assert.deepEqual((await store.dueTimers(10, 10, other)).map((t) => t.id), ["old"]);
      assert.deepEqual((await store.unpublished(10, other)).map((u) => u.id), ["old"]);
      await committed(store, writeOf("acct", "new", null, { timerSet: [{ name: "t", at: 5 }] }));
      const held = [partitionOf({ type: "acct", id: "new" })];
      assert.deepEqual((await store.dueTimers(10, 10, held)).map((t) => t.id).sort(), [
        "new",
        "old",
      ]);
      assert.deepEqual((await store.dueTimers(10, 10, other)).map((t) => t.id), ["old"]);
    } finally {
      await sql.end();
      await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "pg store: leases are taken and renewed while every connection of the store's pool waits, never queued behind its loads",
  ignore: url === undefined,
  async fn() {
    const schema = newSchema();
    const store = await PgActorStore.open({ url: url!, schema });
    const blocker = postgres(url!, { max: 1, onnotice: () => {} });
    let release = () => {};
    const held = new Promise<void>((r) => release = r);
    try {
      // A transaction holding the actors' table: every load waits for it, and more loads than
      // the pool has connections fill the pool and its queue.
      let locked = () => {};
      const isLocked = new Promise<void>((r) => locked = r);
      const holding = blocker.begin(async (tx) => {
        await tx.unsafe(`lock table "${schema}".actor_store_actors in access exclusive mode`);
        locked();
        await held;
      });
      await isLocked;
      const loads = Promise.all(
        Array.from({ length: 20 }, (_, i) => store.load({ type: "acct", id: `a${i}` })),
      );
      // Bounds a failure only: queued behind the loads, the renewal would wait for this.
      const bound = setTimeout(release, 30_000);
      const first = await Promise.race([
        (async () => {
          const [lease] = await store.leases.take([3], "a", 1_000, 5_000);
          assert.deepEqual(await store.leases.renew("a", [lease!], 9_000), [3]);
          return "leases";
        })(),
        loads.then(() => "loads"),
      ]);
      clearTimeout(bound);
      assert.equal(first, "leases", "the lease statements waited behind the pool's loads");
      release();
      await holding;
      assert.deepEqual(await loads, Array(20).fill(null));
    } finally {
      release();
      await blocker.end();
      await store.close();
      await dropSchema(schema);
    }
  },
});

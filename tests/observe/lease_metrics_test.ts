/**
 * Leases in an environment (issue 43 item 6): GET /health names the instance and the partitions
 * it holds, and the metrics count them and time the renewals, as another instance on the same
 * store comes and takes its share.
 */
import assert from "node:assert/strict";
import { LEASES_RELEASED_PER_RENEWAL, PARTITIONS } from "../../src/limits.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { LeasedPlacement } from "../../src/runtime/leases.ts";
import { PgActorStore } from "../../src/runtime/pg_store.ts";
import { openTestEnv, OPERATOR_TOKEN, type TestEnv } from "../helpers/test_env.ts";

const LEASE_MS = 10_000;

async function health(t: TestEnv): Promise<{ instance: string; partitions: number[] }> {
  const r = await t.app.request("/health");
  assert.equal(r.status, 200);
  return ((await r.json()) as { data: { instance: string; partitions: number[] } }).data;
}

/** One sample's value in a scrape of the environment's metrics. */
async function sample(t: TestEnv, series: string): Promise<number | null> {
  const r = await t.app.request("/api/metrics", {
    headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
  });
  assert.equal(r.status, 200);
  const line = (await r.text()).split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

Deno.test("leases: /health names the instance and the partitions it holds, metrics count them and time renewals", async () => {
  const dir = await Deno.makeTempDir({ prefix: "leased_" });
  const kvPath = `${dir}/kv.sqlite3`;
  const t = await openTestEnv({ kvPath, leased: { instance: "inst_a", leaseMs: LEASE_MS } });
  try {
    assert.deepEqual(await health(t), {
      status: "ok",
      environment: "live",
      instance: "inst_a",
      partitions: [...Array(PARTITIONS).keys()],
    });
    assert.equal(await sample(t, "actor_partitions_held"), PARTITIONS);
    assert.equal(await sample(t, "actor_lease_renew_duration_seconds_count"), 1);
    assert.equal(await sample(t, "actor_lease_renew_failures_total"), 0);
    // A manual clock's jump renews the leases at once: nothing lapses.
    const advanced = await t.call("POST", "/operator/clock/advance", {
      operator: true,
      body: { seconds: 3600 },
    });
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    assert.equal((await health(t)).partitions.length, PARTITIONS);
    assert.equal(await sample(t, "actor_lease_renew_duration_seconds_count"), 2);
    // Another instance on the same store: at the next renewal this one gives up a few for it.
    const url = Deno.env.get("DATABASE_URL");
    const store = Deno.env.get("ACTOR_STORE") === "postgres" && url
      ? await PgActorStore.open({ url, schema: t.deployment.schema })
      : await KvActorStore.open(kvPath);
    const clock = new ManualClock(t.clock.now());
    const other = new LeasedPlacement({
      store: store.leases,
      clock,
      instance: "b",
      leaseMs: LEASE_MS,
    });
    try {
      await other.start();
      t.clock.advanceBy(LEASE_MS / 3);
      await (t.env.runtime.placement as LeasedPlacement).renew();
      const held = PARTITIONS - LEASES_RELEASED_PER_RENEWAL;
      assert.equal((await health(t)).partitions.length, held);
      assert.equal(await sample(t, "actor_partitions_held"), held);
      assert.equal(await sample(t, "actor_lease_renew_duration_seconds_count"), 3);
      assert.equal(await sample(t, "actor_partition_takeovers_total"), 0);
    } finally {
      await other.close();
      await store.close();
    }
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Forwarding over HTTP (issue 43 item 2): two instances of one deployment (one store, one bus,
 * one query side), each holding half the partitions (tests/helpers/forward_placement.ts). Every
 * credential check comes from the instance holding the credential's actor, so a key rotated
 * through either is refused through both at once, and each answer is the same through either.
 */
import assert from "node:assert/strict";
import { businessActor } from "../../actors/platform/business/mod.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import { ForwardCluster } from "../helpers/forward_placement.ts";
import { logLines } from "../helpers/log_lines.ts";
import { openTestEnv, type TestEnv } from "../helpers/test_env.ts";

Deno.test("forwarding: an API key rotated through one instance is refused through the other at once; answers are the same through either", async () => {
  const dir = await Deno.makeTempDir({ prefix: "forwarding_" });
  const cluster = new ForwardCluster();
  const log = logLines();
  const a = await openTestEnv({ kvPath: `${dir}/kv.sqlite3`, placement: cluster.placement("a") });
  try {
    const b = await openTestEnv({
      alongside: a,
      placement: cluster.placement("b"),
      forwardWaitMs: 30,
      log: log.destination,
    });
    try {
      const biz = await a.createBusiness();
      const holder = cluster.ownerOf(partitionOf({ type: businessActor.type, id: biz.id }));
      const [h, o] = holder === "a" ? [a, b] : [b, a];
      const profile = (t: TestEnv, key: string) => t.call("GET", "/business/profile", { key });
      // Both accept the key; the holder may remember it, the other asks the holder each time.
      const first = await profile(o, biz.api_key);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual((await profile(h, biz.api_key)).body, first.body);

      // Rotated through the instance that does not hold the business: refused on both at once.
      const rotated = await o.call("POST", "/business/api-key/regenerate", { key: biz.api_key });
      assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
      const key2: string = rotated.body.data.api_key;
      for (const t of [h, o]) {
        const old = await profile(t, biz.api_key);
        assert.equal(old.status, 401);
        assert.equal(old.body.code, "unauthenticated");
        assert.equal((await profile(t, key2)).status, 200);
      }
      // And through the holder: the other refuses the old key on its very next request.
      const again = await h.call("POST", "/business/api-key/regenerate", { key: key2 });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      const refused = await profile(o, key2);
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, (await profile(h, key2)).body, "the same refusal");
      assert.equal((await profile(o, again.body.data.api_key)).status, 200);

      // Nobody holds the business a moment (its lease moving): 503 with Retry-After once the
      // bounded wait is over; the log names the actor, the answer does not.
      const p = partitionOf({ type: businessActor.type, id: biz.id });
      cluster.move(p, undefined);
      const moving = await profile(b, again.body.data.api_key);
      assert.equal(moving.status, 503, JSON.stringify(moving.body));
      assert.equal(moving.body.code, "partition_unavailable");
      assert.equal(moving.headers.get("Retry-After"), "1");
      assert.ok(!JSON.stringify(moving.body).includes(biz.id));
      const warned = log.all().find((l) => l.partition === p);
      assert.equal(warned?.actor, `business ${biz.id}`);
      cluster.move(p, holder);
      assert.equal((await profile(b, again.body.data.api_key)).status, 200);

      // Each instance counts what it sent and served.
      const scraped = `${(await a.env.metrics.scrape()).body}${
        (await b.env.metrics.scrape()).body
      }`;
      assert.match(scraped, /actor_forwards_total\{role="sent",outcome="ok"\} [1-9]/);
      assert.match(scraped, /actor_forwards_total\{role="served",outcome="ok"\} [1-9]/);
      assert.match(scraped, /actor_forward_duration_seconds_count\{role="sent"\} [1-9]/);
      assert.match(scraped, /actor_forwards_total\{role="sent",outcome="failed"\} 1/);
    } finally {
      cluster.handOver("b", "a");
      await b.close();
    }
  } finally {
    await a.close();
    await Deno.remove(dir, { recursive: true });
  }
});

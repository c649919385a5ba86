/**
 * The sandbox inbox's read table (migration 0025): written from the inbox delivery actors and
 * trimmed to the newest SANDBOX_INBOX_KEPT_MAX per business, another business's untouched.
 */
import assert from "node:assert/strict";
import { sandboxInboxActor } from "../../../actors/business/sandbox_inbox.ts";
import { inboxDeliveries } from "../../../src/business/queries/sandbox_inbox.ts";
import { SANDBOX_INBOX_KEPT_MAX } from "../../../src/business/rules/sandbox.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

async function receive(t: TestEnv, tenant: string, id: string): Promise<void> {
  const r = await t.env.runtime.ask(sandboxInboxActor, tenant, id, {
    kind: "receive",
    delivery: { id, event: "trip.created", event_id: `evt_${id}`, headers: {}, body: "{}" },
  });
  assert.ok(r.ok, JSON.stringify(r));
}

Deno.test("sandbox inbox table: the newest 1,000 deliveries of a business are kept, the oldest trimmed", () =>
  withTestEnv(async (t) => {
    await receive(t, "biz_a", "old");
    await receive(t, "biz_b", "theirs");
    t.clock.advanceBy(1_000);
    const ids = Array.from(
      { length: SANDBOX_INBOX_KEPT_MAX },
      (_, i) => `n${String(i).padStart(4, "0")}`,
    );
    for (let i = 0; i < ids.length; i += 100) {
      await Promise.all(ids.slice(i, i + 100).map((id) => receive(t, "biz_a", id)));
    }
    await t.settle();
    const { count } = await t.env.db.selectFrom("sandbox_inbox")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("tenant", "=", "biz_a").executeTakeFirstOrThrow();
    assert.equal(Number(count), SANDBOX_INBOX_KEPT_MAX);
    const newest = await inboxDeliveries(t.env.db, "biz_a", 100);
    assert.equal(newest[0]!.id, ids.at(-1), "newest first (then by id)");
    assert.ok(!(await inboxDeliveries(t.env.db, "biz_a", 1_000)).some((d) => d.id === "old"));
    assert.deepEqual((await inboxDeliveries(t.env.db, "biz_b", 10)).map((d) => d.id), ["theirs"]);
  }, { name: "sandbox" }));

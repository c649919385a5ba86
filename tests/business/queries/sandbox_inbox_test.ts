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
    const last = ids.at(-1)!;
    for (let i = 0; i < ids.length; i += 100) {
      const some = ids.slice(i, i + 100).filter((id) => id !== last);
      await Promise.all(some.map((id) => receive(t, "biz_a", id)));
    }
    await receive(t, "biz_a", last);
    await t.settle();
    const { count } = await t.env.db.selectFrom("sandbox_inbox")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("tenant", "=", "biz_a").executeTakeFirstOrThrow();
    assert.equal(Number(count), SANDBOX_INBOX_KEPT_MAX);
    const newest = await inboxDeliveries(t.env.db, "biz_a", 100);
    assert.equal(newest[0]!.id, last, "newest first: the last received");
    assert.ok(!(await inboxDeliveries(t.env.db, "biz_a", 1_000)).some((d) => d.id === "old"));
    assert.deepEqual((await inboxDeliveries(t.env.db, "biz_b", 10)).map((d) => d.id), ["theirs"]);
  }, { name: "sandbox" }));

// spec: business 4.4: the inbox lists what it received newest first; deliveries kept within one
// millisecond (a deliver step's three webhooks) were listed by their random ids instead.
Deno.test("sandbox inbox table: deliveries received in the same millisecond are listed newest first", () =>
  withTestEnv(async (t) => {
    const ids = ["z1", "m2", "a3", "q4", "b5", "y6"];
    for (const id of ids) {
      await receive(t, "biz_c", id);
      await t.settle();
    }
    const listed = await inboxDeliveries(t.env.db, "biz_c", 10);
    assert.deepEqual(listed.map((d) => d.id), [...ids].reverse());
  }, { name: "sandbox" }));

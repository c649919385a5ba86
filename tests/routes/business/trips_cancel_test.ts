import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const bwp = (balance: number) => ({
  billing_type: "prepaid",
  balances: [{ currency: "BWP", balance }],
});

Deno.test("trips: cancel before collection refunds once; again already_cancelled; after collection 422", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const first = await book(t, b.api_key, { ...PARCEL, handover_required: true });
    const ref = first.body.data.reference;
    const c = await t.call("POST", "/business/trips/1/cancel", {
      key: b.api_key,
      body: { reason: "customer changed mind" },
    });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.data.status, "cancelled");
    assert.equal(c.body.data.cancel_reason, "customer changed mind");
    await t.env.runtime.outboxesIdle();
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const again = await t.call("POST", `/business/trips/${ref}/cancel`, { key: b.api_key });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.already_cancelled, true);
    await t.env.runtime.outboxesIdle();
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const w = await t.env.runtime.read(walletActor, b.id, b.id, { kind: "get" });
    assert.ok(w.ok);
    assert.equal(w.reply.state.recent.filter((x) => x.reference.startsWith("refund:")).length, 1);

    const second = await book(t, b.api_key, { ...PARCEL, handover_required: true });
    const ref2 = second.body.data.reference;
    for (const kind of ["accept", "arrive"] as const) {
      assert.ok((await t.env.runtime.ask(tripActor, b.id, ref2, { kind })).ok);
    }
    const early = await t.env.runtime.ask(tripActor, b.id, ref2, { kind: "collect" });
    assert.ok(!early.ok && early.code === "awaiting_handover");
    for (let i = 0; i < 2; i++) {
      const ready = await t.call("POST", `/business/trip/${ref2}/ready`, { key: b.api_key });
      assert.equal(ready.status, 200);
      assert.ok(ready.body.data.ready_at);
    }
    assert.ok((await t.env.runtime.ask(tripActor, b.id, ref2, { kind: "collect" })).ok);
    const late = await t.call("POST", "/business/trips/2/cancel", { key: b.api_key });
    assert.equal(late.status, 422);
    assert.equal(late.body.code, "not_cancellable");
  }));

Deno.test("trips: wallet.low_balance is added to the outbox once below the threshold", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const p = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { low_balance_threshold: 999 },
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const seen: unknown[] = [];
    const release = t.env.runtime.handleOutbox("business_webhook", (i) => {
      seen.push(i.payload);
      return Promise.resolve();
    });
    try {
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
      await t.env.runtime.outboxesIdle();
      const low = seen.filter((x) => (x as { event: string }).event === "wallet.low_balance");
      assert.equal(low.length, 1);
      assert.equal((low[0] as { business_id: string }).business_id, b.id);
      const created = seen.filter((x) => (x as { event: string }).event === "trip.created");
      assert.equal(created.length, 2);
    } finally {
      release();
    }
  }));

/**
 * Business API 4.4, the sandbox inbox's storage: the inbox keeps the newest SANDBOX_INBOX_KEPT_MAX
 * deliveries per business in its list, and nothing per delivery in the actor store (Deno KV),
 * which would otherwise grow with every sandbox webhook for ever.
 */
import assert from "node:assert/strict";
import { sandboxInboxActor } from "../../../actors/business/sandbox_inbox.ts";
import { inboxDeliveries } from "../../../src/business/queries/sandbox_inbox.ts";
import { until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

Deno.test("sandbox inbox: a delivery is listed and leaves nothing in the actor store", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const pointed = await t.call("POST", "/business/sandbox/inbox", { key: b.api_key });
    assert.equal(pointed.status, 200, JSON.stringify(pointed.body));
    const booked = await book(t, b.api_key, { ...PARCEL, external_reference: "INBOX-KV" });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await until(t, async () => {
      await t.settle();
      return (await inboxDeliveries(t.env.db, b.id, 10)).length >= 1;
    }, "the inbox delivery");
    const listed = await t.call("GET", "/business/sandbox/inbox", { key: b.api_key });
    assert.equal(listed.body.data[0].event, "trip.created");
    // spec: business 4.4: the list is the inbox; no per-delivery record stays in the store.
    const stored = [];
    for await (const r of t.env.runtime.stored(sandboxInboxActor)) stored.push(r.id);
    assert.deepEqual(stored, []);
  }, { name: "sandbox" }));

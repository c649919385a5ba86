/**
 * The business account's outbox (actors/platform/business/outbox.ts; courier 3.1, 6.1, Business
 * API 6): a webhook URL or billing endpoint set in a commit hands the events that waited for an
 * endpoint to the endpoint-set outbox, in that commit; any other change, or clearing one, nothing.
 */
import assert from "node:assert/strict";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { ENDPOINT_SET_OUTBOX } from "../../../src/platform/rules/endpoint_set.ts";
import { ActorHarness } from "../../helpers/actor.ts";

function account() {
  const h = new ActorHarness(businessActor, { now: Date.parse("2026-11-02T08:00:00Z") });
  const key = { hash: "a".repeat(64), hint: "aaaa", created_at: h.now };
  h.must({
    kind: "create",
    id: "biz_1",
    name: "Kalahari Couriers",
    plan: "business",
    currency: "BWP",
    country: "BW",
    owner: {
      id: "usr_owner",
      email: "owner@example.com",
      name: "Neo Owner",
      role: "owner",
      password_hash: "pbkdf2$owner",
    },
    api_key: key,
    webhook_secret: { iv: "iv", data: "sealed", key_id: "whk_1", created_at: h.now },
  });
  return h;
}

Deno.test("business actor: an endpoint set hands the waiting events to the outbox in its commit; other changes nothing", () => {
  const h = account();
  const outbox = (changes: Record<string, string | null>) => {
    const step = h.must({ kind: "change_profile", changes, by: "api_key" });
    return step.events.flatMap((e) => businessActor.outbox!(e, h.state));
  };
  assert.deepEqual(outbox({ webhook_url: "https://shop.example/hook" }), [{
    outbox: ENDPOINT_SET_OUTBOX,
    payload: { business_id: "biz_1", recipients: ["courier", "business"] },
  }]);
  assert.deepEqual(outbox({ webhook_url: "https://shop.example/hook" }), [], "the same again");
  assert.deepEqual(outbox({ billing_endpoint_url: "https://erp.example/billing" }), [{
    outbox: ENDPOINT_SET_OUTBOX,
    payload: { business_id: "biz_1", recipients: ["courier"] },
  }]);
  assert.deepEqual(outbox({ webhook_url: null, billing_endpoint_url: null }), [], "cleared");
  assert.deepEqual(outbox({ name: "Kalahari Express" }), []);
});

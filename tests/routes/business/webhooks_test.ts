/**
 * Business API 4.3 and 6 over HTTP: POST /business/webhook-test sends a signed sample and answers
 * what happened; GET /business/webhook-deliveries lists the log newest first; a delivery is
 * requeued; none of it reaches another business.
 */
import assert from "node:assert/strict";
import { verifyV1, verifyV2 } from "../../../src/domain/signature_verification.ts";
import {
  WebhookDeliveryAnswer,
  WebhookTestAnswer,
} from "../../../routes/business/answers/webhooks.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { documented, listed } from "../../helpers/documented.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness, PARCEL } from "./trips_fixtures.ts";

async function setUrl(t: TestEnv, key: string, url: string) {
  const r = await t.call("PATCH", "/business/profile", { key, body: { webhook_url: url } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

Deno.test("webhook-test: 422 naming webhook_url when none is set, and nothing is made", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("POST", "/business/webhook-test", { key: b.api_key });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["webhook_url"]);
    await t.settle();
    const list = await t.call("GET", "/business/webhook-deliveries", { key: b.api_key });
    assert.deepEqual(list.body.data, []);
  }));

Deno.test("webhook-test: a signed sample, marked test, delivered now and listed", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setUrl(t, b.api_key, `${receiver.url}/in`);
      const r = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      const { delivery, outcome } = documented(WebhookTestAnswer, r, 200, "webhook-test");
      assert.deepEqual(outcome, { result: "delivered", http_status: 200, error: null });
      assert.equal(delivery.status, "delivered");
      assert.equal(delivery.event, "trip.created");
      assert.equal(delivery.attempts, 1);

      assert.equal(receiver.deliveries.length, 1);
      const d = receiver.deliveries[0]!;
      assert.equal(d.headers.get("X-Service-Delivery"), delivery.id);
      const ts = Number(d.headers.get("X-Service-Timestamp"));
      const secret = b.webhook_secret;
      assert.deepEqual(await verifyV1(secret, d.body, d.headers.get("X-Service-Signature")), {
        ok: true,
      });
      assert.deepEqual(
        await verifyV2(secret, d.body, d.headers.get("X-Service-Signature-V2"), ts),
        { ok: true },
      );
      const body = JSON.parse(d.body);
      assert.equal(body.id, delivery.id);
      assert.equal(body.test, true);
      assert.equal(body.event, "trip.created");
      assert.equal(body.data.is_test, true);
      assert.equal(body.data.billing_currency, "BWP");

      await t.settle();
      const list = await t.call("GET", "/business/webhook-deliveries", { key: b.api_key });
      assert.deepEqual(listed(WebhookDeliveryAnswer, list, "deliveries"), [delivery]);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("webhook deliveries: newest first, filtered by status; a pending one requeued, a delivered one not", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setUrl(t, b.api_key, receiver.url);
      const first = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      await advance(t, 60);
      receiver.failFirst = 5;
      const second = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      assert.equal(second.status, 200);
      assert.deepEqual(second.body.data.outcome, {
        result: "failed",
        http_status: 500,
        error: null,
      });
      const failing = second.body.data.delivery;
      assert.equal(failing.status, "pending");
      assert.notEqual(failing.next_attempt_at, null);

      await t.settle();
      const list = await t.call("GET", "/business/webhook-deliveries", { key: b.api_key });
      assert.deepEqual(list.body.data.map((d: { id: string }) => d.id), [
        failing.id,
        first.body.data.delivery.id,
      ]);
      const pending = await t.call("GET", "/business/webhook-deliveries?status=pending", {
        key: b.api_key,
      });
      assert.deepEqual(pending.body.data.map((d: { id: string }) => d.id), [failing.id]);

      const refused = await t.call(
        "POST",
        `/business/webhook-deliveries/${first.body.data.delivery.id}/requeue`,
        { key: b.api_key, body: { reason: "resend" } },
      );
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, "not_requeueable");

      receiver.failFirst = 0;
      const requeued = await t.call("POST", `/business/webhook-deliveries/${failing.id}/requeue`, {
        key: b.api_key,
        body: { reason: "receiver fixed" },
      });
      assert.deepEqual(
        documented(WebhookDeliveryAnswer, requeued, 200, "requeue").requeues.map((
          q: { reason: string; by: string },
        ) => [q.reason, q.by]),
        [["receiver fixed", "api_key"]],
      );
      await until(t, () => receiver.effects.has(failing.id), "the requeued webhook");
      await until(t, async () => {
        const r = await t.call("GET", `/business/webhook-deliveries/${failing.id}`, {
          key: b.api_key,
        });
        return documented(WebhookDeliveryAnswer, r, 200, "one delivery").status === "delivered";
      }, "the delivery recorded");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("webhook deliveries: another business reads, requeues and lists none of them", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      const other = await t.createBusiness();
      await setUrl(t, b.api_key, receiver.url);
      await setUrl(t, other.api_key, `${receiver.url}/other`);
      receiver.failFirst = 5;
      const sent = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      const id: string = sent.body.data.delivery.id;
      const read = await t.call("GET", `/business/webhook-deliveries/${id}`, {
        key: other.api_key,
      });
      assert.equal(read.status, 404);
      const requeue = await t.call("POST", `/business/webhook-deliveries/${id}/requeue`, {
        key: other.api_key,
        body: { reason: "not mine" },
      });
      assert.equal(requeue.status, 404);
      assert.equal(requeue.body.code, "not_found");
      await t.settle();
      const list = await t.call("GET", "/business/webhook-deliveries", { key: other.api_key });
      assert.deepEqual(list.body.data, []);
      assert.deepEqual(receiver.deliveries.map((d) => d.path), ["/"]);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("webhook deliveries: read or requeued while the delivery is busy answers 503, never 404", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setUrl(t, b.api_key, receiver.url);
      receiver.failFirst = 1;
      const sent = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      const path = `/business/webhook-deliveries/${sent.body.data.delivery.id}`;
      const asks = [
        { method: "GET" as const, path, body: undefined },
        { method: "POST" as const, path: `${path}/requeue`, body: { reason: "resend" } },
      ];
      for (const ask of asks) {
        // The delivery's actor answers actor_busy once, as a full mailbox does.
        const failed = await whileFlaky(t.env, {
          fails: commandKind("get", outboundEventActor.type),
          refuse: true,
        }, async () => {
          const r = await t.call(ask.method, ask.path, { key: b.api_key, body: ask.body });
          // spec: business 4.3, 6: the delivery exists; a 404 says it never did.
          assert.equal(r.status, 503, `${ask.path}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.code, "actor_busy");
        });
        assert.equal(failed, 1);
        const again = await t.call(ask.method, ask.path, { key: b.api_key, body: ask.body });
        assert.equal(again.status, 200, `${ask.path}: ${JSON.stringify(again.body)}`);
      }
    } finally {
      await receiver.close();
    }
  }));

// spec: business 2.2, 6: the sample is "a signed sample" of a trip event: a receiver built against
// it must parse a real trip.created, so both carry the same envelope and the same data fields.
Deno.test("webhook-test: the sample carries the envelope and data fields of a real trip.created", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await fundedBusiness(t);
      await setUrl(t, b.api_key, receiver.url);
      const booked = await t.call("POST", "/business/book", { key: b.api_key, body: PARCEL });
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      await until(t, () => receiver.deliveries.length >= 1, "the real trip.created");
      const r = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const [real, sample] = receiver.deliveries.map((d) => JSON.parse(d.body));
      assert.equal(real.test, false);
      assert.equal(sample.test, true);
      assert.deepEqual(Object.keys(sample), Object.keys(real));
      assert.deepEqual(Object.keys(sample.data).sort(), Object.keys(real.data).sort());
      // spec: business 2.2: eta_minutes is among the trip's fields; the sample's is null.
      assert.equal(real.data.eta_minutes, booked.body.data.eta_minutes);
    } finally {
      await receiver.close();
    }
  }));

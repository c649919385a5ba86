/**
 * Business webhooks (Business API 6, 2.7; CONTRACT "Signatures"): an item an actor's commit adds
 * to the business webhook outbox is sent through the delivery engine to the business's own URL,
 * signed V1 and V2 over the exact bytes, retried on the schedule, made once however often it is
 * handled, and never sent to another business.
 */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { emitBusinessWebhook } from "../../../src/business/reactors/business_webhooks.ts";
import { webhookEventId } from "../../../src/business/rules/webhook_envelope.ts";
import { hex } from "../../../src/domain/secrets.ts";
import type { BusinessWebhookEvent } from "../../../src/business/rules/webhook_events.ts";
import { logLines } from "../../helpers/log_lines.ts";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { report, setWebhookUrl, tripItem, withWebhookEnv } from "../webhook_fixtures.ts";

/** HMAC-SHA256 hex of `message` keyed with the UTF-8 bytes of the whole secret, by WebCrypto. */
async function hmacHex(secret: string, message: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message))));
}

async function eventOf(t: TestEnv, tenant: string, id: string) {
  const got = await t.env.runtime.read(outboundEventActor, tenant, id, { kind: "get" });
  return got.ok ? got.reply ?? null : null;
}

Deno.test("business webhooks: a committed item reaches the business's URL, signed V1 and V2 over its bytes", () =>
  withWebhookEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setWebhookUrl(t, b, `${receiver.url}/hooks`);
      const item = tripItem(b.id, "trip_41:created");
      await report(t, b.id, item);
      const id = webhookEventId(b.id, item.event_id);
      await until(t, () => receiver.effects.has(id), "the webhook");

      assert.equal(receiver.deliveries.length, 1);
      const d = receiver.deliveries[0]!;
      assert.equal(d.path, "/hooks");
      assert.equal(d.headers.get("X-Service-Event"), "trip.created");
      assert.equal(d.headers.get("X-Service-Delivery"), id);
      const ts = d.headers.get("X-Service-Timestamp")!;
      assert.match(ts, /^\d+$/);
      assert.equal(Number(ts), Math.floor(t.clock.now() / 1000));
      // spec: business 6: V1 over the raw body; V2 over `<ts>.<raw body>`; keyed with the
      // whole whsec_ secret.
      assert.match(b.webhook_secret, /^whsec_/);
      assert.equal(
        d.headers.get("X-Service-Signature"),
        `sha256=${await hmacHex(b.webhook_secret, d.body)}`,
      );
      assert.equal(
        d.headers.get("X-Service-Signature-V2"),
        `t=${ts},sha256=${await hmacHex(b.webhook_secret, `${ts}.${d.body}`)}`,
      );
      const body = JSON.parse(d.body);
      assert.deepEqual(Object.keys(body).sort(), [
        "data",
        "event",
        "event_id",
        "external_reference",
        "id",
        "test",
        "timestamp",
      ]);
      assert.equal(body.id, id);
      assert.equal(body.event_id, id);
      assert.equal(body.event, "trip.created");
      assert.equal(body.timestamp, "2026-11-29T08:00:00.000Z");
      assert.equal(body.external_reference, "ORDER-77");
      assert.equal(body.test, false);
      // The trip's own integer id stays the trip's, under data.
      assert.deepEqual(body.data, item.data);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("business webhooks: a failed attempt is retried after 1 minute with the same id and bytes", () =>
  withWebhookEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setWebhookUrl(t, b, receiver.url);
      receiver.failFirst = 1;
      const item = tripItem(b.id, "trip_42:created");
      await report(t, b.id, item);
      const id = webhookEventId(b.id, item.event_id);
      await until(t, async () => (await eventOf(t, b.id, id))?.attempts_total === 1, "attempt 1");
      const failed = (await eventOf(t, b.id, id))!;
      assert.equal(failed.status, "pending");
      assert.equal(failed.attempts[0]!.outcome.result, "failed");
      // spec: CONTRACT "Signatures": retried after 1, 5, 30, 120 and 720 minutes.
      assert.equal(failed.next_attempt_at, failed.attempts[0]!.at + 60_000);

      await advance(t, 59);
      assert.equal(receiver.deliveries.length, 1, "not before the minute is up");
      await advance(t, 1);
      await until(t, () => receiver.effects.has(id), "the retry");
      assert.equal(receiver.deliveries.length, 2);
      const [first, second] = receiver.deliveries;
      assert.equal(second!.headers.get("X-Service-Delivery"), id);
      assert.equal(second!.body, first!.body);
      assert.equal(
        Number(second!.headers.get("X-Service-Timestamp")) -
          Number(first!.headers.get("X-Service-Timestamp")),
        60,
      );
      await until(t, async () => (await eventOf(t, b.id, id))?.status === "delivered", "record");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("business webhooks: the same item handled three times makes one webhook, sent once", () =>
  withWebhookEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setWebhookUrl(t, b, receiver.url);
      const item = tripItem(b.id, "trip_43:created");
      // Two commits adding the same item (a redelivered fact), and the sweep handing it again.
      await report(t, b.id, item);
      await report(t, b.id, item);
      const again = await emitBusinessWebhook(t.env.runtime, b.id, item);
      const id = webhookEventId(b.id, item.event_id);
      assert.equal(again?.id, id);
      await until(t, () => receiver.effects.has(id), "the webhook");
      await t.settle();
      await t.env.pump();
      assert.equal(receiver.deliveries.length, 1);
      const list = await t.call("GET", "/business/webhook-deliveries", { key: b.api_key });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((d: { id: string }) => d.id), [id]);
      assert.equal(list.body.data[0].status, "delivered");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("business webhooks: another business's URL never gets an item, nor one naming it", () =>
  withWebhookEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const a = await t.createBusiness();
      const other = await t.createBusiness();
      await setWebhookUrl(t, a, `${receiver.url}/a`);
      await setWebhookUrl(t, other, `${receiver.url}/other`);
      const mine = tripItem(a.id, "trip_44:created");
      await report(t, a.id, mine);
      // A broken actor of business a naming the other business: dropped, sent to nobody.
      const crossed = tripItem(other.id, "trip_45:created");
      await report(t, a.id, crossed);
      const id = webhookEventId(a.id, mine.event_id);
      await until(t, () => receiver.effects.has(id), "a's webhook");
      await t.settle();
      await t.env.pump();
      assert.deepEqual(receiver.deliveries.map((d) => d.path), ["/a"]);
      assert.equal(await eventOf(t, a.id, webhookEventId(a.id, crossed.event_id)), null);
      assert.equal(await eventOf(t, other.id, webhookEventId(other.id, crossed.event_id)), null);
      const theirs = await t.call("GET", "/business/webhook-deliveries", { key: other.api_key });
      assert.deepEqual(theirs.body.data, []);
      const read = await t.call("GET", `/business/webhook-deliveries/${id}`, {
        key: other.api_key,
      });
      assert.equal(read.status, 404);
      assert.equal(read.body.code, "not_found");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("business webhooks: no URL makes no webhook; a URL cleared later waits and goes once set again", () =>
  withWebhookEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      const before = tripItem(b.id, "trip_46:created");
      await report(t, b.id, before);
      await t.settle();
      assert.equal(await eventOf(t, b.id, webhookEventId(b.id, before.event_id)), null);

      await setWebhookUrl(t, b, receiver.url);
      receiver.failFirst = 1;
      const item = tripItem(b.id, "trip_47:created");
      await report(t, b.id, item);
      const id = webhookEventId(b.id, item.event_id);
      await until(t, async () => (await eventOf(t, b.id, id))?.attempts_total === 1, "attempt 1");
      // The URL is looked up at every attempt: cleared, the retry finds none and waits.
      await setWebhookUrl(t, b, null);
      await advance(t, 60);
      await until(
        t,
        async () => (await eventOf(t, b.id, id))?.endpoint_missing_at != null,
        "the retry finding no URL",
      );
      assert.equal(receiver.deliveries.length, 1);
      // Set again, the waiting webhook goes now, not at its hourly try.
      await setWebhookUrl(t, b, `${receiver.url}/again`);
      await until(t, () => receiver.effects.has(id), "the webhook after the URL is set");
      assert.equal(receiver.deliveries.at(-1)!.path, "/again");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("business webhooks: an item refused for good (no event name) is let go, not handed over again", async () => {
  const lines = logLines();
  const refused = () => lines.all().filter((l) => l.event === "business_webhook_refused");
  await withWebhookEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await t.createBusiness();
      await setWebhookUrl(t, b, receiver.url);
      // A broken actor's item: an outbox item is at most 60,000 bytes, so a body is never too
      // large; an event without a name is what the engine refuses for good.
      const nameless = tripItem(b.id, "trip_48:created", { event: "" as BusinessWebhookEvent });
      await report(t, b.id, nameless);
      await t.settle();
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.sweepOutboxes();
      assert.equal(await eventOf(t, b.id, webhookEventId(b.id, nameless.event_id)), null);
      assert.equal(refused().length, 1, "refused once, then gone from the outbox");
      assert.equal(refused()[0]!.code, "invalid_event");
      const fine = tripItem(b.id, "trip_49:created");
      await report(t, b.id, fine);
      await until(t, () => receiver.effects.has(webhookEventId(b.id, fine.event_id)), "the next");
    } finally {
      await receiver.close();
    }
  }, { log: lines.destination });
});

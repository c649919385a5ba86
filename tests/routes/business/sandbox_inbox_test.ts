/**
 * Business API 4.4 and 6, the sandbox inbox: POST points the webhook URL at the built-in inbox, a
 * booked trip's webhooks land there with the exact raw bytes and headers sent (the V1 and V2
 * signatures verify over `body` with the webhook secret), another business sees none of them,
 * PATCH /business/profile points the webhooks away again, and on live the endpoints answer 404.
 */
import assert from "node:assert/strict";
import { verifyV1, verifyV2 } from "../../../src/domain/signature_verification.ts";
import { inboxDeliveries } from "../../../src/business/queries/sandbox_inbox.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const INBOX = "/business/sandbox/inbox";

async function inbox(t: TestEnv, key: string, limit?: number) {
  await t.settle();
  const r = await t.call("GET", limit ? `${INBOX}?limit=${limit}` : INBOX, { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    id: string;
    event: string;
    event_id: string;
    received_at: string;
    headers: Record<string, string>;
    body: string;
  }[];
}

/** Whether the inbox holds `n` deliveries, asked of the query side (no request spent). */
async function received(t: TestEnv, business: string, n: number): Promise<boolean> {
  await t.settle();
  return (await inboxDeliveries(t.env.db, business, 100)).length >= n;
}

Deno.test("sandbox inbox: a trip's webhooks are kept with the exact bytes sent; signatures verify over body", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const other = await fundedBusiness(t);
    const pointed = await t.call("POST", INBOX, { key: b.api_key });
    assert.equal(pointed.status, 200, JSON.stringify(pointed.body));
    assert.equal(pointed.body.data.replaced, null);
    const url = pointed.body.data.webhook_url;
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.body.data.webhook_url, url);

    const booked = await book(t, b.api_key, { ...PARCEL, external_reference: "INBOX-1" });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await until(t, () => received(t, b.id, 1), "the inbox delivery");
    const [got] = await inbox(t, b.api_key);
    assert.equal(got!.event, "trip.created");
    const sent = JSON.parse(got!.body);
    assert.equal(sent.event, "trip.created");
    assert.equal(sent.id, got!.event_id);
    assert.equal(sent.data.reference, booked.body.data.reference);
    assert.equal(sent.external_reference, "INBOX-1");
    const h = got!.headers;
    assert.equal(h["Content-Type"], "application/json");
    assert.equal(h["X-Service-Event"], "trip.created");
    assert.equal(h["X-Service-Delivery"], got!.event_id);
    assert.deepEqual(await verifyV1(b.webhook_secret, got!.body, h["X-Service-Signature"]!), {
      ok: true,
    });
    const ts = Number(h["X-Service-Timestamp"]);
    assert.deepEqual(
      await verifyV2(b.webhook_secret, got!.body, h["X-Service-Signature-V2"]!, ts),
      { ok: true },
    );
    assert.notDeepEqual(
      await verifyV1(other.webhook_secret, got!.body, h["X-Service-Signature"]!),
      { ok: true },
      "signed with this business's secret only",
    );
    // The engine logged it delivered: the inbox answered as a 2xx receiver.
    const log = await t.call("GET", "/business/webhook-deliveries", { key: b.api_key });
    assert.equal(log.body.data[0].id, got!.event_id);
    assert.equal(log.body.data[0].status, "delivered");
    // Another business's inbox is its own, and empty.
    assert.deepEqual(await inbox(t, other.api_key), []);

    // PATCH /business/profile points the webhooks away again; the next one leaves the inbox be.
    const receiver = startReceiver();
    try {
      const away = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: { webhook_url: receiver.url },
      });
      assert.equal(away.status, 200, JSON.stringify(away.body));
      const cancelled = await t.call("POST", `/business/trips/${booked.body.data.id}/cancel`, {
        key: b.api_key,
        body: { reason: "changed my mind" },
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      await until(t, () => receiver.deliveries.length >= 1, "the cancellation at the receiver");
      assert.equal(JSON.parse(receiver.deliveries[0]!.body).event, "trip.cancelled");
      assert.equal((await inbox(t, b.api_key)).length, 1);
      const again = await t.call("POST", INBOX, { key: b.api_key });
      assert.equal(again.body.data.replaced, receiver.url + "/");
    } finally {
      await receiver.close();
    }
  }, { name: "sandbox" }));

Deno.test("sandbox inbox: newest first, limit 1 to 100 (default 20); the webhook test sample lands too", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await t.call("POST", INBOX, { key: b.api_key });
    for (let i = 0; i < 3; i++) {
      const r = await t.call("POST", "/business/webhook-test", { key: b.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.outcome.result, "delivered");
      t.clock.advanceBy(1_000);
    }
    const all = await inbox(t, b.api_key);
    assert.equal(all.length, 3);
    const times = all.map((d) => Date.parse(d.received_at));
    assert.deepEqual(times, [...times].sort((x, y) => y - x), "newest first");
    assert.deepEqual(
      (await inbox(t, b.api_key, 2)).map((d) => d.id),
      all.slice(0, 2).map((d) => d.id),
    );
    for (const limit of ["0", "101", "x"]) {
      const r = await t.call("GET", `${INBOX}?limit=${limit}`, { key: b.api_key });
      assert.equal(r.status, 422, limit);
      assert.equal(r.body.code, "validation_failed");
    }
  }, { name: "sandbox" }));

Deno.test("sandbox inbox: on live the inbox and readiness endpoints answer 404, saying they are on the sandbox base", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (
      const [method, path] of [["POST", INBOX], ["GET", INBOX], [
        "GET",
        "/business/sandbox/readiness",
      ]]
    ) {
      const r = await t.call(method!, path!, { key: b.api_key });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.code, "not_found");
      assert.match(r.body.message, /sandbox base/);
    }
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.body.data.webhook_url, null, "nothing changed");
  }));

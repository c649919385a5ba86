import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const SETTINGS = "/business/shopping-fulfilment";

/** Every endpoint of shopping 4 this piece serves, with a body it takes. */
const ENDPOINTS: readonly [string, string, unknown][] = [
  ["GET", SETTINGS, undefined],
  ["PUT", SETTINGS, { ask_timeout_minutes: 7 }],
  ["POST", `${SETTINGS}/secret/rotate`, undefined],
  ["GET", `${SETTINGS}/deliveries`, undefined],
  ["POST", "/business/shopping-orders", orderBody("ORD-OFF")],
  ["GET", "/business/shopping-orders/BK-000000000000", undefined],
  ["POST", "/business/shopping-orders/BK-000000000000/items/I1/decision", { decision: "accept" }],
  ["POST", "/business/sandbox/shopping-orders/BK-000000000000/stores/F1/unavailable", {}],
];

Deno.test("shopping fulfilment: every endpoint answers 403 SHOPPING_FULFILMENT_OFF until the operator enables it", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    for (const [method, path, body] of ENDPOINTS) {
      const r = await t.call(method, path, { key: b.api_key, body });
      assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "SHOPPING_FULFILMENT_OFF");
    }
    // Nothing changed while off: enabled, the settings are the defaults and no trip was booked.
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { shopping_fulfilment_enabled: true },
    });
    const on = await t.call("GET", SETTINGS, { key: b.api_key });
    assert.equal(on.status, 200);
    assert.equal(on.body.data.ask_timeout_minutes, 5);
    assert.equal(on.body.data.webhook_secret_set, false);
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
    // Switched off again, refused again.
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { shopping_fulfilment_enabled: false },
    });
    const off = await t.call("GET", SETTINGS, { key: b.api_key });
    assert.equal(off.body.code, "SHOPPING_FULFILMENT_OFF");
  }));

Deno.test("shopping fulfilment: the settings of 2.1 with their defaults; PUT changes them, per account", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const first = await t.call("GET", SETTINGS, { key: b.api_key });
    assert.deepEqual(first.body.data, {
      enabled: true,
      webhook_url: null,
      webhook_secret_set: false,
      sending: false,
      ask_timeout_minutes: 5,
      receipt_url_ttl_minutes: 1440,
      updated_at: null,
    });
    const put = await t.call("PUT", SETTINGS, {
      key: b.api_key,
      body: {
        webhook_url: "https://hooks.example.com/shopping",
        ask_timeout_minutes: 8,
        receipt_url_ttl_minutes: 10,
      },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.data.webhook_url, "https://hooks.example.com/shopping");
    assert.equal(put.body.data.ask_timeout_minutes, 8);
    assert.equal(put.body.data.receipt_url_ttl_minutes, 10);
    assert.equal(put.body.data.sending, false, "no secret yet");
    const tooShort = await t.call("PUT", SETTINGS, {
      key: b.api_key,
      body: { receipt_url_ttl_minutes: 9 },
    });
    assert.equal(tooShort.status, 422);
    assert.equal(tooShort.body.errors[0].path, "receipt_url_ttl_minutes");
    // Fields left out keep their value; null clears the URL.
    const cleared = await t.call("PUT", SETTINGS, { key: b.api_key, body: { webhook_url: null } });
    assert.equal(cleared.body.data.webhook_url, null);
    assert.equal(cleared.body.data.ask_timeout_minutes, 8);
    // Another account's settings are its own.
    const other = await shoppingBusiness(t);
    const theirs = await t.call("GET", SETTINGS, { key: other.api_key });
    assert.equal(theirs.body.data.ask_timeout_minutes, 5);
  }));

Deno.test("shopping fulfilment: a webhook_url that is not public HTTPS, or holds credentials, is 422 and nothing changes", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    await t.call("PUT", SETTINGS, {
      key: b.api_key,
      body: { webhook_url: "https://hooks.example.com/ok" },
    });
    for (
      const url of [
        "http://hooks.example.com/plain",
        "https://user:pass@hooks.example.com/x",
        "https://10.0.0.5/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://192.168.1.20/hook",
        "not a url",
      ]
    ) {
      const r = await t.call("PUT", SETTINGS, { key: b.api_key, body: { webhook_url: url } });
      assert.equal(r.status, 422, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.errors[0].path, "webhook_url", url);
    }
    const held = await t.call("GET", SETTINGS, { key: b.api_key });
    assert.equal(held.body.data.webhook_url, "https://hooks.example.com/ok");
  }));

Deno.test("shopping fulfilment: loopback webhook URLs only under ALLOW_LOOPBACK_WEBHOOKS", async () => {
  for (const allow of [true, false]) {
    await withTestEnv(async (t) => {
      (t.env as { allowLoopbackWebhooks: boolean }).allowLoopbackWebhooks = allow;
      const b = await shoppingBusiness(t);
      const r = await t.call("PUT", SETTINGS, {
        key: b.api_key,
        body: { webhook_url: "http://127.0.0.1:9/hook" },
      });
      assert.equal(r.status, allow ? 200 : 422, JSON.stringify(r.body));
    });
  }
});

Deno.test("shopping fulfilment: the secret is shf_, shown once, and replaced at once by a rotation", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    await t.call("PUT", SETTINGS, {
      key: b.api_key,
      body: { webhook_url: "https://hooks.example.com/s" },
    });
    const one = await t.call("POST", `${SETTINGS}/secret/rotate`, { key: b.api_key });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    const secret = one.body.data.webhook_secret as string;
    assert.match(secret, /^shf_[A-Za-z0-9_-]{20,}$/);
    const settings = await t.call("GET", SETTINGS, { key: b.api_key });
    assert.equal(settings.body.data.webhook_secret_set, true);
    assert.equal(settings.body.data.sending, true);
    // Shown once: no read answers it again.
    assert.ok(!JSON.stringify(settings.body).includes(secret));
    const two = await t.call("POST", `${SETTINGS}/secret/rotate`, { key: b.api_key });
    assert.notEqual(two.body.data.webhook_secret, secret);
    // Held sealed, never in clear.
    const held = await t.env.runtime.read(
      (await import("../../../actors/shopping/capability.ts")).shoppingCapabilityActor,
      b.id,
      b.id,
      { kind: "get" },
    );
    assert.ok(held.ok && held.reply.webhook_secret);
    assert.ok(!JSON.stringify(held.reply).includes(two.body.data.webhook_secret.slice(4)));
  }));

async function shoppingEvent(t: TestEnv, business: string, id: string, at: number) {
  const r = await t.env.runtime.ask(outboundEventActor, business, id, {
    kind: "create",
    event: {
      event_id: id,
      stream: "shopping_webhook",
      event_type: "shopping.store_collected",
      raw_body: JSON.stringify({ event: "shopping.store_collected", event_id: id }),
      recipient: { kind: "shopping" },
    },
    first_attempt: {
      attempt_id: `att_${id}`,
      outcome: { result: "failed", http_status: 503, error: null },
    },
  });
  assert.ok(r.ok, JSON.stringify(r));
  t.clock.advanceBy(at);
}

Deno.test("shopping fulfilment: deliveries list the account's shopping events with state, attempts and last error", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const other = await shoppingBusiness(t);
    await shoppingEvent(t, b.id, "evt_shop_1", 1_000);
    await shoppingEvent(t, b.id, "evt_shop_2", 1_000);
    await shoppingEvent(t, other.id, "evt_shop_3", 1_000);
    // A business webhook of the account is not a shopping event.
    await createOrder(t, b.api_key, orderBody("ORD-D"));
    await t.settle();
    const r = await t.call("GET", `${SETTINGS}/deliveries`, { key: b.api_key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data.map((d: { event_id: string }) => d.event_id), [
      "evt_shop_2",
      "evt_shop_1",
    ]);
    const d = r.body.data[0];
    assert.equal(d.event, "shopping.store_collected");
    assert.equal(d.state, "pending");
    assert.equal(d.attempts, 1);
    assert.equal(d.last_error, "HTTP 503");
    const theirs = await t.call("GET", `${SETTINGS}/deliveries`, { key: other.api_key });
    assert.deepEqual(theirs.body.data.map((x: { event_id: string }) => x.event_id), ["evt_shop_3"]);
  }));

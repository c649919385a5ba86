/**
 * Business API 6 "Events named": `shopping.basket_collected` goes to the business webhook (the URL
 * set with PATCH /business/profile), in the 2.7 envelope with the business's external_reference,
 * carrying a signed packing_slip_url; made once however often its outbox item is handled.
 */
import assert from "node:assert/strict";
import { shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { webhookEventId } from "../../../src/business/rules/webhook_envelope.ts";
import { verifyV1, verifyV2 } from "../../../src/domain/signature_verification.ts";
import { sendBasketWebhook } from "../../../src/shopping/flows/basket_webhook.ts";
import { setWebhookUrl } from "../../business/webhook_fixtures.ts";
import { type Delivery, startReceiver, until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { collect, fetchLink, recordLine, storeIdsOf } from "./events_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const PHOTO = Uint8Array.from({ length: 3_000 }, (_, i) => (i * 7 + 3) % 256);

/** The order's one store shopped: its line found, the store collected for 20.00. */
async function shopOneStore(t: TestEnv, business: string, reference: string) {
  const [s0] = await storeIdsOf(t, business, reference);
  await recordLine(t, business, s0!, "0-0", {
    outcome: "found",
    qty_found: 2,
    unit_price_paid_minor: 1_000,
    substitute: null,
  });
  await collect(t, business, s0!, { amount_minor: 2_000, photo: PHOTO });
}

async function basketOf(t: TestEnv, business: string, reference: string) {
  const got = await t.env.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  assert.ok(got.ok && got.reply?.basket);
  return got.reply.basket;
}

Deno.test("shopping basket: shopping.basket_collected reaches the business webhook once, in the 2.7 envelope with the external_reference and a signed packing slip link", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await shoppingBusiness(t);
      await setWebhookUrl(t, b, receiver.url);
      const made = await createOrder(
        t,
        b.api_key,
        orderBody("ORD-BW", { stores: 1, lines: 1 }, { external_reference: "merchant-ref-9" }),
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const reference = made.body.data.reference;
      const named = (): Delivery[] =>
        receiver.deliveries.filter((d) =>
          d.headers.get("X-Service-Event") === "shopping.basket_collected"
        );
      await shopOneStore(t, b.id, reference);
      await until(t, () => named().length > 0, "shopping.basket_collected on the business webhook");
      const basket = await basketOf(t, b.id, reference);
      const d = named()[0]!;
      const id = webhookEventId(b.id, basket.event_id);
      assert.equal(d.headers.get("X-Service-Delivery"), id);
      // spec: business 6: signed as every business webhook, with the whsec_ secret.
      assert.deepEqual(
        await verifyV1(b.webhook_secret, d.body, d.headers.get("X-Service-Signature")),
        {
          ok: true,
        },
      );
      const ts = Number(d.headers.get("X-Service-Timestamp"));
      assert.deepEqual(
        await verifyV2(b.webhook_secret, d.body, d.headers.get("X-Service-Signature-V2"), ts),
        { ok: true },
      );
      const body = JSON.parse(d.body);
      // spec: business 2.7: id, event, event_id, timestamp, the event data; external_reference.
      assert.deepEqual(
        [body.id, body.event, body.event_id, body.timestamp, body.external_reference],
        [
          id,
          "shopping.basket_collected",
          id,
          new Date(basket.collected_at).toISOString(),
          "merchant-ref-9",
        ],
      );
      assert.equal(body.test, false);
      assert.equal(body.data.reference, reference);
      assert.equal(body.data.trip_reference, reference);
      assert.equal(body.data.external_order_id, "ORD-BW");
      assert.equal(body.data.external_reference, "merchant-ref-9");
      assert.deepEqual(body.data.stores, [{ external_fulfilment_id: "F-0", status: "collected" }]);
      assert.equal(body.data.float.charged_amount, 20);
      // spec: business 6: "carries a signed packing_slip_url": it serves the slip as a PDF.
      const slip = await fetchLink(t, body.data.packing_slip_url);
      assert.equal(slip.status, 200);
      assert.equal(slip.type, "application/pdf");
      // The item handed over again (a crash before its removal) makes no second event.
      await sendBasketWebhook(t.env, { business_id: b.id, order_reference: reference });
      await t.settle();
      await until(t, () => receiver.effects.has(id), "the event's effect");
      assert.equal(new Set(named().map((x) => x.headers.get("X-Service-Delivery"))).size, 1);
      assert.equal(named().filter((x) => x.status === 200).length, 1);
      // The business webhook is not the shopping stream: no shopping webhook is set, none made.
      const shopping = await t.call("GET", "/business/shopping-fulfilment/deliveries", {
        key: b.api_key,
      });
      assert.deepEqual(shopping.body.data, []);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("shopping basket: without a business webhook URL no basket event is made, and the basket still settles", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const made = await createOrder(t, b.api_key, orderBody("ORD-BW0", { stores: 1, lines: 1 }));
    const reference = made.body.data.reference;
    await shopOneStore(t, b.id, reference);
    await until(t, async () => {
      const o = await t.call("GET", `/business/shopping-orders/${reference}`, { key: b.api_key });
      return o.body.data.float.reconciliation?.settled === true;
    }, "the basket settled");
    await t.settle();
    const listed = await t.call("GET", "/business/webhook-deliveries", { key: b.api_key });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const events = listed.body.data.map((e: { event: string }) => e.event);
    assert.ok(!events.includes("shopping.basket_collected"), JSON.stringify(events));
  }));

/** The business's BWP balance, as GET /business/wallet answers it. */
async function bwpBalance(t: TestEnv, key: string): Promise<number> {
  const r = await t.call("GET", "/business/wallet", { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.balances.find((x: { currency: string }) => x.currency === "BWP").balance;
}

Deno.test("shopping basket: the goods' debit that takes the wallet below the threshold sends wallet.low_balance", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await shoppingBusiness(t);
      await setWebhookUrl(t, b, receiver.url);
      const made = await createOrder(t, b.api_key, orderBody("ORD-LB", { stores: 1, lines: 1 }));
      assert.equal(made.status, 201, JSON.stringify(made.body));
      // The threshold 10.00 below the balance after the booking: the goods (20.00) cross it.
      const thresholdMinor = Math.round((await bwpBalance(t, b.api_key)) * 100) - 1_000;
      const threshold = thresholdMinor / 100, after = (thresholdMinor - 1_000) / 100;
      const p = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: { low_balance_threshold: threshold },
      });
      assert.equal(p.status, 200, JSON.stringify(p.body));
      await shopOneStore(t, b.id, made.body.data.reference);
      const low = () =>
        receiver.deliveries.map((d) => JSON.parse(d.body))
          .filter((x) => x.event === "wallet.low_balance");
      // spec: business 6 "wallet fell below the configured threshold", whatever the debit was for.
      await until(t, () => low().length > 0, "wallet.low_balance");
      await t.settle();
      await t.env.pump();
      assert.equal(new Set(low().map((x) => x.id)).size, 1, "sent once");
      assert.deepEqual(low()[0].data, { currency: "BWP", balance: after, threshold });
      assert.equal(await bwpBalance(t, b.api_key), after);
    } finally {
      await receiver.close();
    }
  }));

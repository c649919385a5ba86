import assert from "node:assert/strict";
import { verifyV2 } from "../../../src/domain/signature_verification.ts";
import { handleShoppingItem } from "../../../src/shopping/flows/events.ts";
import { pdfText } from "../../helpers/pdf.ts";
import {
  advance,
  type Delivery,
  startReceiver,
  until,
  untilRecorded,
} from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { acceptAs, act, pngFile } from "../../helpers/driver_trips.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { collect, fetchLink, recordLine, storeIdsOf } from "./events_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const SETTINGS = "/business/shopping-fulfilment";
const PHOTO = Uint8Array.from({ length: 3_000 }, (_, i) => (i * 7 + 3) % 256);
const SHOPPING_HEADERS = [
  "x-service-delivery",
  "x-service-event",
  "x-service-signature-v2",
  "x-service-timestamp",
];

async function balance(t: TestEnv, key: string): Promise<number> {
  const w = await t.call("GET", "/business/wallet", { key });
  return w.body.data.balances.find((b: { currency: string }) => b.currency === "BWP").balance;
}

/**
 * Through the driver app and the customer's route: store 0 has one line found and one substituted
 * under `ask` and accepted, and is collected with a receipt photo; store 1 is unavailable.
 */
async function shopTheOrder(t: TestEnv, o: { business: string; key: string; reference: string }) {
  const driver = await createPoolDriver(t);
  await acceptAs(t, o.business, o.reference, driver.id);
  const trip = { reference: o.reference, driver };
  assert.equal((await act(t, trip, "arrive_pickup")).status, 200);
  // The basket is the trip's handover: nothing to pick up before every store is finished.
  const early = await act(t, trip, "pick_up", { force_reason: "no label" });
  assert.equal(early.body.code, "awaiting_handover", JSON.stringify(early.body));
  const shop = async (path: string, body: unknown) => {
    const r = await t.call("POST", `/driver/shopping/${o.reference}/stores/${path}`, {
      bearer: driver.token,
      body,
    });
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  };
  await shop("F-0/items/0-0", {
    idempotency_key: "l0",
    outcome: "found",
    qty_found: 2,
    unit_price_paid: 9.75,
  });
  await shop("F-0/items/0-1", {
    idempotency_key: "l1",
    outcome: "substituted",
    qty_found: 1,
    unit_price_paid: 12,
    substitute: { name: "Other brand", barcode: "6001", unit_price: 12 },
  });
  const decided = await t.call(
    "POST",
    `/business/shopping-orders/${o.reference}/items/0-1/decision`,
    { key: o.key, body: { decision: "accept" } },
  );
  assert.equal(decided.status, 200, JSON.stringify(decided.body));
  const form = new FormData();
  form.set("idempotency_key", "c0");
  form.set("collected_amount", "31.50");
  form.set("receipt_photo", pngFile("receipt.png"));
  await shop("F-0/collect", form);
  await shop("F-1/unavailable", { idempotency_key: "u1" });
  return trip;
}

function events(deliveries: Delivery[], name: string) {
  return deliveries.filter((d) => d.headers.get("X-Service-Event") === name);
}

async function verified(secret: string, d: Delivery) {
  const ts = Number(d.headers.get("X-Service-Timestamp"));
  return await verifyV2(secret, d.body, d.headers.get("X-Service-Signature-V2"), ts);
}

Deno.test("shopping events: signed V2 only to the shopping webhook; a retry keeps X-Service-Delivery and signs with the rotated secret; links, float and slip", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver((h) => h.get("X-Service-Delivery"));
    try {
      const b = await shoppingBusiness(t);
      const key = b.api_key;
      await t.call("PUT", SETTINGS, {
        key,
        body: { webhook_url: receiver.url, receipt_url_ttl_minutes: 10 },
      });
      const first = (await t.call("POST", `${SETTINGS}/secret/rotate`, { key })).body.data;
      const made = await createOrder(
        t,
        key,
        orderBody("ORD-EV", { shopping: { substitution_preference: "ask" } }),
      );
      const reference = made.body.data.reference;
      const early = await t.call("GET", `/business/trips/${reference}/packing-slip`, { key });
      assert.equal(early.status, 409);
      assert.equal(early.body.code, "basket_not_collected");
      assert.match(early.body.message, /stores finished: 0 of 2/);
      const before = await balance(t, key);
      receiver.failFirst = 1;
      const trip = await shopTheOrder(t, { business: b.id, key, reference });
      // Four events (an attempt may be made twice): the basket's among them, made once the trip
      // was marked ready.
      const ids = () =>
        new Set(receiver.deliveries.map((d) => d.headers.get("X-Service-Delivery")));
      await until(t, () => ids().size >= 4, "four events' first attempts");
      // The basket collected (its event is made after the trip is marked ready): picked up.
      const picked = await act(t, trip, "pick_up", { idempotency_key: "p2", force_reason: "x" });
      assert.equal(picked.status, 200, JSON.stringify(picked.body));
      // The retry is scheduled from the recorded attempt: wait for each record, then move on.
      for (const d of receiver.deliveries) {
        await untilRecorded(t, b.id, d.headers.get("X-Service-Delivery")!, 1);
      }
      // spec: shopping 4: a rotation is in force at once, for retries of older events too.
      const second = (await t.call("POST", `${SETTINGS}/secret/rotate`, { key })).body.data;
      await advance(t, 60);
      await until(
        t,
        () => receiver.deliveries.filter((d) => d.status === 200).length >= 4,
        "four retries delivered",
      );
      const byId = Map.groupBy(receiver.deliveries, (d) => d.headers.get("X-Service-Delivery"));
      assert.equal(byId.size, 4);
      for (const [id, sent] of byId) {
        // The first attempt (refused by the receiver) and the retry it took.
        const one = sent[0], two = sent.find((d) => d.status === 200);
        assert.equal(one?.status, 500);
        assert.ok(id?.startsWith("evt_"));
        const names = [...two!.headers.keys()].filter((h) => h.startsWith("x-service-")).sort();
        assert.deepEqual(names, SHOPPING_HEADERS, "V2 only, the headers of shopping 6");
        // spec: shopping 6: links valid from receipt, so a retry renews them; else byte for byte.
        const masked = (body: string) => body.replace(/\/api\/shopping\/links\/[\w.-]+/g, "L");
        assert.equal(masked(one!.body), masked(two!.body), "the same event, byte for byte");
        assert.equal(JSON.parse(two!.body).event_id, id);
        assert.deepEqual(await verified(first.webhook_secret, one!), { ok: true });
        assert.deepEqual(await verified(second.webhook_secret, two!), { ok: true });
        assert.equal((await verified(first.webhook_secret, two!)).ok, false);
      }
      await checkEvents(t, { key, reference, before, deliveries: receiver.deliveries });
    } finally {
      await receiver.close();
    }
  }, { publicUrl: "https://shop.example" }));

async function checkEvents(
  t: TestEnv,
  o: { key: string; reference: string; before: number; deliveries: Delivery[] },
) {
  const ok = o.deliveries.filter((d) => d.status === 200);
  const asked = JSON.parse(events(ok, "shopping.decision_required")[0]!.body);
  assert.equal(asked.item.external_item_id, "0-1");
  assert.equal(asked.item.substitute.name, "Other brand");
  assert.equal(asked.trip_reference, o.reference);
  const stores = events(ok, "shopping.store_collected").map((d) => JSON.parse(d.body));
  const got = stores.find((s) => s.store.status === "collected");
  const gone = stores.find((s) => s.store.status === "unavailable");
  assert.deepEqual(Object.keys(got).sort(), [
    "at",
    "event",
    "event_id",
    "external_order_id",
    "items",
    "store",
    "trip_reference",
  ]);
  assert.equal(got.external_order_id, "ORD-EV");
  assert.deepEqual({ ...got.store, receipt_photo_url: typeof got.store.receipt_photo_url }, {
    external_fulfilment_id: "F-0",
    external_store_id: "S-0",
    status: "collected",
    estimated_amount: 40,
    collected_amount: 31.5,
    currency: "BWP",
    receipt_photo_url: "string",
  });
  assert.deepEqual(got.items[1], {
    external_item_id: "0-1",
    outcome: "substituted",
    qty_requested: 2,
    qty_found: 1,
    unit_price_paid: 12,
    substitute: { name: "Other brand", barcode: "6001", unit_price: 12 },
    decided_by: "customer",
  });
  assert.match(got.at, /^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:\d\d)$/);
  assert.equal(gone.store.receipt_photo_url, null);
  assert.equal(gone.store.collected_amount, null);
  // spec: shopping 6: the link serves the bytes uploaded, with their type.
  const receipt = await fetchLink(t, got.store.receipt_photo_url);
  assert.equal(receipt.status, 200);
  assert.equal(receipt.type, "image/png");
  assert.deepEqual(receipt.bytes, new Uint8Array(await pngFile("receipt.png").arrayBuffer()));
  const url: string = got.store.receipt_photo_url;
  assert.ok(url.startsWith("https://shop.example/api/shopping/links/"));
  // The character replaced is always changed (A for anything but A, else B).
  const altered = url.slice(0, -3) + (url.at(-3) === "A" ? "B" : "A") + url.slice(-2);
  assert.notEqual(altered, url);
  const refused = await t.app.request(new URL(altered).pathname);
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).code, "link_invalid");
  await checkBasket(t, { ...o, receiptUrl: url, ok });
}

async function checkBasket(
  t: TestEnv,
  o: { key: string; reference: string; before: number; receiptUrl: string; ok: Delivery[] },
) {
  const basket = JSON.parse(events(o.ok, "shopping.basket_collected")[0]!.body);
  // spec: business 2.7: the business's external_reference (here defaulted to the order id).
  assert.equal(basket.external_reference, "ORD-EV");
  assert.equal(basket.trip_reference, o.reference);
  assert.deepEqual(basket.float, {
    currency: "BWP",
    purchase_amount: 80,
    estimated_amount: 80,
    spent_amount: 31.5,
    difference: -48.5,
    float_returned: 48.5,
    // 0-1 found one of two at 10.00; store 1's two lines of 2 x 10.00 unavailable.
    refund_amount: 50,
    charged_amount: 31.5,
  });
  const slip = await fetchLink(t, basket.packing_slip_url);
  assert.equal(slip.status, 200);
  assert.equal(slip.type, "application/pdf");
  assert.equal(new TextDecoder().decode(slip.bytes.subarray(0, 5)), "%PDF-");
  // spec: business 4.1: ordered against packed, the substitution, what is missing (refunded).
  const text = await pdfText(slip.bytes);
  for (const part of ["Item 0 0", "Other brand", "Missing (refunded)", "2 x Item 1 1"]) {
    assert.ok(text.includes(part), `${part} in ${text}`);
  }
  const order = await t.call("GET", `/business/shopping-orders/${o.reference}`, { key: o.key });
  const r = order.body.data.float.reconciliation;
  assert.equal(r.spent_amount, 31.5);
  assert.equal(r.refund_amount, 50);
  assert.equal(r.settled, true);
  assert.deepEqual(r.stores.map((s: { status: string }) => s.status), ["collected", "unavailable"]);
  // What the business is charged follows exactly: the goods as spent, once.
  assert.equal(Math.round((o.before - await balance(t, o.key)) * 100), 3_150);
  const direct = await t.app.request(`/api/business/trips/${o.reference}/packing-slip`, {
    headers: { "X-Business-API-Key": o.key },
  });
  assert.equal(direct.status, 200);
  assert.equal(direct.headers.get("Content-Type"), "application/pdf");
  await direct.body?.cancel();
  // Ten minutes from the attempt that carried it, the receipt link has expired.
  await advance(t, 11 * 60);
  const expired = await t.app.request(new URL(o.receiptUrl).pathname);
  assert.equal(expired.status, 403);
  assert.equal((await expired.json()).code, "link_expired");
  const listed = await t.call("GET", `${SETTINGS}/deliveries`, { key: o.key });
  assert.equal(listed.body.data.length, 4);
  assert.ok(listed.body.data.every((d: { state: string }) => d.state === "delivered"));
}

Deno.test("shopping events: without a webhook URL none are made, yet the float reconciles and is charged once", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const made = await createOrder(t, b.api_key, orderBody("ORD-Q", { stores: 1, lines: 1 }));
    const reference = made.body.data.reference;
    const before = await balance(t, b.api_key);
    const [s0] = await storeIdsOf(t, b.id, reference);
    await recordLine(t, b.id, s0!, "0-0", {
      outcome: "found",
      qty_found: 2,
      unit_price_paid_minor: 1_005,
      substitute: null,
    });
    await collect(t, b.id, s0!, { amount_minor: 2_010, photo: PHOTO });
    await until(t, async () => {
      const o = await t.call("GET", `/business/shopping-orders/${reference}`, { key: b.api_key });
      return o.body.data.float.reconciliation?.settled === true;
    }, "the basket settled");
    assert.equal(Math.round((before - await balance(t, b.api_key)) * 100), 2_010);
    // The item handed over again (a crash before its removal) repeats nothing: one debit.
    await handleShoppingItem(t.env, {
      kind: "store_finished",
      business_id: b.id,
      order_reference: reference,
      store_id: s0!,
      event_id: "evt_again",
    });
    assert.equal(Math.round((before - await balance(t, b.api_key)) * 100), 2_010);
    await t.settle();
    const listed = await t.call("GET", `${SETTINGS}/deliveries`, { key: b.api_key });
    assert.deepEqual(listed.body.data, []);
    // Another account sees no order of this one.
    const other = await shoppingBusiness(t);
    const theirs = await t.call("GET", `/business/shopping-orders/${reference}`, {
      key: other.api_key,
    });
    assert.equal(theirs.status, 404);
  }));

import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { busyAsks, commandKind, holdAsk, whileFlaky } from "../../helpers/faults.ts";
import { acceptAs, act } from "../../helpers/driver_trips.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { until } from "../../helpers/receiver.ts";
import { balanceOf } from "../business/trips_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness, store } from "./shopping_fixtures.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

Deno.test("shopping orders: 201 with the trip reference; GET shows every store and line, the float, the trip", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const body = orderBody(4711, { stores: 2, lines: 3 }, { purchase_amount: 150 });
    body.shopping.stores[1]!.items[0]!.external_item_id = 99 as unknown as string;
    const r = await createOrder(t, b.api_key, body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const o = r.body.data;
    assert.match(o.reference, /^BK-[0-9A-Z]{12}$/);
    // spec: shopping 2.2: ids come back with the JSON type sent; the reference defaults to it.
    assert.equal(o.external_order_id, 4711);
    assert.equal(o.external_reference, "4711");
    assert.equal(o.stores[1].items[0].external_item_id, 99);
    assert.equal(o.stores[0].items[0].external_item_id, "0-0");
    assert.deepEqual(o.float, {
      currency: "BWP",
      purchase_amount: 150,
      estimated_amount: 120,
      collected_amount: null,
      reconciliation: null,
    });
    assert.equal(o.substitution_preference, "refund");
    assert.equal(o.trip.reference, o.reference);
    assert.equal(o.trip.status, "pending");
    const got = await t.call("GET", `/business/shopping-orders/${o.reference}`, { key: b.api_key });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, o);
    assert.deepEqual(
      got.body.data.stores.map((
        s: { items: unknown[]; status: string },
      ) => [s.items.length, s.status]),
      [[3, "pending"], [3, "pending"]],
    );
    const trip = await t.call("GET", `/business/trips/${o.reference}`, { key: b.api_key });
    assert.equal(trip.body.data.shop_deliver, true);
    assert.equal(trip.body.data.passenger_name, "Neo Kgosi");
  }));

Deno.test("shopping orders: external_store_id and external_location_id are kept exactly as received", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const body = orderBody("ORD-IDS", { stores: 2, lines: 1 });
    // spec: shopping 2.2: "External ids are stored as received and echoed with the JSON type sent".
    body.shopping.stores[0]!.external_store_id = " 0042 ";
    (body.shopping.stores[1] as { external_store_id: unknown }).external_store_id = 42;
    (body.shopping as Record<string, unknown>).external_location_id = "MALL 7 ";
    const r = await createOrder(t, b.api_key, body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const got = await t.call("GET", `/business/shopping-orders/${r.body.data.reference}`, {
      key: b.api_key,
    });
    assert.equal(got.status, 200);
    const ids = got.body.data.stores.map((s: { external_store_id: unknown }) =>
      s.external_store_id
    );
    assert.deepEqual(ids, [" 0042 ", 42]);
    assert.equal(got.body.data.external_location_id, "MALL 7 ");
    // 64 characters are taken, the spaces counted as sent.
    const long = orderBody("ORD-IDS-64", { stores: 1, lines: 1 });
    long.shopping.stores[0]!.external_store_id = ` ${"s".repeat(62)} `;
    const taken = await createOrder(t, b.api_key, long);
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    assert.equal(taken.body.data.stores[0].external_store_id, ` ${"s".repeat(62)} `);
  }));

Deno.test("shopping orders: stores listed by sequence; a default sequence is array order", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const body = orderBody("ORD-SEQ", { stores: 0 }, {});
    body.shopping.stores = [store("a", 1, { sequence: 5 }), store("b", 1), store("c", 1)];
    const r = await createOrder(t, b.api_key, body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const ids = r.body.data.stores.map((s: { external_fulfilment_id: string }) =>
      s.external_fulfilment_id
    );
    assert.deepEqual(ids, ["F-b", "F-c", "F-a"]);
  }));

Deno.test("shopping orders: a repeat replays the first order (200), charged once", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const first = await createOrder(t, b.api_key, orderBody("ORD-R"));
    assert.equal(first.status, 201);
    const balance = await balanceOf(t, b.api_key);
    const again = await createOrder(t, b.api_key, orderBody("ORD-R"));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.reference, first.body.data.reference);
    assert.deepEqual(await balanceOf(t, b.api_key), balance);
    // The same external_reference with other details is a conflict; nothing changes.
    const other = await createOrder(t, b.api_key, orderBody("ORD-R", { lines: 3 }));
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "external_reference_conflict");
  }));

Deno.test("shopping orders: 20 concurrent creates of one external_order_id: one wins", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const answers = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          createOrder(t, b.api_key, orderBody("ORD-RACE", {}, { external_reference: `ref-${i}` })),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    assert.equal(created.length, 1, JSON.stringify(answers.map((a) => a.status)));
    const refused = answers.filter((a) => a.status === 409);
    assert.equal(refused.length, 19);
    for (const a of refused) {
      assert.equal(a.body.code, "duplicate_order");
      assert.match(a.body.message, /ORD-RACE/);
    }
    const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    await t.settle();
    const listed = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(listed.body.data.length, 1, JSON.stringify(trips.body));
    // The same body 20 times at once books one trip: the others replay or are told to retry.
    const same = await Promise.all(
      Array.from({ length: 20 }, () => createOrder(t, b.api_key, orderBody("ORD-SAME"))),
    );
    assert.equal(same.filter((a) => a.status === 201).length, 1);
    for (const a of same) assert.ok([200, 201, 409].includes(a.status), JSON.stringify(a.body));
    await t.settle();
    const after = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(after.body.data.length, 2);
    // A repeat that finds the order still booking, its trip booked meanwhile by the first
    // request (held before it marks the order booked), replays that booking.
    const held = holdAsk(t.env.runtime, commandKind("booked", "shopping_order"));
    const first = createOrder(t, b.api_key, orderBody("ORD-HELD"));
    await held.reached;
    const repeat = await createOrder(t, b.api_key, orderBody("ORD-HELD"));
    held.open();
    const made = await first;
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
    assert.equal(repeat.body.data.reference, made.body.data.reference);
  }));

Deno.test("shopping orders: a crash after the trip is booked leaves an order its trip's commit completes, without a retry (the booking sweep too)", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    // The process dies after the trip was booked (and charged), before the order is marked booked.
    const failed = await whileFlaky(t.env, {
      fails: commandKind("booked", "shopping_order"),
      times: Infinity,
    }, async () => {
      const cut = await createOrder(t, b.api_key, orderBody("ORD-CUT"));
      assert.equal(cut.status, 500, JSON.stringify(cut.body));
    });
    assert.equal(failed, 1);
    await t.settle();
    const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(trips.body.data.length, 1, JSON.stringify(trips.body));
    const reference = trips.body.data[0].reference;
    assert.notDeepEqual(await balanceOf(t, b.api_key), before);
    // spec: shopping 1.1, 2.2: the charged trip's order is there for its shopper and the merchant.
    const order = await t.call("GET", `/business/shopping-orders/${reference}`, {
      key: b.api_key,
    });
    assert.equal(order.status, 200, JSON.stringify(order.body));
    assert.equal(order.body.data.reference, reference);
    // A retry of the same body replays it, charged once.
    const charged = await balanceOf(t, b.api_key);
    const again = await createOrder(t, b.api_key, orderBody("ORD-CUT"));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.reference, reference);
    assert.deepEqual(await balanceOf(t, b.api_key), charged);
    // The order is too busy when the trip's commit completes it: its outbox hands it over again.
    const refused = busyAsks(t.env.runtime, commandKind("booked", "shopping_order"), 2);
    const busy = await createOrder(t, b.api_key, orderBody("ORD-BUSY"));
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    await t.env.runtime.outboxesIdle();
    assert.equal(refused(), 2);
    outboxRetryDue(t.clock, 2);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    await t.settle();
    const all = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    const made = all.body.data.find((x: { reference: string }) => x.reference !== reference);
    const busyOrder = await t.call("GET", `/business/shopping-orders/${made.reference}`, {
      key: b.api_key,
    });
    assert.equal(busyOrder.status, 200, JSON.stringify(busyOrder.body));
    // The process dies before the trip is created: the booking's sweep completes (and charges)
    // the trip, and with it the order.
    await whileFlaky(
      t.env,
      { fails: commandKind("create", "business_trip"), times: Infinity },
      async () => {
        const cut = await createOrder(t, b.api_key, orderBody("ORD-SWEPT"));
        assert.equal(cut.status, 500, JSON.stringify(cut.body));
      },
    );
    t.clock.advanceBy(31_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    await t.settle();
    const listed = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    const swept = listed.body.data.find((x: { reference: string }) =>
      x.reference !== reference && x.reference !== made.reference
    );
    assert.ok(swept, JSON.stringify(listed.body));
    const sweptOrder = await t.call("GET", `/business/shopping-orders/${swept.reference}`, {
      key: b.api_key,
    });
    assert.equal(sweptOrder.status, 200, JSON.stringify(sweptOrder.body));
  }));

Deno.test("shopping orders: a refused booking leaves the order id free", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "0");
    const poor = await createOrder(t, b.api_key, orderBody("ORD-POOR"));
    assert.equal(poor.status, 422);
    assert.equal(poor.body.code, "insufficient_balance");
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000.00", currency: "BWP", reference: "fund-later" },
    });
    const again = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-POOR", {}, { external_reference: "other-ref" }),
    );
    assert.equal(again.status, 201, JSON.stringify(again.body));
  }));

Deno.test("shopping orders: an order refused for a taken external_reference leaves its external_order_id free", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const plain = await t.call("POST", "/business/book", {
      key: b.api_key,
      body: { ...orderBody("x"), type: "parcel", shopping: undefined, external_reference: "ORD-X" },
    });
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    // spec: business appendix 1: the reference is the plain trip's; nothing is booked.
    for (let n = 0; n < 2; n++) {
      const refused = await createOrder(t, b.api_key, orderBody("ORD-X"));
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.code, "external_reference_conflict");
    }
    // A refused booking leaves the order id free: the same order under its own reference books.
    const retry = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-X", {}, { external_reference: "ORD-X-shop" }),
    );
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.notEqual(retry.body.data.reference, plain.body.data.reference);
    // Now the id is the booked order's, and the plain trip is no shopping order.
    const again = await createOrder(t, b.api_key, orderBody("ORD-X"));
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "duplicate_order");
    assert.equal(again.body.reference, retry.body.data.reference);
    const asOrder = await t.call("GET", `/business/shopping-orders/${plain.body.data.reference}`, {
      key: b.api_key,
    });
    assert.equal(asOrder.status, 404);
    await t.settle();
    const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(trips.body.data.length, 2, JSON.stringify(trips.body));
  }));

Deno.test("shopping orders: another account or an unknown reference is 404", () =>
  withTestEnv(async (t) => {
    const a = await shoppingBusiness(t);
    const other = await shoppingBusiness(t);
    const r = await createOrder(t, a.api_key, orderBody("ORD-A"));
    const ref = r.body.data.reference;
    const seen = await t.call("GET", `/business/shopping-orders/${ref}`, { key: other.api_key });
    assert.equal(seen.status, 404);
    assert.equal(seen.body.code, "not_found");
    const unknown = await t.call("GET", "/business/shopping-orders/BK-000000000000", {
      key: a.api_key,
    });
    assert.equal(unknown.status, 404);
    // A plain trip of the account is no shopping order.
    const plain = await t.call("POST", "/business/book", {
      key: a.api_key,
      body: { ...orderBody("x"), type: "parcel", shopping: undefined },
    });
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    const asOrder = await t.call("GET", `/business/shopping-orders/${plain.body.data.reference}`, {
      key: a.api_key,
    });
    assert.equal(asOrder.status, 404);
    // The other account may use the same external_order_id: ids are per account.
    const mine = await createOrder(t, other.api_key, orderBody("ORD-A"));
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
  }));

// spec: business 4.1 ready, shopping 1.1: one trip delivers the whole basket, so the business
// cannot release the shopper to collect it while a store is still to buy.
Deno.test("shopping orders: POST /business/trip/{reference}/ready is 409 basket_not_collected until every store is finished; the basket then releases the driver", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const made = await createOrder(t, b.api_key, orderBody("ORD-READY"));
    const reference = made.body.data.reference as string;
    const driver = await createPoolDriver(t);
    await acceptAs(t, b.id, reference, driver.id);
    const trip = { reference, driver };
    assert.equal((await act(t, trip, "arrive_pickup")).status, 200);
    const ready = () => t.call("POST", `/business/trip/${reference}/ready`, { key: b.api_key });
    const early = await ready();
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "basket_not_collected");
    assert.match(early.body.message, /stores finished: 0 of 2/);
    const held = await act(t, trip, "pick_up", { idempotency_key: "p1", force_reason: "x" });
    assert.equal(held.body.code, "awaiting_handover", JSON.stringify(held.body));
    for (const s of ["F-0", "F-1"]) {
      const r = await t.call("POST", `/driver/shopping/${reference}/stores/${s}/unavailable`, {
        bearer: driver.token,
        body: { idempotency_key: `u-${s}` },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    await until(t, async () => {
      const o = await t.call("GET", `/business/shopping-orders/${reference}`, { key: b.api_key });
      return o.body.data.float.reconciliation?.settled === true;
    }, "the basket collected");
    // Marked ready by the basket: the driver collects it, and ready again is harmless.
    const picked = await act(t, trip, "pick_up", { idempotency_key: "p2", force_reason: "x" });
    assert.equal(picked.status, 200, JSON.stringify(picked.body));
    assert.equal((await ready()).status, 200);
  }));

// spec: business 4.1 pick list: items by store then aisle, quantity, barcode or SKU, the
// substitution preference; never prices. A shopping order's items are its stores' lines.
Deno.test("shopping orders: the trip's pick list lists every store's lines with barcode and preference, never prices", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const body = orderBody("ORD-PICK", { shopping: { substitution_preference: "match" } });
    Object.assign(body.shopping.stores[1]!.items[0]!, { barcode: "6009876543210" });
    const made = await createOrder(t, b.api_key, body);
    assert.equal(made.status, 201, JSON.stringify(made.body).slice(0, 300));
    const r = await t.app.request(`/api/business/trips/${made.body.data.reference}/pick-list`, {
      headers: { "X-Business-API-Key": b.api_key },
    });
    assert.equal(r.status, 200);
    const text = await pdfText(new Uint8Array(await r.arrayBuffer()));
    for (const part of ["Store 0", "Store 1", "Item 0 0", "Item 1 1", "6009876543210", "match"]) {
      assert.ok(text.includes(part), `${part} in ${text}`);
    }
    assert.doesNotMatch(text, /No items were sent/);
    assert.doesNotMatch(text, /\d+\.\d\d|BWP/);
  }));

Deno.test("shopping orders: GET of an order whose read (or its trip's) meets a busy actor answers 503 actor_busy, not 404 nor the order without its trip", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const created = await createOrder(t, b.api_key, orderBody("ORD-BUSY"));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const path = `/business/shopping-orders/${created.body.data.reference}`;
    for (const type of ["shopping_order", "business_trip"]) {
      let busy = { status: 0, body: {} as { code?: string } };
      const failed = await whileFlaky(t.env, {
        fails: commandKind("get", type),
        refuse: true,
      }, async () => {
        busy = await t.call("GET", path, { key: b.api_key });
      });
      assert.equal(failed, 1, type);
      assert.equal(busy.status, 503, `${type}: ${JSON.stringify(busy.body)}`);
      assert.equal(busy.body.code, "actor_busy", type);
    }
    const got = await t.call("GET", path, { key: b.api_key });
    assert.equal(got.status, 200);
    assert.equal(got.body.data.trip.reference, created.body.data.reference);
  }));

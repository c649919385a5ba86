/** POST /business/book (Business API 2.1, 7): each field's format, refused 422 naming it. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { JSON_DEPTH_MAX } from "../../../src/limits.ts";
import { balanceOf, book, bwp, fundedBusiness, PARCEL, RIDE } from "./trips_fixtures.ts";

Deno.test("book: a scheduled_at on a day the calendar lacks or not in ISO 8601 is refused 422 naming it, nothing stored", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const year = new Date(t.clock.now()).getUTCFullYear() + 1;
    for (
      const at of [
        `${year}-02-30T10:00:00+02:00`,
        `${year}-04-31T10:00:00`,
        `${year}-12-02T24:00:00Z`,
        `12/02/${year} 10:00 +02:00`,
        `Thu, 02 Dec ${year} 10:00:00 +0200`,
      ]
    ) {
      const r = await book(t, b.api_key, { ...PARCEL, scheduled_at: at, external_reference: at });
      assert.equal(r.status, 422, `${at}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["scheduled_at"]);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
  }));

Deno.test("book: a test marker in the store's name, an item's store or substitute, a goods line or a ride's dropoff is refused on live, naming it", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const item = (extra: Record<string, unknown>) => ({
      order_payload: { store_name: "Molapo", items: [{ name: "Bread", qty: 1, ...extra }] },
    });
    const box = { length_cm: 30, width_cm: 20, height_cm: 10 };
    const places: [string, (text: string) => Record<string, unknown>][] = [
      ["order_payload.store_name", (x) => ({ ...PARCEL, order_payload: { store_name: x } })],
      ["order_payload.items.0.store", (x) => ({ ...PARCEL, ...item({ store: x }) })],
      ["order_payload.items.0.substitute", (x) => ({ ...PARCEL, ...item({ substitute: x }) })],
      ["goods.0.description", (x) => ({ ...PARCEL, goods: [{ ...box, description: x }] })],
      ["dropoff_address", (x) => ({ ...RIDE, dropoff_address: x })],
      // A delivery sent with dropoff_* alone is named by the field it came in.
      ["dropoff_address", (x) => {
        const { dest_address: _a, dest_lat, dest_lng, ...rest } = PARCEL;
        return { ...rest, dropoff_address: x, dropoff_lat: dest_lat, dropoff_lng: dest_lng };
      }],
    ];
    for (const [path, body] of places) {
      const r = await book(t, b.api_key, body("__TEST 1"));
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "test_booking_refused", path);
      assert.equal(r.body.path, path);
      assert.ok(r.body.message.includes(path), `${r.body.message} names ${path}`);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    // A substitute welcomed (true) and plain texts book.
    const fine = await book(t, b.api_key, {
      ...PARCEL,
      ...item({ substitute: true, store: "Molapo" }),
      goods: [{ ...box, description: "Sofa" }],
    });
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
  }));

Deno.test("book: the note is kept and echoed alike on 201, the list and the read; without one it is null", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const r = await book(t, b.api_key, { ...PARCEL, note: "Gate code 1234, ring twice" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const plain = await book(t, b.api_key, PARCEL);
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    await t.settle();
    const list = await t.call("GET", "/business/trips", { key: b.api_key });
    for (const [booked, note] of [[r, "Gate code 1234, ring twice"], [plain, null]] as const) {
      const reference = booked.body.data.reference;
      const read = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
      const listed = list.body.data.find((x: { reference: string }) => x.reference === reference);
      for (const trip of [booked.body.data, read.body.data, listed]) assert.equal(trip.note, note);
    }
  }));

Deno.test("book: an order_payload.external_reference other than the booking's is refused 422 naming it, not replaced", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (
      const body of [
        { ...PARCEL, order_payload: { external_reference: "ORD-NESTED" } },
        { ...PARCEL, external_reference: "ORD-1", order_payload: { external_reference: "ORD-2" } },
      ]
    ) {
      const r = await book(t, b.api_key, body);
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [
        "order_payload.external_reference",
      ]);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    // The same reference in both places books, and the reference stayed free.
    const same = await book(t, b.api_key, {
      ...PARCEL,
      external_reference: "ORD-1",
      order_payload: { store_name: "Molapo", external_reference: "ORD-1" },
    });
    assert.equal(same.status, 201, JSON.stringify(same.body));
    assert.equal(same.body.data.order_payload.external_reference, "ORD-1");
  }));

Deno.test("book: an item's unit_price finer than the zone's currency is refused 422 naming it, as cod_amount is", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const items = [{ name: "Bread", qty: 1, unit_price: 12.5 }, {
      name: "Milk",
      qty: 2,
      unit_price: 9.995,
    }];
    const r = await book(t, b.api_key, {
      ...PARCEL,
      cod_amount: 10.001,
      order_payload: { store_name: "Molapo", items },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), [
      "cod_amount",
      "order_payload.items.1.unit_price",
    ]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const fine = await book(t, b.api_key, {
      ...PARCEL,
      order_payload: { items: [items[0], { ...items[1], unit_price: 9.99 }] },
    });
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
  }));

Deno.test("book: a ride with a segment (a delivery's: parcel or cargo) is refused 422 naming segment, nothing stored", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (const segment of ["cargo", "parcel"]) {
      const r = await book(t, b.api_key, { ...RIDE, segment });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["segment"]);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const cargo = await book(t, b.api_key, { ...PARCEL, segment: "cargo" });
    assert.equal(cargo.status, 201, JSON.stringify(cargo.body));
    assert.equal(cargo.body.data.segment, "cargo");
  }));

Deno.test("book: a body the schema refuses also names its past scheduled_at, unknown parcel_size and vehicle and inexact amount, in one 422", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const r = await book(t, b.api_key, {
      ...PARCEL,
      pickup_lat: 100,
      scheduled_at: "2000-01-01T10:00:00",
      parcel_size: "enormous",
      vehicle_type_id: 999_999,
      cod_amount: 10.001,
      order_payload: { items: [{ name: "Milk", qty: 1, unit_price: 9.995 }] },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), [
      "cod_amount",
      "order_payload.items.0.unit_price",
      "parcel_size",
      "pickup_lat",
      "scheduled_at",
      "vehicle_type_id",
    ]);
    // A field of the wrong kind is the schema's alone: named once.
    const wrongKind = await book(t, b.api_key, { ...PARCEL, pickup_lat: 100, scheduled_at: 5 });
    assert.deepEqual(wrongKind.body.errors.map((e: { path: string }) => e.path).sort(), [
      "pickup_lat",
      "scheduled_at",
    ]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
  }));

Deno.test("book: an order_payload nested past JSON_DEPTH_MAX is refused 422 naming where, nothing charged; the list still answers", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    let deep: unknown = 1;
    for (let i = 0; i < 3_000; i++) deep = { a: deep };
    const r = await book(t, b.api_key, { ...PARCEL, order_payload: deep });
    assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
    assert.equal(r.body.code, "validation_failed");
    const [error] = r.body.errors;
    assert.equal(error.path, `order_payload${".a".repeat(JSON_DEPTH_MAX - 1)}`);
    assert.match(error.message, new RegExp(`more than ${JSON_DEPTH_MAX} levels`));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    // As deep as the bound allows is kept as sent.
    let fits: unknown = 1;
    for (let i = 0; i < JSON_DEPTH_MAX - 1; i++) fits = { a: fits };
    const kept = await book(t, b.api_key, { ...PARCEL, order_payload: fits });
    assert.equal(kept.status, 201, JSON.stringify(kept.body).slice(0, 300));
    await t.settle();
    assert.equal((await t.call("GET", "/business/trips", { key: b.api_key })).status, 200);
  }));

Deno.test("book: a number too large for a double (1e400, read as Infinity) is named as not finite", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const text = JSON.stringify(PARCEL).replace(
      `"pickup_lat":${PARCEL.pickup_lat}`,
      '"pickup_lat":1e400',
    );
    const res = await t.app.request("/api/business/book", {
      method: "POST",
      headers: { "X-Business-API-Key": b.api_key, "Content-Type": "application/json" },
      body: text,
    });
    const body = await res.json();
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.deepEqual(body.errors, [{ path: "pickup_lat", message: "not a finite number" }]);
  }));

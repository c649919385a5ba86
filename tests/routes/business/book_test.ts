import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, bwp, fundedBusiness, PARCEL, RIDE } from "./trips_fixtures.ts";

Deno.test("book: 201 with the trip of 2.2, charged once, read by id or reference; another business 404", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const r = await book(t, b.api_key, {
      ...PARCEL,
      external_reference: "ORD-1",
      order_payload: { store_name: "Molapo", items: [{ name: "Bread", qty: 2 }] },
      cod_amount: 150,
      delivery_code: "4411",
      age_verification_required: true,
      expense_code: "OPS",
      prep_minutes: 20,
      handover_required: true,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const trip = r.body.data;
    assert.equal(trip.id, 1);
    assert.match(trip.reference, /^BK-[0-9A-Z]{12}$/);
    assert.equal(trip.status, "pending");
    assert.equal(trip.billing_currency, "BWP");
    assert.equal(trip.is_test, false);
    assert.equal(trip.test, false);
    assert.equal(trip.order_payload.external_reference, "ORD-1");
    assert.equal(trip.cod_amount, 150);
    assert.equal(trip.vehicle_class.id, 1);
    assert.ok(trip.tracking_url.includes("/trip-track/"));
    assert.ok(trip.eta_minutes >= 5);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - trip.billing_amount));
    const byId = await t.call("GET", "/business/trips/1", { key: b.api_key });
    const byRef = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
    assert.equal(byId.body.data.reference, trip.reference);
    assert.deepEqual(byRef.body.data, byId.body.data);
    const other = await fundedBusiness(t);
    for (const id of ["1", trip.reference]) {
      const seen = await t.call("GET", `/business/trips/${id}`, { key: other.api_key });
      assert.equal(seen.status, 404);
      const cancel = await t.call("POST", `/business/trips/${id}/cancel`, { key: other.api_key });
      assert.equal(cancel.status, 404);
    }
    const second = await book(t, b.api_key, RIDE);
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.equal(second.body.data.id, 2);
  }));

Deno.test("book: each bad field named in one 422, nothing stored; cargo, 4 stops, past time refused", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const bad = await book(t, b.api_key, {
      ...PARCEL,
      type: "cargo",
      pickup_lat: 100,
      pickup_lng: undefined,
      external_reference: "x".repeat(81),
      stops: [1, 2, 3, 4].map((i) => ({ address: `Stop ${i}`, lat: -24.6, lng: 25.9 })),
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["external_reference", "pickup_lat", "pickup_lng", "stops", "type"]);
    const past = await book(t, b.api_key, { ...PARCEL, scheduled_at: "2000-01-01T10:00:00" });
    assert.equal(past.status, 422);
    assert.equal(past.body.errors[0].path, "scheduled_at");
    const noDest = await book(t, b.api_key, { ...PARCEL, dest_address: undefined });
    assert.deepEqual(noDest.body.errors.map((e: { path: string }) => e.path), ["dest_address"]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
  }));

Deno.test("book: a past scheduled_at, an unknown parcel_size and vehicle_type_id, an inexact cod_amount are named in one 422, nothing stored", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const bad = await book(t, b.api_key, {
      ...PARCEL,
      scheduled_at: "2000-01-01T10:00:00",
      parcel_size: "xxl",
      vehicle_type_id: 99,
      cod_amount: 9.995,
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.code, "validation_failed");
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["cod_amount", "parcel_size", "scheduled_at", "vehicle_type_id"]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
  }));

Deno.test("book: scheduled_at without an offset is UTC+2; within 10 minutes it is now", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const now = t.clock.now();
    const local = new Date(now + 2 * 3_600_000 + 3_600_000).toISOString().slice(0, 19);
    const later = await book(t, b.api_key, { ...PARCEL, scheduled_at: local });
    assert.equal(later.body.data.status, "scheduled");
    assert.equal(
      Date.parse(later.body.data.scheduled_at),
      Math.floor((now + 3_600_000) / 1000) * 1000,
    );
    const soon = new Date(now + 5 * 60_000).toISOString();
    const r = await book(t, b.api_key, { ...PARCEL, scheduled_at: soon });
    assert.equal(r.body.data.status, "pending");
    assert.equal(r.body.data.scheduled_at, null);
  }));

Deno.test("book: live refuses test flags and markers, alerting operations; the sandbox ignores them", async () => {
  await withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (const flags of [{ test: true }, { dry_run: true }, { sandbox_scenario: "delivered" }]) {
      const r = await book(t, b.api_key, { ...PARCEL, ...flags });
      assert.equal(r.body.code, "test_mode_moved_to_sandbox", JSON.stringify(flags));
    }
    const header = await book(t, b.api_key, PARCEL, { "X-Service-Test": "true" });
    assert.equal(header.body.code, "test_mode_moved_to_sandbox");
    const marked = await book(t, b.api_key, {
      ...PARCEL,
      external_reference: "ORD-T",
      order_payload: { items: [{ name: "[TEST] bread", qty: 1 }] },
    });
    assert.equal(marked.status, 422);
    assert.equal(marked.body.code, "test_booking_refused");
    await t.settle();
    const alerts = await t.env.db.selectFrom("alerts").select(["kind", "owner"])
      .where("tenant", "=", b.id).execute();
    assert.deepEqual(alerts, [{ kind: "test_booking_refused", owner: "operations" }]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    // The reference is free: the order without the marker books.
    const fine = await book(t, b.api_key, { ...PARCEL, external_reference: "ORD-T" });
    assert.equal(fine.status, 201);
  });
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await book(t, b.api_key, { ...PARCEL, test: true, passenger_name: "__TEST Neo" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.is_test, true);
    assert.equal(r.body.environment, "sandbox");
  }, { name: "sandbox" });
});

Deno.test("book: bills what the fare estimate answers for the same route and goods", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "5000.00");
    const cases = [
      { vehicle_type_id: 2 },
      { parcel_weight_kg: 30, stops: [{ address: "Stop", lat: -24.63, lng: 25.92 }] },
      { type: "ride" },
    ];
    for (const extra of cases) {
      const body: Record<string, unknown> = { ...PARCEL, ...extra };
      const q = new URLSearchParams({
        pickup_lat: String(PARCEL.pickup_lat),
        pickup_lng: String(PARCEL.pickup_lng),
        dest_lat: String(PARCEL.dest_lat),
        dest_lng: String(PARCEL.dest_lng),
        type: String(body.type),
      });
      if ("vehicle_type_id" in extra) q.set("vehicle_type_id", String(extra.vehicle_type_id));
      if ("parcel_weight_kg" in extra) q.set("parcel_weight_kg", String(extra.parcel_weight_kg));
      if ("stops" in extra) q.set("stops", "-24.63,25.92");
      const estimate = await t.call("GET", `/business/trip/fare-estimate?${q}`, { key: b.api_key });
      assert.equal(estimate.status, 200, JSON.stringify(estimate.body));
      const booked = await book(t, b.api_key, body);
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      assert.equal(booked.body.data.billing_amount, estimate.body.data.billing_amount);
      assert.deepEqual(booked.body.data.vehicle_class, estimate.body.data.vehicle_class);
    }
  }));

// spec: business 7, courier 2.9: each business's operations are alerted of its own test order;
// the alert's id is kept per business, so the same marked order from two businesses is two alerts.
Deno.test("book: the same test-marked order on live from two businesses refuses both 422 and alerts each its own operations", () =>
  withTestEnv(async (t) => {
    const [a, b] = [await fundedBusiness(t), await fundedBusiness(t)];
    const body = { ...PARCEL, passenger_name: "__TEST Neo" };
    for (const business of [a, b]) {
      const r = await book(t, business.api_key, body);
      assert.deepEqual([r.status, r.body.code], [422, "test_booking_refused"], business.id);
    }
    await t.settle();
    // Seen by each business's operations through the API, the courier platform off.
    for (const business of [a, b]) {
      const r = await t.call("GET", "/business/courier/alerts", { key: business.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(
        r.body.data.map((x: { kind: string; owner: string }) => [x.kind, x.owner]),
        [["test_booking_refused", "operations"]],
        business.id,
      );
    }
  }));

Deno.test("book: a ride goes to its dropoff_* set whole; both sets disagreeing are named in one 422, nothing stored", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const airport = {
      dropoff_address: "SSKA Airport",
      dropoff_lat: -24.5552,
      dropoff_lng: 25.9182,
    };
    const ride = await book(t, b.api_key, RIDE);
    assert.equal(ride.status, 201, JSON.stringify(ride.body));
    const { dest_address, dest_lat, dest_lng } = ride.body.data;
    assert.deepEqual([dest_address, dest_lat, dest_lng], ["SSKA Airport", -24.5552, 25.9182]);
    // Both sets, the same place: one destination, nothing to choose between.
    const same = await book(t, b.api_key, {
      ...RIDE,
      dest_address: "SSKA Airport",
      dest_lat: -24.5552,
      dest_lng: 25.9182,
    });
    assert.equal(same.status, 201, JSON.stringify(same.body));
    const before = await balanceOf(t, b.api_key);
    for (const type of ["ride", "parcel"]) {
      const mixed = await book(t, b.api_key, { ...PARCEL, type, ...airport });
      assert.equal(mixed.status, 422, JSON.stringify(mixed.body));
      assert.equal(mixed.body.code, "validation_failed");
      const paths = mixed.body.errors.map((e: { path: string }) => e.path).sort();
      const other = type === "ride" ? "dest" : "dropoff";
      assert.deepEqual(paths, [`${other}_address`, `${other}_lat`, `${other}_lng`]);
      // An address from one set beside coordinates of the other would be a place nobody sent.
      const { dest_lat: _, dest_lng: __, ...addressOnly } = PARCEL;
      const half = await book(t, b.api_key, {
        ...addressOnly,
        type,
        dropoff_lat: -24.5552,
        dropoff_lng: 25.9182,
      });
      assert.equal(half.status, 422, JSON.stringify(half.body));
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    assert.equal((await t.call("GET", "/business/trips/3", { key: b.api_key })).status, 404);
  }));

Deno.test("book: every declared field of 2.1 is echoed alike on 201, the list and the read", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const declared = {
      external_reference: "ORD-ECHO",
      order_payload: { store_name: "Molapo", items: [{ name: "Bread", qty: 2 }] },
      cod_amount: 150,
      delivery_code: "4411",
      age_verification_required: true,
      expense_code: "OPS",
      prep_minutes: 20,
      handover_required: true,
      shop_deliver: true,
    };
    const r = await book(t, b.api_key, { ...PARCEL, ...declared });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await t.settle();
    const read = await t.call("GET", `/business/trips/${r.body.data.reference}`, {
      key: b.api_key,
    });
    const list = await t.call("GET", "/business/trips", { key: b.api_key });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const listed = list.body.data.find((x: { id: number }) => x.id === r.body.data.id);
    // spec: business 2.2: the declared and resolved fields alike on 201, list and read (the
    // read adds its receipt and route, business 4.1).
    const { receipt: _receipt, route: _route, ...readTrip } = read.body.data;
    assert.deepEqual(listed, readTrip);
    assert.deepEqual(r.body.data, readTrip);
    for (const trip of [r.body.data, read.body.data, listed]) {
      assert.equal(typeof trip.chat_token, "string");
      assert.ok(trip.chat_token.length > 0);
      assert.equal(typeof trip.billing_amount, "number");
      for (const [field, value] of Object.entries(declared)) {
        if (field === "order_payload") continue;
        assert.deepEqual(trip[field], value, field);
      }
      assert.equal(trip.order_payload.external_reference, "ORD-ECHO");
      assert.deepEqual(trip.order_payload.items, declared.order_payload.items);
    }
  }));

Deno.test("book: each test marker at the start of a name, item, address, stop or note is refused on live, naming it", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const stop = (address: string) => ({ stops: [{ address, lat: -24.63, lng: 25.92 }] });
    const places: [string, (text: string) => Record<string, unknown>][] = [
      ["passenger_name", (x) => ({ passenger_name: x })],
      ["order_payload.items.0.name", (x) => ({ order_payload: { items: [{ name: x, qty: 1 }] } })],
      ["pickup_address", (x) => ({ pickup_address: x })],
      ["dest_address", (x) => ({ dest_address: x })],
      ["stops.0.address", (x) => stop(x)],
      ["note", (x) => ({ note: x })],
    ];
    const markers = ["__TEST", "[TEST]", "TEST ORDER", "DO NOT DELIVER"];
    for (const [i, marker] of markers.entries()) {
      for (const [path, field] of places) {
        const r = await book(t, b.api_key, { ...PARCEL, ...field(`${marker} ${i}`) });
        assert.equal(r.status, 422, `${marker} in ${path}`);
        assert.equal(r.body.code, "test_booking_refused", `${marker} in ${path}`);
        assert.ok(r.body.message.includes(path), `${r.body.message} names ${path}`);
      }
    }
    // Only a marker the text starts with: one inside it is an ordinary word.
    const inside = await book(t, b.api_key, { ...PARCEL, note: "please DO NOT DELIVER late" });
    assert.equal(inside.status, 201, JSON.stringify(inside.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - inside.body.data.billing_amount));
  }));

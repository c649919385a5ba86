import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, bwp, fundedBusiness, PARCEL, TEST_FLAGS } from "./trips_fixtures.ts";
import { LINE, postBatch, stop } from "./batch_fixtures.ts";

Deno.test("batches: 201 books each stop as a trip in the driving order, one vehicle for the largest, each priced on its own size", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const r = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: LINE,
      external_reference: "EOD-1",
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const batch = r.body.data;
    assert.match(batch.id, /^BT-[0-9A-Z]{12}$/);
    assert.equal(batch.status, "booked");
    assert.equal(batch.stop_count, 3);
    // Driven along the road: 1 km (index 1), 2 km (index 2), 3 km (index 0).
    assert.deepEqual(batch.stops.map((s: { index: number }) => s.index), [1, 2, 0]);
    assert.deepEqual(batch.stops.map((s: { position: number }) => s.position), [1, 2, 3]);
    // The large 20 kg stop needs vehicle 2 (a car); the batch goes in it.
    assert.equal(batch.vehicle_class.id, 2);
    const sizes = batch.stops.map((s: { parcel_size: string }) => s.parcel_size);
    assert.deepEqual(sizes, ["large", "medium", "small"]);
    let total = 0;
    for (const s of batch.stops) {
      assert.equal(s.status, "pending");
      const trip = await t.call("GET", `/business/trips/${s.trip_id}`, { key: b.api_key });
      assert.equal(trip.status, 200);
      assert.equal(trip.body.data.reference, s.trip_reference);
      assert.equal(trip.body.data.vehicle_class.id, 2);
      assert.equal(trip.body.data.parcel_size, s.parcel_size);
      assert.equal(trip.body.data.billing_amount, s.billing_amount);
      assert.equal(trip.body.data.passenger_name, LINE[s.index]!.recipient_name);
      assert.deepEqual(trip.body.data.batch, { id: batch.id, position: s.position, stops: 3 });
      // The same stop booked alone with the batch's vehicle costs the same: one calculator.
      const alone = await fundedBusiness(t);
      const single = await book(t, alone.api_key, {
        ...PARCEL,
        dest_lat: LINE[s.index]!.dest_lat,
        dest_lng: LINE[s.index]!.dest_lng,
        parcel_size: s.parcel_size,
        vehicle_type_id: 2,
      });
      assert.equal(single.body.data.billing_amount, s.billing_amount);
      total += s.billing_amount;
    }
    assert.equal(batch.billing_amount, Math.round(total * 100) / 100);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - batch.billing_amount));
    const one = await t.call("GET", `/business/batches/${batch.id}`, { key: b.api_key });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, batch);
    await t.settle();
    const list = await t.call("GET", "/business/batches", { key: b.api_key });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(list.body.data[0].stops.map((s: { status: string }) => s.status), [
      "pending",
      "pending",
      "pending",
    ]);
    // Another business: the batch is not found, and its list is empty.
    const other = await fundedBusiness(t);
    const seen = await t.call("GET", `/business/batches/${batch.id}`, { key: other.api_key });
    assert.equal(seen.status, 404);
    assert.equal(seen.body.code, "not_found");
    const theirs = await t.call("GET", "/business/batches", { key: other.api_key });
    assert.deepEqual(theirs.body.data, []);
  }));

Deno.test("batches: the same reference and body replays the first batch; other details 409 reference_conflict", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { segment: "parcel", stops: LINE, batch_reference: "ROUTE-9" };
    const first = await postBatch(t, b.api_key, body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const paid = await balanceOf(t, b.api_key);
    const again = await postBatch(t, b.api_key, { ...body });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.id, first.body.data.id);
    assert.deepEqual(
      again.body.data.stops.map((s: { trip_id: number }) => s.trip_id),
      first.body.data.stops.map((s: { trip_id: number }) => s.trip_id),
    );
    const other = await postBatch(t, b.api_key, { ...body, stops: LINE.slice(1) });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "reference_conflict");
    assert.ok(other.body.message.includes(first.body.data.id));
    assert.deepEqual(await balanceOf(t, b.api_key), paid);
    const trips = await t.call("GET", "/business/trips/4", { key: b.api_key });
    assert.equal(trips.status, 404, "no fourth trip was made");
  }));

Deno.test("batches: bad fields are each named in one 422, nothing created", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const bad = await postBatch(t, b.api_key, {
      segment: "truck",
      stops: [stop("A", "huge", 0, 1), { ...stop("B", "s", 0, 2), dest_lat: 95 }],
      external_reference: "x".repeat(81),
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["external_reference", "segment", "stops.0.size", "stops.1.dest_lat"]);
    const many = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: Array.from({ length: 51 }, (_, i) => stop(`R${i}`, "s", 0, 1)),
    });
    assert.equal(many.status, 422);
    assert.deepEqual(many.body.errors.map((e: { path: string }) => e.path), ["stops"]);
    const none = await postBatch(t, b.api_key, { segment: "parcel", stops: [] });
    assert.equal(none.status, 422);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
  }));

Deno.test("batches: no vehicle for a stop or too little money: 422, nothing created or charged", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "60.00");
    const heavy = await postBatch(t, b.api_key, {
      segment: "cargo",
      stops: [stop("A", "s", 0, 1), stop("B", "xl", 0, 2, { weight_kg: 90_000 })],
      external_reference: "HEAVY",
    });
    assert.equal(heavy.status, 422);
    assert.equal(heavy.body.code, "no_vehicle_fits");
    assert.match(heavy.body.message, /^stops\.1: /);
    const poor = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 10), stop("B", "s", 0, 12), stop("C", "s", 0, 14)],
      external_reference: "POOR",
    });
    assert.equal(poor.status, 422);
    assert.equal(poor.body.code, "insufficient_balance");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(60));
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
    await t.settle();
    const list = await t.call("GET", "/business/batches", { key: b.api_key });
    assert.deepEqual(list.body.data, []);
    // Refused references stay free: the same reference books once the body can be served.
    const ok = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 1)],
      external_reference: "HEAVY",
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  }));

Deno.test("batches: a deliveries partner key is refused (5's table names no batch endpoint)", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const made = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "shop plugin", scopes: ["deliveries"] },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const key = made.body.data.key;
    const post = await postBatch(t, key, { segment: "parcel", stops: LINE });
    assert.equal(post.status, 403);
    assert.equal(post.body.code, "scope_denied");
    assert.equal((await t.call("GET", "/business/batches", { key })).status, 403);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
  }));

// spec: business 7: "422 test_mode_moved_to_sandbox | test, dry_run or X-Service-Test: true on
// live"; 9.3: "live refuses test flags and test markers".
Deno.test("batches: live refuses test, dry_run and X-Service-Test with 422 test_mode_moved_to_sandbox, nothing booked or charged; the sandbox ignores them", async () => {
  await withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (const [flags, headers] of TEST_FLAGS) {
      const body = { segment: "parcel", stops: LINE, external_reference: "T-1", ...flags };
      const r = await postBatch(t, b.api_key, body, headers);
      const what = JSON.stringify([flags, headers]);
      assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "test_mode_moved_to_sandbox", what);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000), "nothing charged");
    await t.settle();
    const list = await t.call("GET", "/business/batches", { key: b.api_key });
    assert.deepEqual(list.body.data, [], "no batch created");
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
    // The reference is free: the batch without the flags books.
    const fine = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: LINE,
      external_reference: "T-1",
    });
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
  });
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE, test: true }, {
      "X-Service-Test": "true",
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.stop_count, 3);
  }, { name: "sandbox" });
});

Deno.test("batches: 50 stops with every text at its longest still book, each stop billed what the batch lists, from one record of the stops' prices", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "20000.00");
    // spec: business 2.3, 8: up to 50 stops; each text at the schema's longest.
    const stops = Array.from({ length: 50 }, (_, i) => ({
      ...stop(`${i}`.padEnd(200, "n"), i % 2 === 0 ? "l" : "s", 0.1 * (i % 10), 0.1 * (i / 10)),
      recipient_phone: `+267${i}`.padEnd(40, "7"),
      pickup_address: `Main Mall ${i}`.padEnd(300, "p"),
      dest_address: `House ${i}`.padEnd(300, "d"),
    }));
    const asked = new Map<string, number>();
    const ask = t.env.runtime.ask.bind(t.env.runtime);
    t.env.runtime.ask = ((...args: Parameters<typeof ask>) => {
      asked.set(args[0].type, (asked.get(args[0].type) ?? 0) + 1);
      return ask(...args);
    }) as typeof ask;
    const r = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops,
      external_reference: "E".repeat(80),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 500));
    assert.equal(r.body.data.stop_count, 50);
    // The stops' prices are one record, written once for the whole batch (not one per stop).
    assert.equal(asked.get("business_batch_prices"), 1);
    for (const s of r.body.data.stops.slice(0, 3)) {
      const trip = await t.call("GET", `/business/trips/${s.trip_id}`, { key: b.api_key });
      assert.equal(trip.body.data.billing_amount, s.billing_amount);
    }
    const paid = Math.round((20000 - r.body.data.billing_amount) * 100) / 100;
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(paid));
  }));

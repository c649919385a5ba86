import assert from "node:assert/strict";
import { parseCatalogue } from "../../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import { planBatch, type PlanStop } from "../../../src/business/rules/batch_plan.ts";
import { batchReference, parcelSizeOf, stopOrder } from "../../../src/business/rules/batch.ts";
import { priceTrip } from "../../../src/business/rules/fare.ts";

const parsed = parseCatalogue(DEFAULT_CATALOGUE);
if (!parsed.ok) throw new Error("the default catalogue must parse");
const c = parsed.catalogue;

const MALL = { lat: -24.6545, lng: 25.9086 };
const east = (km: number) => ({ lat: MALL.lat, lng: MALL.lng + km / 101 });

Deno.test("batch plan: one vehicle fitted to the largest stop; each stop priced on its own size with it", () => {
  const stops: PlanStop[] = [
    { pickup: MALL, dest: east(3), size: "s" },
    { pickup: MALL, dest: east(1), size: "l", weight_kg: 20 },
    { pickup: MALL, dest: east(2), size: "m" },
  ];
  const r = planBatch(c, stops, {}, "upgrade");
  assert.ok(r.ok);
  assert.equal(r.plan.vehicle.vehicle.id, 2);
  for (const [i, s] of stops.entries()) {
    const alone = priceTrip(c, { pickup: s.pickup, stops: [], dest: s.dest }, {
      type: "parcel",
      vehicle_type_id: 2,
      parcel_size: parcelSizeOf(s.size),
      parcel_weight_kg: s.weight_kg,
    }, "upgrade");
    assert.ok(alone.ok);
    assert.equal(r.plan.prices[i]!.fare.amount_minor, alone.price.fare.amount_minor);
    assert.equal(r.plan.prices[i]!.resolution.parcel_size.size_key, parcelSizeOf(s.size));
  }
  assert.equal(
    r.plan.total_minor,
    r.plan.prices.reduce((sum, p) => sum + p.fare.amount_minor, 0),
  );
  assert.deepEqual(r.plan.order, [1, 2, 0]);
});

Deno.test("batch plan: a stop no vehicle carries refuses the batch, naming the stop", () => {
  const r = planBatch(
    c,
    [
      { pickup: MALL, dest: east(1), size: "s" },
      { pickup: MALL, dest: east(2), size: "xl", weight_kg: 90_000 },
    ],
    {},
    "upgrade",
  );
  assert.ok(!r.ok);
  assert.equal(r.code, "no_vehicle_fits");
  assert.match(r.message, /^stops\.1: /);
  const outside = planBatch(
    c,
    [{ pickup: { lat: 0, lng: 0 }, dest: east(1), size: "m" }],
    {},
    "upgrade",
  );
  assert.ok(!outside.ok);
  assert.equal(outside.code, "outside_service_area");
});

Deno.test("batch plan: pickups in two zones (Gaborone, Francistown) cannot be served by one driver: refused naming each stop outside the first's zone", () => {
  const francistown = { lat: -21.1661, lng: 27.5144 };
  const r = planBatch(
    c,
    [
      { pickup: MALL, dest: east(1), size: "s" },
      { pickup: francistown, dest: francistown, size: "s" },
      { pickup: MALL, dest: east(2), size: "s" },
      { pickup: francistown, dest: francistown, size: "m" },
    ],
    {},
    "upgrade",
  );
  assert.ok(!r.ok);
  assert.equal(r.code, "validation_failed");
  const errors = r.details?.errors as { path: string; message: string }[];
  assert.deepEqual(errors.map((e) => e.path), ["stops.1.pickup_lat", "stops.3.pickup_lat"]);
  assert.match(errors[0]!.message, /zone francistown, the first stop in gaborone/);
});

Deno.test("batch rules: sizes and their short forms; references derived from the key", () => {
  assert.deepEqual(
    ["s", "m", "l", "xl", "small", "oversized"].map((s) => parcelSizeOf(s as "s")),
    ["small", "medium", "large", "oversized", "small", "oversized"],
  );
  const ref = { kind: "reference", value: "EOD-1" } as const;
  const a = batchReference("biz_1", ref, () => "x");
  assert.equal(a, batchReference("biz_1", ref, () => "y"));
  assert.notEqual(a, batchReference("biz_2", ref, () => "x"));
  // A body reference keeps the id batches were stored under; the header has its own space.
  assert.equal(a, "BT-603S7H7555FX");
  assert.notEqual(
    a,
    batchReference("biz_1", { kind: "idempotency_key", value: "EOD-1" }, () => "x"),
  );
  assert.notEqual(
    batchReference("biz_1", null, () => "x"),
    batchReference("biz_1", null, () => "y"),
  );
  assert.deepEqual(stopOrder(MALL, [east(5), east(1), east(3)]), [1, 2, 0]);
});

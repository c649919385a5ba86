import assert from "node:assert/strict";
import fc from "fast-check";
import {
  BODY_TYPES,
  CAPACITY_CLASSES,
  parseCatalogue,
} from "../../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import {
  type Declared,
  ladderOf,
  resolveVehicle,
  sizeRank,
} from "../../../src/business/rules/vehicle.ts";

const parsed = parseCatalogue(DEFAULT_CATALOGUE);
if (!parsed.ok) throw new Error("the default catalogue must parse");
const c = parsed.catalogue;
const ladder = ladderOf(c);

function resolved(d: Declared, policy: "upgrade" | "upgrade_one_size" | "refuse" = "upgrade") {
  const r = resolveVehicle(c, d, policy);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.resolution;
}

Deno.test("vehicle resolution: nothing declared is the smallest band on the smallest vehicle", () => {
  const r = resolved({});
  assert.equal(r.parcel_size.size_key, "small");
  assert.equal(r.vehicle.name, "Motorcycle");
  assert.equal(r.vehicle_upgraded, false);
  assert.equal(r.volumetric_weight_kg, null);
});

Deno.test("vehicle resolution: weight and declared size disagreeing, the larger wins", () => {
  assert.equal(
    resolved({ parcel_size: "small", parcel_weight_kg: 30 }).parcel_size.size_key,
    "large",
  );
  assert.equal(
    resolved({ parcel_size: "large", parcel_weight_kg: 1 }).parcel_size.size_key,
    "large",
  );
  assert.equal(resolved({ parcel_size: "large", parcel_weight_kg: 1 }).vehicle.name, "Car");
});

Deno.test("vehicle resolution: volumetric weight moves a light, bulky parcel up a band", () => {
  // 60 x 50 x 40 cm is 120,000 cm³: 24 kg at 5,000 cm³ a kg, though it weighs 2 kg.
  const r = resolved({ goods: [{ weight_kg: 2, length_cm: 60, width_cm: 50, height_cm: 40 }] });
  assert.equal(r.volumetric_weight_kg, 24);
  assert.equal(r.parcel_size.size_key, "large");
  assert.equal(r.vehicle.name, "Car");
});

Deno.test("vehicle resolution: volumetric weight is exact, so goods of exactly a band's edge stay in that band", () => {
  // 10.3 x 50 x 10 and 39.7 x 50 x 10 cm are 5,150 and 19,850 cm³: 25,000 cm³ together, 5 kg at
  // 5,000 cm³ a kg, the small band's top. Added in floating point they are 25,000.000000000004.
  const r = resolved({
    goods: [
      { weight_kg: 1, length_cm: 10.3, width_cm: 50, height_cm: 10 },
      { weight_kg: 1, length_cm: 39.7, width_cm: 50, height_cm: 10 },
    ],
  });
  assert.equal(r.volumetric_weight_kg, 5);
  assert.equal(r.parcel_size.size_key, "small");
  // One item of decimal centimetres: 0.1 x 6 x 50 cm is 30 cm³, 6 g exactly (not 7).
  const one = resolved({ goods: [{ length_cm: 0.1, width_cm: 6, height_cm: 50 }] });
  assert.equal(one.volumetric_weight_kg, 0.006);
});

Deno.test("vehicle resolution: cargo body type and capacity class are minimums", () => {
  assert.equal(resolved({ cargo_body_type: "open" }).vehicle.name, "Motorcycle");
  assert.equal(
    resolved({ cargo_body_type: "refrigerated" }).vehicle.name,
    "Refrigerated one-ton van",
  );
  assert.equal(resolved({ cargo_capacity_class: "one_ton" }).vehicle.name, "Bakkie");
  assert.equal(
    resolved({ cargo_capacity_class: "one_ton", cargo_body_type: "closed" }).vehicle.name,
    "One-ton van",
  );
  assert.equal(resolved({ cargo_capacity_class: "three_ton" }).vehicle.name, "Three-ton dropside");
});

Deno.test("vehicle resolution: an item longer than a load space needs a vehicle it fits in", () => {
  const sofa = { weight_kg: 60, length_cm: 220, width_cm: 90, height_cm: 80 };
  assert.equal(resolved({ goods: [sofa] }).vehicle.name, "One-ton van");
  const upright = { weight_kg: 90, length_cm: 70, width_cm: 70, height_cm: 180, upright: true };
  assert.equal(resolved({ goods: [upright] }).vehicle.name, "Three-ton truck");
});

Deno.test("vehicle resolution: a vehicle_type_id too small follows the account's policy", () => {
  const heavy = { parcel_weight_kg: 400, vehicle_type_id: 2 };
  const up = resolved(heavy, "upgrade");
  assert.equal(up.vehicle.name, "Panel van");
  assert.equal(up.vehicle_upgraded, true);
  assert.match(up.vehicle_upgrade_reason!, /400 kg, above the Car's payload of 150 kg/);
  assert.equal(resolved(heavy, "upgrade_one_size").vehicle.name, "Panel van");
  const refused = resolveVehicle(c, heavy, "refuse");
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.code, "vehicle_upgrade_refused");
  assert.match(
    !refused.ok ? refused.message : "",
    /Car's payload of 150 kg.*refuses vehicle upgrades/,
  );
  // 900 kg on a car is two sizes up (a one-ton vehicle): the cap at one size refuses it.
  const twoUp = resolveVehicle(
    c,
    { parcel_weight_kg: 900, vehicle_type_id: 2 },
    "upgrade_one_size",
  );
  assert.equal(!twoUp.ok && twoUp.code, "vehicle_upgrade_refused");
  assert.match(!twoUp.ok ? twoUp.message : "", /more than one size up/);
  assert.equal(resolved({ parcel_weight_kg: 900, vehicle_type_id: 2 }).vehicle.name, "Bakkie");
});

Deno.test("vehicle resolution: a ride needs a vehicle that takes passengers", () => {
  assert.equal(resolved({ type: "ride" }).vehicle.name, "Car");
  const onMotorcycle = resolved({ type: "ride", vehicle_type_id: 1 });
  assert.equal(onMotorcycle.vehicle.name, "Car");
  assert.match(onMotorcycle.vehicle_upgrade_reason!, /Motorcycle takes no passengers/);
  const refused = resolveVehicle(c, { type: "ride", vehicle_type_id: 1 }, "refuse");
  assert.equal(!refused.ok && refused.code, "vehicle_upgrade_refused");
  // A parcel on the same route still goes by motorcycle.
  assert.equal(resolved({ type: "parcel" }).vehicle.name, "Motorcycle");
});

Deno.test("vehicle resolution: a larger vehicle_type_id than needed is kept, not downgraded", () => {
  const r = resolved({ parcel_weight_kg: 1, vehicle_type_id: 8 }, "refuse");
  assert.equal(r.vehicle.name, "Three-ton truck");
  assert.equal(r.vehicle_upgraded, false);
});

Deno.test("vehicle resolution: refusals name the problem", () => {
  const unknown = resolveVehicle(c, { vehicle_type_id: 99 }, "upgrade");
  assert.equal(!unknown.ok && unknown.code, "validation_failed");
  assert.deepEqual(!unknown.ok && unknown.details?.errors, [{
    path: "vehicle_type_id",
    message: "no vehicle type 99: see GET /business/vehicle-types",
  }]);
  const size = resolveVehicle(c, { parcel_size: "xxl" }, "upgrade");
  assert.match(
    !size.ok ? size.message : "",
    /parcel_size: one of small, medium, large, oversized: xxl/,
  );
  const tooHeavy = resolveVehicle(c, { parcel_weight_kg: 9_000 }, "upgrade");
  assert.equal(!tooHeavy.ok && tooHeavy.code, "no_vehicle_fits");
  const tooLong = resolveVehicle(
    c,
    { goods: [{ length_cm: 900, width_cm: 10, height_cm: 10 }] },
    "upgrade",
  );
  assert.equal(!tooLong.ok && tooLong.code, "no_vehicle_fits");
  assert.match(!tooLong.ok ? tooLong.message : "", /900 x 10 x 10 cm does not fit/);
});

Deno.test("vehicle resolution: an unknown parcel_size and vehicle_type_id are named together", () => {
  const r = resolveVehicle(c, { parcel_size: "xxl", vehicle_type_id: 99 }, "upgrade");
  assert.equal(!r.ok && r.code, "validation_failed");
  assert.deepEqual(
    !r.ok && (r.details?.errors as { path: string }[]).map((e) => e.path),
    ["parcel_size", "vehicle_type_id"],
  );
});

const line = fc.record({
  weight_kg: fc.integer({ min: 0, max: 400_000 }).map((g) => g / 1_000),
  length_cm: fc.integer({ min: 1, max: 300 }),
  width_cm: fc.integer({ min: 1, max: 200 }),
  height_cm: fc.integer({ min: 1, max: 200 }),
  upright: fc.boolean(),
});

const declared = fc.record({
  type: fc.option(fc.constantFrom("ride" as const, "parcel" as const), { nil: undefined }),
  parcel_weight_kg: fc.option(fc.integer({ min: 0, max: 8_000_000 }).map((g) => g / 1_000), {
    nil: undefined,
  }),
  parcel_size: fc.option(fc.constantFrom(...c.parcel_sizes.map((s) => s.size_key)), {
    nil: undefined,
  }),
  goods: fc.option(fc.array(line, { maxLength: 4 }), { nil: undefined }),
  cargo_body_type: fc.option(fc.constantFrom(...BODY_TYPES), { nil: undefined }),
  cargo_capacity_class: fc.option(fc.constantFrom(...CAPACITY_CLASSES), { nil: undefined }),
  vehicle_type_id: fc.option(fc.constantFrom(...c.vehicle_types.map((v) => v.id)), {
    nil: undefined,
  }),
});

const policy = fc.constantFrom("upgrade" as const, "upgrade_one_size" as const, "refuse" as const);

Deno.test("vehicle resolution: the resolved vehicle always carries the goods and is never smaller than asked", () => {
  fc.assert(fc.property(declared, policy, (d, p) => {
    const r = resolveVehicle(c, d, p);
    if (!r.ok) return;
    const v = r.resolution.vehicle;
    const kg = Math.max(
      d.parcel_weight_kg ?? 0,
      (d.goods ?? []).reduce((s, l) => s + l.weight_kg, 0),
    );
    assert.ok(v.payload_kg * 1_000 >= Math.round(kg * 1_000) - 1);
    assert.ok(r.resolution.parcel_size.eligible_vehicle_type_ids.includes(v.id));
    if (d.type === "ride") assert.ok(v.passenger_seats >= 1);
    const space = [v.load_length_cm, v.load_width_cm, v.load_height_cm];
    let volume = 0;
    for (const l of d.goods ?? []) {
      volume += l.length_cm * l.width_cm * l.height_cm;
      const floor = [l.length_cm, l.width_cm].sort((a, b) => a - b);
      const fitsStanding = l.height_cm <= v.load_height_cm &&
        floor[0]! <= Math.min(v.load_length_cm, v.load_width_cm) &&
        floor[1]! <= Math.max(v.load_length_cm, v.load_width_cm);
      const item = [l.length_cm, l.width_cm, l.height_cm].sort((a, b) => a - b);
      const sorted = [...space].sort((a, b) => a - b);
      assert.ok(l.upright ? fitsStanding : item.every((x, i) => x <= sorted[i]!), "item fits");
    }
    assert.ok(volume <= space[0]! * space[1]! * space[2]!, "the goods fit together");
    if (d.cargo_body_type) {
      assert.ok(BODY_TYPES.indexOf(v.body_type) >= BODY_TYPES.indexOf(d.cargo_body_type));
    }
    if (d.cargo_capacity_class) {
      assert.ok(
        v.capacity_class !== null &&
          CAPACITY_CLASSES.indexOf(v.capacity_class) >=
            CAPACITY_CLASSES.indexOf(d.cargo_capacity_class),
      );
    }
    if (d.vehicle_type_id !== undefined) {
      const asked = c.vehicle_types.find((x) => x.id === d.vehicle_type_id)!;
      assert.ok(sizeRank(ladder, v) >= sizeRank(ladder, asked));
      assert.equal(r.resolution.vehicle_upgraded, v.id !== asked.id);
      if (p === "refuse") assert.equal(v.id, asked.id);
    }
  }));
});

Deno.test("vehicle resolution: more weight never resolves a smaller vehicle", () => {
  fc.assert(fc.property(
    declared,
    fc.integer({ min: 0, max: 8_000_000 }),
    fc.integer({ min: 0, max: 8_000_000 }),
    (d, a, b) => {
      const [light, heavy] = [Math.min(a, b) / 1_000, Math.max(a, b) / 1_000];
      const base = { ...d, vehicle_type_id: undefined };
      const l = resolveVehicle(c, { ...base, parcel_weight_kg: light }, "upgrade");
      const h = resolveVehicle(c, { ...base, parcel_weight_kg: heavy }, "upgrade");
      if (!h.ok) return;
      assert.ok(l.ok, "what carries the heavier load carries the lighter one");
      assert.ok(
        ladder.indexOf(l.resolution.vehicle) <= ladder.indexOf(h.resolution.vehicle),
        `${light} kg: ${l.resolution.vehicle.name}; ${heavy} kg: ${h.resolution.vehicle.name}`,
      );
    },
  ));
});

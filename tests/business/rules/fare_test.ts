import assert from "node:assert/strict";
import fc from "fast-check";
import { parseCatalogue } from "../../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import { fareOf, priceTrip, type Route } from "../../../src/business/rules/fare.ts";
import { resolveVehicle } from "../../../src/business/rules/vehicle.ts";
import { greatCircleKm } from "../../../src/domain/geo.ts";
import { formatMinor } from "../../../src/domain/money.ts";

const parsed = parseCatalogue(DEFAULT_CATALOGUE);
if (!parsed.ok) throw new Error("the default catalogue must parse");
const c = parsed.catalogue;

const GABORONE = { lat: -24.6282, lng: 25.9231 };

function resolution(d: Parameters<typeof resolveVehicle>[1] = {}) {
  const r = resolveVehicle(c, d, "upgrade");
  if (!r.ok) throw new Error(r.message);
  return r.resolution;
}

function fare(route: Route, d: Parameters<typeof resolveVehicle>[1] = {}) {
  const r = fareOf(c, route, resolution(d));
  if (!r.ok) throw new Error(r.message);
  return r.fare;
}

Deno.test("great-circle distance: Gaborone to Johannesburg is about 280 km", () => {
  const km = greatCircleKm(GABORONE, { lat: -26.2041, lng: 28.0473 });
  assert.ok(km > 270 && km < 290, `${km}`);
  assert.equal(greatCircleKm(GABORONE, GABORONE), 0);
});

Deno.test("fare: a car across Gaborone is base, road distance, band and stops in BWP", () => {
  // 0.1 degree of latitude north: 11.12 km in a straight line, 14.46 km by road (x 1.3).
  const dest = { lat: GABORONE.lat + 0.1, lng: GABORONE.lng };
  const f = fare({ pickup: GABORONE, stops: [], dest }, { vehicle_type_id: 2 });
  assert.equal(f.currency, "BWP");
  assert.equal(f.zone_id, "gaborone");
  const straight = Math.round(greatCircleKm(GABORONE, dest) * 1_000);
  assert.equal(f.distance_m, Math.round(straight * 1.3));
  // 35.00 + 6.50 per km over the road metres, rounded once to the thebe.
  const distance = Math.round(650 * f.distance_m / 1_000);
  assert.deepEqual(f.lines, [
    { code: "base_fare", amount_minor: 3_500 },
    { code: "distance", amount_minor: distance },
    { code: "parcel_size", amount_minor: 0 },
    { code: "stops", amount_minor: 0 },
  ]);
  assert.equal(f.amount_minor, 3_500 + distance);
});

Deno.test("fare: stops are charged and walked; the band's rate is the zone's", () => {
  const dest = { lat: GABORONE.lat + 0.05, lng: GABORONE.lng };
  const stop = { lat: GABORONE.lat, lng: GABORONE.lng + 0.05 };
  const direct = fare({ pickup: GABORONE, stops: [], dest }, { parcel_size: "large" });
  const via = fare({ pickup: GABORONE, stops: [stop], dest }, { parcel_size: "large" });
  assert.ok(via.distance_m > direct.distance_m);
  assert.deepEqual(via.lines.find((l) => l.code === "stops"), {
    code: "stops",
    amount_minor: 1_500,
  });
  assert.deepEqual(direct.lines.find((l) => l.code === "parcel_size"), {
    code: "parcel_size",
    amount_minor: 2_500,
  });
});

Deno.test("fare: a short motorcycle trip pays the zone's minimum; South Africa is in ZAR", () => {
  const f = fare({ pickup: GABORONE, stops: [], dest: GABORONE });
  assert.equal(f.amount_minor, 3_000);
  assert.deepEqual(f.lines.at(-1), { code: "minimum_fare", amount_minor: 500 });
  const cape = { lat: -33.9249, lng: 18.4241 };
  assert.equal(fare({ pickup: cape, stops: [], dest: cape }).currency, "ZAR");
});

Deno.test("fare: a pickup outside every zone is refused outside_service_area", () => {
  const r = fareOf(c, { pickup: { lat: 10, lng: 10 }, stops: [], dest: GABORONE }, resolution());
  assert.equal(!r.ok && r.code, "outside_service_area");
  assert.match(!r.ok ? r.message : "", /pickup at 10, 10/);
});

const near = (p: { lat: number; lng: number }) =>
  fc.record({
    lat: fc.double({ min: p.lat - 0.3, max: p.lat + 0.3, noNaN: true }),
    lng: fc.double({ min: p.lng - 0.3, max: p.lng + 0.3, noNaN: true }),
  });
const zoneCentre = fc.constantFrom(
  ...c.zones.map((z) => ({ lat: z.area.center_lat, lng: z.area.center_lng })),
);
const vehicleId = fc.constantFrom(...c.vehicle_types.map((v) => v.id));

Deno.test("fare: never negative, exact to the minor unit, its lines adding up", () => {
  fc.assert(fc.property(
    zoneCentre.chain((z) => fc.tuple(near(z), fc.array(near(z), { maxLength: 3 }), near(z))),
    vehicleId,
    ([pickup, stops, dest], vehicle_type_id) => {
      const r = priceTrip(c, { pickup, stops, dest }, { vehicle_type_id }, "upgrade");
      if (!r.ok) return; // a point outside every zone
      const f = r.price.fare;
      assert.ok(f.amount_minor >= 0);
      assert.ok(Number.isSafeInteger(f.amount_minor));
      assert.equal(f.lines.reduce((s, l) => s + l.amount_minor, 0), f.amount_minor);
      assert.ok(f.lines.every((l) => Number.isSafeInteger(l.amount_minor) && l.amount_minor >= 0));
      // Decimal text with the currency's two places, no float residue.
      assert.match(formatMinor(f.amount_minor, f.currency), /^\d+\.\d{2}$/);
    },
  ));
});

Deno.test("fare: a longer route never costs less", () => {
  fc.assert(fc.property(
    zoneCentre,
    fc.double({ min: 0, max: 0.5, noNaN: true }),
    fc.double({ min: 0, max: 0.5, noNaN: true }),
    vehicleId,
    (z, a, b, vehicle_type_id) => {
      const [short, long] = [Math.min(a, b), Math.max(a, b)];
      const at = (d: number) => ({ lat: z.lat + d, lng: z.lng });
      const s = priceTrip(
        c,
        { pickup: z, stops: [], dest: at(short) },
        { vehicle_type_id },
        "upgrade",
      );
      const l = priceTrip(
        c,
        { pickup: z, stops: [], dest: at(long) },
        { vehicle_type_id },
        "upgrade",
      );
      assert.ok(s.ok && l.ok);
      assert.ok(l.price.fare.amount_minor >= s.price.fare.amount_minor);
      assert.ok(l.price.fare.distance_m >= s.price.fare.distance_m);
    },
  ));
});

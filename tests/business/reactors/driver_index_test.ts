/**
 * The dispatch index (Business API 1.2, 3.1): the nearest online driver of a zone with a fresh
 * position that the search accepts; the same answer as comparing every driver (property).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { distance } from "geokdbush";
import { DriverIndex, type IndexedDriver } from "../../../src/business/reactors/driver_index.ts";

const driver = (id: string, over: Partial<IndexedDriver> = {}): IndexedDriver => ({
  id,
  zone_id: "gaborone",
  vehicle_type_id: 1,
  online: true,
  full: false,
  ...over,
});
const at = (lat: number, lng: number, when = 1_000) => ({
  lat,
  lng,
  accuracy: null,
  heading: null,
  at: when,
});
const query = (over = {}) => ({
  zone_id: "gaborone",
  lat: -24.65,
  lng: 25.9,
  max_km: 50,
  fresh_after: 0,
  now: 1_000,
  accept: () => true,
  ...over,
});

Deno.test("driver index: nearest online driver of the zone, fresh, accepted; offline, stale, other zones left out", () => {
  const i = new DriverIndex();
  i.setDriver(driver("near"));
  i.moved("near", at(-24.651, 25.9));
  i.setDriver(driver("far"));
  i.moved("far", at(-24.70, 25.9));
  i.setDriver(driver("other_zone", { zone_id: "francistown" }));
  i.moved("other_zone", at(-24.65, 25.9));
  // A ping before the driver's record is known places them once the record arrives.
  i.moved("late", at(-24.6501, 25.9));
  assert.equal(i.nearest(query()), "near");
  i.setDriver(driver("late"));
  assert.equal(i.nearest(query()), "late");
  i.setDriver(driver("late", { online: false }));
  assert.equal(i.nearest(query()), "near");
  assert.equal(i.nearest(query({ accept: (d: IndexedDriver) => d.id !== "near" })), "far");
  // spec: business 1.2: a stale position makes the driver unavailable.
  assert.equal(i.nearest(query({ fresh_after: 1_001 })), null);
  assert.equal(i.nearest(query({ max_km: 0.05 })), null);
  assert.equal(i.nearest(query({ zone_id: "maun" })), null);
  // Moving is seen once the tree is rebuilt (the search's clock past INDEX_REBUILD_MS).
  i.moved("far", at(-24.65, 25.9, 2_000));
  assert.equal(i.nearest(query({ now: 2_000 })), "far");
});

Deno.test("driver index: the nearest is the closest of every accepted driver (property)", () => {
  const point = fc.record({
    lat: fc.double({ min: -24.8, max: -24.5, noNaN: true }),
    lng: fc.double({ min: 25.8, max: 26.1, noNaN: true }),
  });
  fc.assert(
    fc.property(
      fc.array(fc.tuple(point, fc.boolean()), { minLength: 1, maxLength: 60 }),
      point,
      (drivers, pickup) => {
        const i = new DriverIndex();
        drivers.forEach(([p, online], n) => {
          i.setDriver(driver(`d${n}`, { online }));
          i.moved(`d${n}`, at(p.lat, p.lng));
        });
        const found = i.nearest(query({ lat: pickup.lat, lng: pickup.lng }));
        const km = (p: { lat: number; lng: number }) =>
          distance(pickup.lng, pickup.lat, p.lng, p.lat);
        const online = drivers.map(([p, on], n) => ({ p, on, n })).filter((d) => d.on);
        if (online.length === 0) return found === null;
        const best = Math.min(...online.map((d) => km(d.p)));
        const chosen = drivers[Number(found!.slice(1))]![0];
        return Math.abs(km(chosen) - best) < 1e-9;
      },
    ),
    { numRuns: 200 },
  );
});

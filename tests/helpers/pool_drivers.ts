/** Platform drivers of the dispatch pool for tests (POST /operator/drivers, PUT /driver/shift). */
import assert from "node:assert/strict";
import type { TestEnv } from "./test_env.ts";

export interface CreatedPoolDriver {
  readonly id: string;
  readonly token: string;
}

/** A driver in Gaborone on a motorcycle (vehicle type 1) unless told otherwise. */
export async function createPoolDriver(
  t: TestEnv,
  overrides: Record<string, unknown> = {},
): Promise<CreatedPoolDriver> {
  const r = await t.call("POST", "/operator/drivers", {
    operator: true,
    body: {
      name: "Neo Kgosi",
      phone: "+26771234567",
      vehicle_type_id: 1,
      zone_id: "gaborone",
      plate: "B 123 ABC",
      color: "red",
      ...overrides,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as CreatedPoolDriver;
}

/** A registered driver on shift, at (lat, lng) as of the clock's now. */
export async function onlineDriverAt(
  t: TestEnv,
  lat: number,
  lng: number,
  overrides: Record<string, unknown> = {},
): Promise<CreatedPoolDriver> {
  const d = await createPoolDriver(t, overrides);
  const shift = await t.call("PUT", "/driver/shift", { bearer: d.token, body: { online: true } });
  assert.equal(shift.status, 200, JSON.stringify(shift.body));
  const at = new Date(t.clock.now()).toISOString();
  const r = await t.call("POST", "/driver/positions", {
    bearer: d.token,
    body: { positions: [{ lat, lng, accuracy: 5, heading: 90, at }] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return d;
}

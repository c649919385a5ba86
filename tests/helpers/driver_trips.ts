/**
 * A booked trip accepted by a platform driver, for the driver app's tests: the acceptance is
 * asked of the trip actor directly (dispatch offers are another piece of work).
 */
import assert from "node:assert/strict";
import { tripActor } from "../../actors/business/trip/mod.ts";
import { book, fundedBusiness, PARCEL } from "../routes/business/trips_fixtures.ts";
import { type CreatedPoolDriver, createPoolDriver } from "./pool_drivers.ts";
import type { CreatedBusiness, TestEnv } from "./test_env.ts";

export interface AcceptedTrip {
  readonly business: CreatedBusiness;
  readonly driver: CreatedPoolDriver;
  readonly reference: string;
}

/** Books `body` (over a Gaborone parcel) and has a new pool driver accept it. */
export async function acceptedTrip(
  t: TestEnv,
  body: Record<string, unknown> = {},
  business?: CreatedBusiness,
): Promise<AcceptedTrip> {
  const b = business ?? await fundedBusiness(t);
  const booked = await book(t, b.api_key, { ...PARCEL, ...body });
  assert.equal(booked.status, 201, JSON.stringify(booked.body));
  const reference = booked.body.data.reference as string;
  const driver = await createPoolDriver(t);
  await acceptAs(t, b.id, reference, driver.id);
  return { business: b, driver, reference };
}

/** The trip actor's acceptance by `driverId`, as a dispatch offer's acceptance asks it. */
export async function acceptAs(
  t: TestEnv,
  business: string,
  reference: string,
  driverId: string,
): Promise<void> {
  const r = await t.env.runtime.ask(tripActor, business, reference, {
    kind: "accept",
    driver: {
      id: driverId,
      name: "Neo Kgosi",
      phone: "+26771234567",
      plate: "B 123 ABC",
      color: "red",
      vehicle_type_id: 1,
    },
  });
  assert.ok(r.ok, JSON.stringify(r));
}

/** The smallest PNG header: enough for the image check, a file the service stores. */
export function pngFile(name = "proof.png"): File {
  const bytes = new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    1,
    2,
    3,
    name.length,
  ]);
  return new File([bytes], name, { type: "image/png" });
}

/** POST /driver/trips/{reference}/{action} as JSON. */
export function act(
  t: TestEnv,
  trip: Pick<AcceptedTrip, "reference" | "driver">,
  action: string,
  body: Record<string, unknown> = {},
) {
  return t.call("POST", `/driver/trips/${trip.reference}/${action}`, {
    bearer: trip.driver.token,
    body: { idempotency_key: `${action}-1`, ...body },
  });
}

/**
 * The dispatch pool's drivers (CONTRACT "Operator API": POST /operator/drivers; Business API 1.2):
 * registered by the operator with a vehicle type and a zone of the catalogue, and going on and off
 * shift from the driver app.
 */
import { type PoolDriver, poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import { issueCredential } from "../../domain/credentials.ts";
import type { Deps } from "../../environment.ts";
import { type FieldError, invalidFields, orRefuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import { driverTokenPrefix } from "../../platform/flows/drivers.ts";
import { vehicleTypeOf } from "../rules/catalogue.ts";
import { catalogueOf } from "./fares.ts";

export interface NewPoolDriverInput {
  readonly name: string;
  readonly phone: string;
  readonly vehicle_type_id: number;
  readonly zone_id: string;
  readonly plate?: string | undefined;
  readonly color?: string | undefined;
  /** A derived id (the sandbox's simulated driver of a trip); else a new one. */
  readonly id?: string | undefined;
}

/** The driver's bearer token is shown this once (kept hashed). */
export async function registerPoolDriver(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "requestId">,
  input: NewPoolDriverInput,
): Promise<{ readonly id: string; readonly token: string }> {
  const catalogue = await catalogueOf(deps);
  const errors: FieldError[] = [];
  if (!vehicleTypeOf(catalogue, input.vehicle_type_id)) {
    errors.push({ path: "vehicle_type_id", message: `no vehicle type ${input.vehicle_type_id}` });
  }
  if (!catalogue.zones.some((z) => z.id === input.zone_id)) {
    errors.push({ path: "zone_id", message: `no zone ${input.zone_id}` });
  }
  if (errors.length > 0) throw new Refused(invalidFields(errors));
  const id = input.id ?? newId("pdr");
  const token = await issueCredential(driverTokenPrefix(deps.name), deps.clock.now());
  orRefuse(
    await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, id, {
      kind: "create",
      driver: {
        id,
        name: input.name,
        phone: input.phone,
        vehicle_type_id: input.vehicle_type_id,
        zone_id: input.zone_id,
        plate: input.plate ?? null,
        color: input.color ?? null,
        token: token.record,
      },
    }, { requestId: deps.requestId }),
  );
  return { id, token: token.secret };
}

/**
 * Replaces a pool driver's token (a phone lost, a token leaked): the new one is shown this once
 * (kept hashed) and the old one is refused from the next request on; shift and trips stay.
 */
export async function rotatePoolDriverToken(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "requestId">,
  driverId: string,
): Promise<{ readonly id: string; readonly token: string }> {
  // The token held as the operator asks is the one replaced: two replacements at once are one.
  const held = orRefuse(
    await deps.runtime.read(poolDriverActor, PLATFORM_TENANT, driverId, { kind: "get" }),
  );
  const token = await issueCredential(driverTokenPrefix(deps.name), deps.clock.now());
  orRefuse(
    await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, driverId, {
      kind: "rotate_token",
      token: token.record,
      replaces: held.token.hash,
    }, { requestId: deps.requestId }),
  );
  return { id: driverId, token: token.secret };
}

/** PUT /driver/shift: on or off shift; an offline driver is offered nothing. */
export async function setShift(
  deps: Pick<Deps, "runtime" | "requestId">,
  driverId: string,
  online: boolean,
): Promise<PoolDriver> {
  return orRefuse(
    await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, driverId, {
      kind: "set_shift",
      online,
    }, { requestId: deps.requestId }),
  );
}

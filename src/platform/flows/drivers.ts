/** Drivers the operator registers for a business (CONTRACT "Operator API"; courier 4.5). */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { driverActor } from "../../../actors/platform/driver.ts";
import { issueCredential } from "../../domain/credentials.ts";
import type { Deps, EnvironmentName } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";

export interface NewDriver {
  readonly name: string;
  readonly phone: string;
  readonly vehicle_type_id: number;
}

/** Driver tokens before they said their environment; such tokens keep working. */
export const DRIVER_TOKEN_PREFIX = "dt_";

/**
 * A driver token says its environment, as business and client keys do (Business API 5.2), so
 * live can answer a sandbox one with sandbox_key_on_live.
 */
export function driverTokenPrefix(env: EnvironmentName): string {
  return `${DRIVER_TOKEN_PREFIX}${env}_`;
}

/** A driver just registered: the bearer token is shown this once (kept hashed). */
export interface DriverRegistered {
  readonly id: string;
  readonly token: string;
}

export async function registerDriver(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "requestId">,
  businessId: string,
  input: NewDriver,
): Promise<DriverRegistered> {
  // An unknown business is not found, before any driver is made for it.
  orRefuse(await deps.runtime.read(businessActor, businessId, businessId, { kind: "get" }));
  const id = newId("drv");
  const token = await issueCredential(driverTokenPrefix(deps.name), deps.clock.now());
  orRefuse(
    await deps.runtime.ask(driverActor, businessId, id, {
      kind: "create",
      driver: { id, business_id: businessId, ...input, token: token.record },
    }, { requestId: deps.requestId }),
  );
  return { id, token: token.secret };
}

/**
 * Replaces a driver's token (a phone lost, a token leaked): the new one is shown this once (kept
 * hashed) and the old one is refused from the next request on, as a rotated business key is
 * (Business API 4.3). Another business's driver is not found.
 */
export async function rotateDriverToken(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "requestId">,
  businessId: string,
  driverId: string,
): Promise<DriverRegistered> {
  // The token held as the operator asks is the one replaced: two replacements at once are one.
  const held = orRefuse(
    await deps.runtime.read(driverActor, businessId, driverId, { kind: "get" }),
  );
  const token = await issueCredential(driverTokenPrefix(deps.name), deps.clock.now());
  orRefuse(
    await deps.runtime.ask(driverActor, businessId, driverId, {
      kind: "rotate_token",
      token: token.record,
      replaces: held.token.hash,
    }, { requestId: deps.requestId }),
  );
  return { id: driverId, token: token.secret };
}

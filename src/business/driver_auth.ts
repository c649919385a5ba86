/**
 * The driver app's credential (CONTRACT "Driver app"): `Authorization: Bearer <driver token>` of a
 * platform driver of the dispatch pool (POST /operator/drivers). The token says its environment,
 * as business keys and courier drivers' tokens do, so live answers a sandbox one with
 * sandbox_key_on_live.
 */
import type { Context, MiddlewareHandler } from "hono";
import { PLATFORM_TENANT } from "../../actors/platform/platform_settings.ts";
import { poolDriverActor } from "../../actors/business/pool_driver.ts";
import { bearerCredential } from "../http/bearer.ts";
import type { AppEnv } from "../http/context.ts";
import { rateLimit } from "../http/guards.ts";
import { POOL_DRIVER_RATE_LIMIT } from "../limits.ts";
import { driverTokenPrefix } from "../platform/flows/drivers.ts";
import { refuseIfNotNow } from "../platform/auth/credentials.ts";

/** Who a driver-app request comes from. */
export interface PoolDriverPrincipal {
  readonly kind: "pool_driver";
  readonly driver_id: string;
}

export const poolDriver: MiddlewareHandler<AppEnv> = bearerCredential<PoolDriverPrincipal>({
  noun: "driver token",
  prefix: driverTokenPrefix,
  refusals: {
    rate_limited: `the driver app's limit is reached: ${POOL_DRIVER_RATE_LIMIT.perMinute} calls ` +
      `a minute and ${POOL_DRIVER_RATE_LIMIT.perDay} a day per driver token, or too many calls ` +
      "came from this address without a known credential; wait `Retry-After` seconds",
  },
  find: poolDriverPrincipal,
  async admit(c, principal) {
    c.set("principal", principal);
    // CONTRACT "Driver app"; business 8: counted per driver, rate headers on every answer.
    await rateLimit(c, `pool_driver:${principal.driver_id}`, POOL_DRIVER_RATE_LIMIT);
  },
});

/** The pool driver a token's hash names, read afresh from the driver's actor. */
async function poolDriverPrincipal(
  c: Context<AppEnv>,
  hash: string,
): Promise<PoolDriverPrincipal | null> {
  const runtime = c.get("env").runtime;
  const target = await runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== poolDriverActor.type) return null;
  const r = await runtime.read(poolDriverActor, PLATFORM_TENANT, target.id, {
    kind: "authenticate",
    hash,
  });
  refuseIfNotNow(r);
  if (!r.ok) {
    runtime.forget("credential", hash);
    return null;
  }
  return { kind: "pool_driver", driver_id: r.reply.id };
}

/** The driver the `poolDriver` guard found. */
export function poolDriverOf(c: Context<AppEnv>): string {
  const p = c.get("principal") as PoolDriverPrincipal | undefined;
  if (p?.kind !== "pool_driver") throw new Error("route without the poolDriver guard");
  return p.driver_id;
}

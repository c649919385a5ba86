/**
 * The driver app's credential (CONTRACT "Driver app"): `Authorization: Bearer <driver token>` of a
 * platform driver of the dispatch pool (POST /operator/drivers). The token says its environment,
 * as business keys and courier drivers' tokens do, so live answers a sandbox one with
 * sandbox_key_on_live.
 */
import type { Context, MiddlewareHandler } from "hono";
import { PLATFORM_TENANT } from "../../actors/platform/platform_settings.ts";
import { poolDriverActor } from "../../actors/business/pool_driver.ts";
import { hashSecret } from "../domain/secrets.ts";
import type { AppEnv } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";
import { bearerToken, credentialRefusals } from "../http/guards.ts";
import { refusing } from "../http/refusals.ts";
import { driverTokenPrefix } from "../platform/flows/drivers.ts";

/** Who a driver-app request comes from. */
export interface PoolDriverPrincipal {
  readonly kind: "pool_driver";
  readonly driver_id: string;
}

export const poolDriver: MiddlewareHandler<AppEnv> = refusing({
  ...credentialRefusals("the driver token (`Authorization: Bearer`)"),
  sandbox_key_on_live: "a sandbox driver token was sent to live",
}, async (c, next) => {
  const env = c.get("env");
  const refused = (message: string) =>
    env.name === "sandbox"
      ? new ApiError("live_key_on_sandbox", "the sandbox accepts only sandbox driver tokens")
      : new ApiError("unauthenticated", message);
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw refused("driver token missing");
  if (env.name === "live" && token.startsWith(driverTokenPrefix("sandbox"))) {
    throw new ApiError(
      "sandbox_key_on_live",
      `a sandbox driver token was sent to live; use a ${driverTokenPrefix("live")} token`,
    );
  }
  const hash = await hashSecret(token);
  const target = await env.runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== poolDriverActor.type) throw refused("unknown driver token");
  const r = await env.runtime.read(poolDriverActor, PLATFORM_TENANT, target.id, {
    kind: "authenticate",
    hash,
  });
  if (!r.ok) {
    env.runtime.forget("credential", hash);
    throw refused("unknown driver token");
  }
  const principal: PoolDriverPrincipal = { kind: "pool_driver", driver_id: r.reply.id };
  c.set("principal", principal);
  await next();
});

/** The driver the `poolDriver` guard found. */
export function poolDriverOf(c: Context<AppEnv>): string {
  const p = c.get("principal") as PoolDriverPrincipal | undefined;
  if (p?.kind !== "pool_driver") throw new Error("route without the poolDriver guard");
  return p.driver_id;
}

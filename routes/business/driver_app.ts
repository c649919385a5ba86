/**
 * The dispatch pool's drivers (Business API 1.2; CONTRACT "Operator API" POST /operator/drivers and
 * "Driver app"): the operator registers a driver; the driver goes on and off shift and reports
 * positions, which update memory at once and are kept in batches.
 */
import { PLATFORM_TENANT } from "../../actors/platform/platform_settings.ts";
import { poolDriverActor } from "../../actors/business/pool_driver.ts";
import { poolDriver, poolDriverOf } from "../../src/business/driver_auth.ts";
import {
  registerPoolDriver,
  rotatePoolDriverToken,
  setShift,
} from "../../src/business/flows/pool_drivers.ts";
import { livePositionsOf } from "../../src/business/reactors/live_positions.ts";
import { iso } from "../../src/domain/iso.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { read } from "../../src/http/ask.ts";
import { ApiError } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { KEY_ALREADY_ROTATED } from "../../src/http/refusals.ts";
import { Phone, UtcInstant } from "../../src/http/schemas.ts";
import { operatorOnly } from "../../src/platform/auth/auth.ts";
import {
  PoolDriverAnswer,
  PoolDriverRegisteredAnswer,
  poolDriverView,
  PositionsAnswer,
} from "./answers/driver_app.ts";

const tag = "Driver app";

/** Positions one request may carry: a minute of pings kept through lost signal, and more. */
export const POSITIONS_PER_REQUEST_MAX = 100;
/** A device clock this far ahead of ours is wrong, not early. */
const FUTURE_SKEW_MS = 60_000;

const PositionInput = z.object({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
  accuracy: z.number().min(0).max(100_000).nullish(),
  heading: z.number().min(0).max(360).nullish(),
  // An example in the past: an observation ahead of the clock is refused.
  at: UtcInstant.openapi({ example: "2026-11-01T06:00:00.000Z" }),
});

export function driverAppRoutes(api: Api): void {
  poolDriverRoutes(api);

  define(
    api,
    {
      method: "put",
      path: "/driver/shift",
      summary: "Go online (offered trips) or offline",
      tag,
      security: "driver",
      middleware: [poolDriver],
      body: z.object({ online: z.boolean() }),
      response: PoolDriverAnswer,
    },
    async (c, { body }) =>
      ok(c, poolDriverView(await setShift(c.get("env"), poolDriverOf(c), body.online))),
  );

  define(api, {
    method: "get",
    path: "/driver/me",
    summary: "The driver as the service knows them: vehicle, zone, shift",
    tag,
    security: "driver",
    middleware: [poolDriver],
    response: PoolDriverAnswer,
  }, async (c) =>
    ok(
      c,
      poolDriverView(
        await read(c, poolDriverActor, PLATFORM_TENANT, poolDriverOf(c), { kind: "get" }),
      ),
    ));

  define(api, {
    method: "post",
    path: "/driver/positions",
    summary: "Report one or more positions (lat, lng, accuracy, heading, at)",
    description: "Updates the live views at once; positions are kept in batches. Positions " +
      "sent late after lost signal are taken in any order: the newest observed one is current.",
    tag,
    security: "driver",
    middleware: [poolDriver],
    body: z.object({
      positions: z.array(PositionInput).min(1).max(POSITIONS_PER_REQUEST_MAX),
    }),
    response: PositionsAnswer,
  }, (c, { body }) => {
    const env = c.get("env");
    const now = env.clock.now();
    const positions = body.positions.map((p) => ({
      lat: p.lat,
      lng: p.lng,
      accuracy: p.accuracy ?? null,
      heading: p.heading ?? null,
      at: Date.parse(p.at),
    }));
    const ahead = positions.findIndex((p) => p.at > now + FUTURE_SKEW_MS);
    if (ahead >= 0) {
      const message = "observed in the future: the device clock is wrong";
      throw new ApiError(
        "validation_failed",
        `invalid request: positions.${ahead}.at: ${message}`,
        {
          errors: [{ path: `positions.${ahead}.at`, message }],
        },
      );
    }
    const latest = livePositionsOf(env).report(poolDriverOf(c), positions);
    return ok(c, { accepted: positions.length, latest_at: iso(latest!.at) });
  });
}

/** The operator's platform drivers: registered with a token, and the token replaced. */
function poolDriverRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/operator/drivers",
    summary: "Register a platform driver of the dispatch pool; answers the bearer token once",
    description: "A platform driver takes Business API trips in its zone with its vehicle type. " +
      "The token is shown only in this answer; the service keeps it hashed.",
    tag,
    security: "operator",
    middleware: [operatorOnly],
    body: z.object({
      name: z.string().trim().min(1).max(200),
      phone: Phone,
      vehicle_type_id: z.number().int().positive(),
      zone_id: z.string().trim().min(1).max(64).openapi({ example: "gaborone" }),
      plate: z.string().trim().min(1).max(20).optional(),
      color: z.string().trim().min(1).max(40).optional(),
    }),
    status: 201,
    response: PoolDriverRegisteredAnswer,
  }, async (c, { body }) => ok(c, await registerPoolDriver(c.get("env"), body), 201));

  define(api, {
    method: "post",
    path: "/operator/drivers/{id}/token",
    summary: "Replace a platform driver's bearer token; answers the new one once",
    description: "The old token is refused from the very next request on (401); the driver's " +
      "shift and trips stay. The new token is shown only in this answer; the service keeps it " +
      "hashed.",
    tag,
    security: "operator",
    middleware: [operatorOnly],
    params: z.object({ id: z.string().min(1).max(64) }),
    status: 201,
    response: PoolDriverRegisteredAnswer,
    refusals: KEY_ALREADY_ROTATED,
  }, async (c, { params }) => ok(c, await rotatePoolDriverToken(c.get("env"), params.id), 201));
}

/**
 * What each layer of the request path costs (issue 36 item 5), in one run: µs a request, in
 * process (`app.request`, one request at a time, no socket), from a bare Hono route up to a
 * client's price request, each layer added to the one before:
 *
 * 1. bare Hono: one route answering `{success, data}`;
 * 2. + the request log and metrics (request_log.ts) in front of it;
 * 3. our app: a route made by define() behind createApp (request gate, envelope), no guard;
 * 4. + the client key's authentication (courier/auth.ts client()), its identity remembered;
 * 5. the same with the remembered identity dropped before each request (what a cache miss costs);
 * 6. + a JSON body parsed and checked against the price request's zod schema;
 * 7. the real POST /client/prices (pricing, the offer written), for scale;
 * 8. layer 4 with the plan limit counted in the query side as a deployment of several instances
 *    counts it (shared_rate_limit.ts: one upsert; here PGlite, on Postgres a round trip), its
 *    cost shown against layer 4.
 *
 * Rounds alternate over the layers, so load from other processes weighs on none more than
 * another; the figure is the serving thread's CPU a request over every round (Linux), with the
 * best round's wall time beside it.
 */
import { Hono } from "hono";
import type { MiddlewareHandler } from "hono";
import { ok } from "../src/http/app.ts";
import type { Api } from "../src/http/app.ts";
import { define } from "../src/http/route.ts";
import type { AppEnv } from "../src/http/context.ts";
import { refusing } from "../src/http/refusals.ts";
import { observeRequests } from "../src/http/request_log.ts";
import { createLogger, stdoutDestination } from "../src/observe/log.ts";
import { Metrics } from "../src/observe/metrics.ts";
import { client } from "../src/courier/auth.ts";
import { credentialCacheOf } from "../src/platform/auth/credential_cache.ts";
import { PriceRequest } from "../routes/courier/answers/booking.ts";
import { SharedRateCounter } from "../src/http/shared_rate_limit.ts";
import { runtimeTarget } from "./runtime_target.ts";
import { threadCpuMs } from "./cpu.ts";
import { recordFigure } from "./summary.ts";

const ROUND_MS = 500;
const ROUNDS = 6;

const PRICE_BODY = JSON.stringify({
  recipient_name: "Neo",
  recipient_phone: "+26771234567",
  parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
  from_country: "BW",
  to_country: "BW",
});

/** The layers 3 to 6 and 8 as routes of the environment's own app. */
function layerRoutes(
  dropIdentity: MiddlewareHandler<AppEnv>,
  sharedCount: MiddlewareHandler<AppEnv>,
): (api: Api) => void {
  return (api) => {
    const doc = { summary: "bench", tag: "Bench", security: "client" as const };
    define(
      api,
      { ...doc, method: "get", path: "/bench/plain", security: "public" },
      (c) => ok(c, { ok: true }),
    );
    define(
      api,
      { ...doc, method: "get", path: "/bench/client", middleware: [client()] },
      (c) => ok(c, { ok: true }),
    );
    define(
      api,
      { ...doc, method: "get", path: "/bench/client-miss", middleware: [dropIdentity, client()] },
      (c) => ok(c, { ok: true }),
    );
    define(
      api,
      { ...doc, method: "get", path: "/bench/client-shared", middleware: [client(), sharedCount] },
      (c) => ok(c, { ok: true }),
    );
    define(api, {
      ...doc,
      method: "post",
      path: "/bench/client-body",
      middleware: [client()],
      body: PriceRequest,
    }, (c, { body }) => ok(c, { parcels: body.parcels.length }));
  };
}

interface Round {
  readonly requests: number;
  readonly wallUs: number;
  readonly cpuMs: number;
}

/** One round of requests, one at a time. */
async function oneRound(send: () => Response | Promise<Response>): Promise<Round> {
  const deadline = performance.now() + ROUND_MS;
  const started = performance.now();
  const cpu = threadCpuMs();
  let done = 0;
  while (performance.now() < deadline) {
    const r = await send();
    if (r.status >= 300) throw new Error(`request path bench: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
    done++;
  }
  return {
    requests: done,
    wallUs: (performance.now() - started) * 1000,
    cpuMs: threadCpuMs() - cpu,
  };
}

function bareApp(first?: MiddlewareHandler): Hono {
  const app = new Hono();
  if (first) app.use("*", first);
  app.get("/api/bench/plain", (c) => c.json({ success: true, data: { ok: true } }));
  return app;
}

export async function requestPathBench(): Promise<void> {
  const devNull = await Deno.open("/dev/null", { write: true });
  const out = stdoutDestination(devNull);
  const observe = observeRequests({
    name: "live",
    log: createLogger("info", out),
    metrics: new Metrics(),
  });
  // A guard refusing nothing, as define() wants every guard to say.
  const dropIdentity = refusing({}, async (c, next) => {
    credentialCacheOf(c.get("env").runtime)?.clear();
    await next();
  });
  // What the guard counts besides the instance's memory, with the bench courier's limits.
  let shared: SharedRateCounter | null = null;
  const sharedCount = refusing({}, async (c, next) => {
    const env = c.get("env");
    shared ??= new SharedRateCounter({
      db: env.db,
      clock: env.clock,
      fallback: env.rateLimiter,
      log: env.log,
    });
    const d = await shared.take("bench", { perMinute: 1_000_000, perDay: 100_000_000 });
    if (!d.allowed) throw new Error("request path bench: the shared count refused");
    await next();
  });
  const target = await runtimeTarget(1, undefined, [layerRoutes(dropIdentity, sharedCount)]);
  const key = { "X-Client-API-Key": target.keys[0]! };
  const post = (path: string) =>
    target.app.request(path, {
      method: "POST",
      headers: { ...key, "Content-Type": "application/json" },
      body: PRICE_BODY,
    });
  const bare = bareApp();
  const observed = bareApp(observe);
  // [label, figure name, request, the layer its cost is shown against (default: the one before)]
  const layers: [string, string, () => Response | Promise<Response>, string?][] = [
    ["bare Hono", "bare", () => bare.request("/api/bench/plain")],
    [
      "+ request log and metrics",
      "observed",
      () => observed.request("/api/bench/plain"),
    ],
    ["our app, define(), no guard", "app", () => target.app.request("/api/bench/plain")],
    [
      "+ client key (identity remembered)",
      "auth",
      () => target.app.request("/api/bench/client", { headers: key }),
    ],
    [
      "+ client key (identity read each time)",
      "auth_uncached",
      () => target.app.request("/api/bench/client-miss", { headers: key }),
    ],
    ["+ JSON body and zod (price request)", "body", () => post("/api/bench/client-body")],
    ["POST /client/prices (pricing, offer written)", "prices", () => post("/api/client/prices")],
    [
      "client key, plan limit in the query side (vs. client key)",
      "shared_limit",
      () => target.app.request("/api/bench/client-shared", { headers: key }),
      "auth",
    ],
  ];
  try {
    const rounds = new Map<string, Round[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, , send] of layers) {
        rounds.set(label, [...(rounds.get(label) ?? []), await oneRound(send)]);
      }
    }
    let previous: number | null = null;
    const byName = new Map<string, number>();
    for (const [label, name, , against] of layers) {
      const rs = rounds.get(label)!;
      // Wall time: the best round. CPU: the serving thread's over every round, which other
      // processes' load disturbs far less than the wall clock.
      const wall = Math.min(...rs.map((r) => r.wallUs / r.requests));
      const cpu = (rs.reduce((n, r) => n + r.cpuMs, 0) * 1000) /
        rs.reduce((n, r) => n + r.requests, 0);
      const base = against === undefined ? previous : byName.get(against) ?? null;
      const delta = base === null ? "" : ` (${cpu >= base ? "+" : ""}${(cpu - base).toFixed(1)})`;
      console.log(
        `request path, ${label}: ${cpu.toFixed(1)} µs CPU a request${delta}, ` +
          `${wall.toFixed(1)} µs wall (best round)`,
      );
      recordFigure(`request_cpu_us_${name}`, cpu);
      byName.set(name, cpu);
      previous = cpu;
    }
  } finally {
    await target.close();
    out.flush();
    devNull.close();
  }
}

if (import.meta.main) await requestPathBench();

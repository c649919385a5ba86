/**
 * What the request log and the metrics cost (issue 35 "Measured, not asserted"): a hello-world
 * route's requests per second with them (request_log.ts: a log line at `info` to a buffered file,
 * the request's latency in its histogram) and without (the request id and environment headers
 * only, as before), in the same run. Rounds alternate, and each variant's best round counts, so
 * load from other processes on the machine weighs on neither more than the other.
 *
 * In process (`app.request`, no socket): the cost's largest share of a request, an upper bound.
 * Over HTTP on loopback (Deno.serve, 32 fetch loops in this process): what a client sees.
 */
import { Hono } from "hono";
import type { MiddlewareHandler } from "hono";
import { observeRequests } from "../src/http/request_log.ts";
import { createLogger, stdoutDestination } from "../src/observe/log.ts";
import { Metrics } from "../src/observe/metrics.ts";
import { cpuSample } from "./cpu.ts";
import { recordFigure } from "./summary.ts";

const ROUND_MS = 1_500;
const ROUNDS = 4;
const HTTP_ROUNDS = 4;
const HTTP_LOOPS = 32;

/** What every request passed before this issue: a fresh request id and the environment. */
const bare: MiddlewareHandler = async (c, next) => {
  c.header("X-Request-Id", crypto.randomUUID());
  c.header("X-Service-Environment", "live");
  await next();
};

function helloApp(first: MiddlewareHandler): Hono {
  const app = new Hono();
  app.use("*", first);
  const api = new Hono();
  api.get("/hello/:name", (c) => c.json({ success: true, data: { hello: c.req.param("name") } }));
  app.route("/api", api);
  return app;
}

interface Rate {
  readonly perSecond: number;
  /** This process's CPU per request, µs (absent off Linux). */
  readonly cpuUs: number | null;
}

/** Requests answered in one round by `send`, `loops` at a time. */
async function round(send: () => Promise<Response>, loops: number): Promise<Rate> {
  const before = cpuSample();
  const deadline = performance.now() + ROUND_MS;
  const started = performance.now();
  let done = 0;
  await Promise.all(Array.from({ length: loops }, async () => {
    while (performance.now() < deadline) {
      const r = await send();
      await r.arrayBuffer();
      done++;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const after = cpuSample();
  const cpuUs = before && after ? ((after.self - before.self) * 1000) / done : null;
  return { perSecond: done / seconds, cpuUs };
}

/** Best round of each, alternating. */
async function compare(
  rounds: number,
  without: () => Promise<Rate>,
  withThem: () => Promise<Rate>,
): Promise<[Rate, Rate]> {
  const a: Rate[] = [];
  const b: Rate[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await without());
    b.push(await withThem());
  }
  const best = (rs: Rate[]) => rs.reduce((x, y) => (y.perSecond > x.perSecond ? y : x));
  return [best(a), best(b)];
}

function report(label: string, figure: string, [without, withThem]: [Rate, Rate]): void {
  const cost = (1 - withThem.perSecond / without.perSecond) * 100;
  recordFigure(figure, cost);
  // CPU a request is what the shared machine's load disturbs least: its share is the figure.
  const cpuCost = without.cpuUs !== null && withThem.cpuUs !== null
    ? (withThem.cpuUs / without.cpuUs - 1) * 100
    : NaN;
  recordFigure(`${figure.replace("_cost_", "_cpu_cost_")}`, cpuCost);
  const cpu = without.cpuUs !== null && withThem.cpuUs !== null
    ? `; CPU ${without.cpuUs.toFixed(1)} -> ${withThem.cpuUs.toFixed(1)} µs a request ` +
      `(${cpuCost.toFixed(1)}%)`
    : "";
  console.log(
    `request log and metrics, ${label}: ${without.perSecond.toFixed(0)} requests/s without, ` +
      `${withThem.perSecond.toFixed(0)} with: ${cost.toFixed(1)}% cost (goal under 5%)${cpu}`,
  );
}

export async function observabilityBench(): Promise<void> {
  const devNull = await Deno.open("/dev/null", { write: true });
  const out = stdoutDestination(devNull);
  const env = { name: "live" as const, log: createLogger("info", out), metrics: new Metrics() };
  const plain = helloApp(bare);
  const observed = helloApp(observeRequests(env));
  const local = (app: Hono) => () =>
    round(() => Promise.resolve(app.request("/api/hello/world")), 1);
  report(
    "in process",
    "observability_cost_pct_in_process",
    await compare(ROUNDS, local(plain), local(observed)),
  );

  const serve = (app: Hono) =>
    Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  const servers = [serve(plain), serve(observed)];
  const remote = (s: Deno.HttpServer<Deno.NetAddr>) => () =>
    round(() => fetch(`http://127.0.0.1:${s.addr.port}/api/hello/world`), HTTP_LOOPS);
  try {
    report(
      `HTTP, ${HTTP_LOOPS} clients`,
      "observability_cost_pct_http",
      await compare(HTTP_ROUNDS, remote(servers[0]!), remote(servers[1]!)),
    );
  } finally {
    for (const s of servers) await s.shutdown();
    out.flush();
    devNull.close();
  }
}

/**
 * What the request log and the metrics cost (issue 35 "Measured, not asserted"): a hello-world
 * route's requests per second with them (request_log.ts: a log line at `info` to a buffered file,
 * the request's latency in its histogram) and without (the request id and environment headers
 * only), in the same run.
 *
 * In process (`app.request`, no socket): the cost's largest share of a request, an upper bound.
 * Over HTTP on loopback (Deno.serve): what a client sees. Its load comes from a Worker, so the
 * clients' fetches (twice the server's CPU a request) do not share the serving thread: sharing
 * it, they halved the cost's share and their own noise decided the figure.
 *
 * Rounds alternate, in the order ABBA, so a variant neither always follows the other nor runs
 * at the same moments of a load from other processes. Two figures each: the best round's
 * requests per second, and the serving thread's CPU a request over every round (Linux), which
 * other processes on a shared machine disturb less.
 */
import { Hono } from "hono";
import type { MiddlewareHandler } from "hono";
import { observeRequests } from "../src/http/request_log.ts";
import { createLogger, stdoutDestination } from "../src/observe/log.ts";
import { Metrics } from "../src/observe/metrics.ts";
import { threadCpuMs } from "./cpu.ts";
import { recordFigure } from "./summary.ts";

const ROUND_MS = 1_000;
const ROUNDS = 6;
const HTTP_ROUNDS = 10;
const HTTP_LOOPS = 32;

/**
 * The request id and environment headers alone, set as request_log.ts sets them: on the answer,
 * after the handler. Set before it (Hono's c.header, the baseline until now), they cost a request
 * over HTTP some 3 µs more (a Headers object built, checked and copied into the answer), a
 * difference that was counted in the request log's favour.
 */
const bare: MiddlewareHandler = async (c, next) => {
  const requestId = crypto.randomUUID();
  await next();
  c.res.headers.set("X-Request-Id", requestId);
  c.res.headers.set("X-Service-Environment", "live");
};

function helloApp(first: MiddlewareHandler): Hono {
  const app = new Hono();
  app.use("*", first);
  const api = new Hono();
  api.get("/hello/:name", (c) => c.json({ success: true, data: { hello: c.req.param("name") } }));
  app.route("/api", api);
  return app;
}

interface Round {
  readonly requests: number;
  readonly seconds: number;
  /** The serving thread's CPU in the round, ms. */
  readonly cpuMs: number;
}

/** Requests answered in one round by `send`, one at a time, in process. */
async function localRound(app: Hono): Promise<Round> {
  const cpu = threadCpuMs();
  const started = performance.now();
  const deadline = started + ROUND_MS;
  let requests = 0;
  while (performance.now() < deadline) {
    await (await app.request("/api/hello/world")).arrayBuffer();
    requests++;
  }
  return { requests, seconds: (performance.now() - started) / 1000, cpuMs: threadCpuMs() - cpu };
}

/** One round of the Worker's clients against `port`. */
function httpRound(worker: Worker, port: number): Promise<Round> {
  const cpu = threadCpuMs();
  return new Promise((resolve, reject) => {
    worker.onmessage = (e) => {
      if (!e.data.ok) reject(new Error(e.data.error));
      else resolve({ requests: e.data.done, seconds: e.data.seconds, cpuMs: threadCpuMs() - cpu });
    };
    worker.postMessage({
      url: `http://127.0.0.1:${port}/api/hello/world`,
      ms: ROUND_MS,
      loops: HTTP_LOOPS,
    });
  });
}

/** Each variant's rounds, in the order ABBA. */
async function compare(
  rounds: number,
  without: () => Promise<Round>,
  withThem: () => Promise<Round>,
): Promise<[Round[], Round[]]> {
  const a: Round[] = [];
  const b: Round[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      a.push(await without());
      b.push(await withThem());
    } else {
      b.push(await withThem());
      a.push(await without());
    }
  }
  return [a, b];
}

/** Best round's requests a second; the serving thread's CPU a request over every round, µs. */
function rate(rounds: Round[]): { perSecond: number; cpuUs: number } {
  const perSecond = Math.max(...rounds.map((r) => r.requests / r.seconds));
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const cpuUs = (rounds.reduce((n, r) => n + r.cpuMs, 0) * 1000) / requests;
  return { perSecond, cpuUs };
}

function report(label: string, figure: string, [a, b]: [Round[], Round[]]): void {
  const without = rate(a);
  const withThem = rate(b);
  const cost = (1 - withThem.perSecond / without.perSecond) * 100;
  recordFigure(figure, cost);
  const cpuCost = (withThem.cpuUs / without.cpuUs - 1) * 100;
  recordFigure(figure.replace("_cost_", "_cpu_cost_"), cpuCost);
  const cpu = Number.isNaN(cpuCost)
    ? ""
    : `; serving thread's CPU ${without.cpuUs.toFixed(1)} -> ` +
      `${withThem.cpuUs.toFixed(1)} µs a request (${cpuCost.toFixed(1)}%)`;
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
  report(
    "in process",
    "observability_cost_pct_in_process",
    await compare(ROUNDS, () => localRound(plain), () => localRound(observed)),
  );

  const serve = (app: Hono) =>
    Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  const servers = [serve(plain), serve(observed)] as const;
  const worker = new Worker(new URL("./hello_load_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    const [a, b] = servers.map((s) => () => httpRound(worker, s.addr.port));
    // A round each first, unrecorded: the JIT has seen neither server's path yet.
    await a!();
    await b!();
    report(
      `HTTP, ${HTTP_LOOPS} clients in a Worker`,
      "observability_cost_pct_http",
      await compare(HTTP_ROUNDS, a!, b!),
    );
  } finally {
    worker.terminate();
    for (const s of servers) await s.shutdown();
    out.flush();
    devNull.close();
  }
}

/**
 * A whole environment for HTTP tests, in process (`app.request()`): in-memory KV, the real NATS
 * and Postgres when NATS_URL / DATABASE_URL are set (in a fresh schema dropped at the end),
 * otherwise the in-process bus and embedded PGlite; the actors too in that schema with
 * ACTOR_STORE=postgres. The clock is manual.
 */
import type { LeasedSettings } from "../../src/config.ts";
import type { Hono } from "hono";
import { type Bus, openBus } from "../../src/bus/mod.ts";
import { hashSecret, importDataKey } from "../../src/domain/secrets.ts";
import "./pglite_reuse.ts";
import type { EnvironmentName, SandboxTwins } from "../../src/environment.ts";
import type { Feature } from "../../src/feature.ts";
import type { Api } from "../../src/http/app.ts";
import type { UndocumentedRefusal } from "../../src/http/refusals.ts";
import { createLogger, type LogDestination } from "../../src/observe/log.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { Placement } from "../../src/runtime/placement.ts";
import { type OpenEnvironment, openEnvironment } from "../../src/server.ts";
import { claimSchema } from "./schema_pool.ts";

export const OPERATOR_TOKEN = "op_test_operator_token_0123456789";

/**
 * PBKDF2 iterations of the passwords a test environment hashes: still PBKDF2 and still checked,
 * at a hundredth of the production count (src/limits.ts PBKDF2_ITERATIONS), since the suite
 * creates thousands of owners, staff and client users.
 */
export const TEST_PASSWORD_ITERATIONS = 1_000;

/**
 * Postgres connections a test environment's query side may hold (the service's: 10). Each new
 * connection costs the server a backend, its catalog caches and every statement planned again:
 * with 10, the business route tests opened about 7 connections a test and Postgres spent 185 CPU
 * seconds on 355 tests; with 3, about 4 a test and 123 seconds, the tests' wall time a sixth less.
 */
export const TEST_POOL_MAX = 3;

export interface TestEnv extends OpenEnvironment {
  readonly clock: ManualClock;
  /** JSON request helper; returns status, headers and parsed body. */
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Waits until the projections hold everything committed so far (a sync sentinel). */
  settle(): Promise<void>;
  /** POST /operator/businesses, returning its answer's data. */
  createBusiness(overrides?: Record<string, unknown>): Promise<CreatedBusiness>;
  /**
   * Refusals answered that the route's OpenAPI entry does not list (strict mode: each answered
   * 500 `undocumented_refusal`). close() fails while any is here, so none goes unseen.
   */
  readonly undocumented: UndocumentedRefusal[];
  /** What a second instance of this deployment shares (openTestEnv `alongside`). */
  readonly deployment: { readonly kvPath: string; readonly schema: string; readonly bus: Bus };
}

export interface CallOptions {
  /** Sent as JSON, or as multipart/form-data when it is a FormData. */
  readonly body?: unknown;
  readonly key?: string;
  readonly bearer?: string;
  readonly operator?: boolean;
  readonly headers?: Record<string, string>;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // deno-lint-ignore no-explicit-any
  readonly body: any;
}

export interface CreatedBusiness {
  readonly id: string;
  readonly api_key: string;
  readonly webhook_secret: string;
  readonly owner: { email: string; password: string };
}

let counter = 0;

export async function openTestEnv(
  options: {
    name?: EnvironmentName;
    routers?: readonly ((api: Api) => void)[];
    /** Another environment's bus, shared (its owner drains it): two deployments on one NATS. */
    bus?: Bus;
    /** The `PUBLIC_URL` setting; unset: links take the request's address. */
    publicUrl?: string;
    /**
     * Strict mode (default on): a refusal a route's OpenAPI entry does not list answers 500
     * `undocumented_refusal` and fails close(). Off only to show the answers production gives.
     */
    strictRefusals?: boolean;
    /** A KV file to open instead of a store in memory (a restart opens it again). */
    kvPath?: string;
    /**
     * PGlite's data folder, as a started server's (its PGlite then runs in a worker): the query
     * side is embedded even when DATABASE_URL is set.
     */
    pgliteDir?: string;
    /** The key sealing secrets at rest; one of its own when absent. */
    dataKey?: CryptoKey;
    /**
     * Where the log's lines go, from level `info`; absent: nowhere (tests run quiet, so their
     * output does not grow with every request).
     */
    log?: LogDestination;
    /** The features to run instead of all of them (a test adds a feature of its own). */
    features?: readonly Feature[];
    /**
     * Another instance of that environment's deployment: its KV file (open it with `kvPath`),
     * bus and query side (its Postgres schema, or its embedded PGlite), plan limits counted in
     * it. Closing this one leaves them to the first.
     */
    alongside?: TestEnv;
    /** Plan limits counted in the query side even on one embedded PGlite (server.ts). */
    sharedRateLimits?: boolean;
    /** Live: the sandbox it reaches for credentials (Business API 4.4; sandboxTwinsOf). */
    sandboxTwins?: SandboxTwins;
    /** Partitions leased in the actor store (PLACEMENT=leased); absent: it holds them all. */
    leased?: LeasedSettings;
    /** The partitions this instance holds (forwarding tests); absent, all of them. */
    placement?: Placement;
    /** How long a forward looks for a holder (EnvironmentOptions.forwardWaitMs). */
    forwardWaitMs?: number;
    /** A projection's lag before writes are refused (EnvironmentOptions.projectionBacklogMax). */
    projectionBacklogMax?: number;
  } = {},
): Promise<TestEnv> {
  const name = options.name ?? "live";
  const clock = new ManualClock();
  const peer = options.alongside;
  if (peer && peer.deployment.kvPath === ":memory:") {
    throw new Error("an instance alongside another shares its KV file: open the first with kvPath");
  }
  const bus = options.bus ?? peer?.deployment.bus ?? await openBus(Deno.env.get("NATS_URL"));
  const databaseUrl = Deno.env.get("DATABASE_URL");
  // A migrated schema from the pool (schema_pool.ts) rather than one migrated for this test.
  const pooled = databaseUrl && !options.pgliteDir && !peer ? await claimSchema(databaseUrl) : null;
  const schema = peer?.deployment.schema ?? pooled?.schema ??
    `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const kvPath = options.kvPath ?? peer?.deployment.kvPath ?? ":memory:";
  const undocumented: UndocumentedRefusal[] = [];
  // ACTOR_STORE=postgres: actors in the test's schema too (dropped with it), as a server would.
  const onPostgres = Deno.env.get("ACTOR_STORE") === "postgres" && databaseUrl !== undefined;
  const opened = await openEnvironment({
    name,
    kvPath,
    ...(onPostgres ? { actorStoreUrl: databaseUrl } : {}),
    ...(options.pgliteDir ? { pgliteDir: options.pgliteDir } : databaseUrl ? { databaseUrl } : {}),
    ...(peer && !databaseUrl ? { sharedDatabase: peer.env.db } : {}),
    ...(options.sharedRateLimits === undefined
      ? {}
      : { sharedRateLimits: options.sharedRateLimits }),
    schema,
    bus,
    clock,
    // An instance alongside another shares its data key, as instances share SECRETS_KEY.
    dataKey: options.dataKey ?? peer?.env.dataKey ??
      await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    operatorTokenHash: await hashSecret(OPERATOR_TOKEN),
    allowLoopbackWebhooks: true,
    log: options.log
      ? createLogger("info", options.log)
      : createLogger("silent", { write: () => {} }),
    ...(options.routers ? { extraRouters: options.routers } : {}),
    ...(options.features ? { features: options.features } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.sandboxTwins ? { sandboxTwins: options.sandboxTwins } : {}),
    ...(options.leased ? { leased: options.leased } : {}),
    ...(options.placement ? { placement: options.placement } : {}),
    ...(options.forwardWaitMs === undefined ? {} : { forwardWaitMs: options.forwardWaitMs }),
    ...(options.projectionBacklogMax === undefined
      ? {}
      : { projectionBacklogMax: options.projectionBacklogMax }),
    passwordIterations: TEST_PASSWORD_ITERATIONS,
    databasePoolMax: TEST_POOL_MAX,
    ...(options.strictRefusals === false
      ? {}
      : { undocumentedRefusal: (u: UndocumentedRefusal) => undocumented.push(u) }),
  }).catch(async (error) => {
    await pooled?.release();
    throw error;
  });
  const app: Hono = opened.app;
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    // A FormData body goes as multipart/form-data (its boundary set by the request).
    const form = o.body instanceof FormData ? o.body : null;
    if (o.body !== undefined && !form) headers["Content-Type"] = "application/json";
    if (o.key) headers["X-Business-API-Key"] = o.key;
    if (o.bearer) headers["Authorization"] = `Bearer ${o.bearer}`;
    if (o.operator) headers["Authorization"] = `Bearer ${OPERATOR_TOKEN}`;
    const res = await app.request(`/api${path}`, {
      method,
      headers,
      ...(o.body === undefined ? {} : { body: form ?? JSON.stringify(o.body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  return {
    ...opened,
    clock,
    call,
    undocumented,
    deployment: { kvPath, schema, bus },
    settle: () => opened.env.settle(),
    async createBusiness(overrides = {}) {
      const r = await call("POST", "/operator/businesses", {
        operator: true,
        body: {
          name: "Kgalagadi Couriers",
          plan: "business",
          currency: "BWP",
          country: "BW",
          owner_email: `owner${++counter}.${crypto.randomUUID().slice(0, 8)}@example.com`,
          ...overrides,
        },
      });
      if (r.status !== 201) {
        throw new Error(`create business: ${r.status} ${JSON.stringify(r.body)}`);
      }
      return r.body.data as CreatedBusiness;
    },
    async close() {
      await opened.close();
      if (pooled) await pooled.release();
      else if (databaseUrl && !options.pgliteDir && !peer) {
        await dropTestSchema(databaseUrl, schema);
      }
      if (!options.bus && !peer) await bus.drain();
      if (undocumented.length > 0) {
        const seen = [...new Set(undocumented.map((u) => `${u.route}: ${u.code} (${u.status})`))];
        throw new Error(`refusals the OpenAPI document does not list:\n  ${seen.join("\n  ")}`);
      }
    },
  };
}

async function dropTestSchema(url: string, schema: string): Promise<void> {
  const { openDatabase } = await import("../../src/db/db.ts");
  const { dropSchema } = await import("../../src/db/migrate.ts");
  const h = await openDatabase({ url, schema });
  try {
    await dropSchema(h.db, schema);
  } finally {
    await h.close();
  }
}

/** Runs `fn` against a fresh environment and always closes it. */
export async function withTestEnv(
  fn: (t: TestEnv) => Promise<void>,
  options: Parameters<typeof openTestEnv>[0] = {},
): Promise<void> {
  const t = await openTestEnv(options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

/**
 * POSTs `body` as a stream, which carries no Content-Length, as a chunked request does not: the
 * request cap must hold whatever length is declared. Answers the raw response.
 */
export function postChunked(
  t: TestEnv,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array | ReadableStream<Uint8Array>,
): Promise<Response> {
  const stream = body instanceof Uint8Array
    ? new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(body);
        ctl.close();
      },
    })
    : body;
  return Promise.resolve(t.app.request(`/api${path}`, {
    method: "POST",
    headers,
    body: stream,
    duplex: "half",
  } as RequestInit));
}

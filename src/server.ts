/**
 * Opens one environment (live or sandbox) with its own KV file, database schema, bus prefix, keys
 * and scheduler, and builds its HTTP app. main.ts opens two; tests open one in memory.
 */
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import type { Bus } from "./bus/bus.ts";
import { type DatabaseHandle, openDatabase } from "./db/db.ts";
import type { Database } from "./db/schema.ts";
import { type Projector, startProjector } from "./db/projection.ts";
import { syncSubject } from "./db/sync.ts";
import type { Deps, EnvironmentName, SandboxTwins } from "./environment.ts";
import type { Environment } from "./http/context.ts";
import type { Feature, FeatureParts, Projection, Reactor } from "./feature.ts";
import { FEATURES } from "./features.ts";
import { type Api, createApp } from "./http/app.ts";
import { LoginThrottle } from "./http/login_throttle.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { SharedRateCounter, sweepRateCounters } from "./http/shared_rate_limit.ts";
import { SharedLoginThrottle, sweepLoginThrottles } from "./http/shared_login_throttle.ts";
import type { UndocumentedRefusal } from "./http/refusals.ts";
import { BILLING_SWEEP_MS, PROJECTION_BACKLOG_MAX, TIMER_POLL_MS } from "./limits.ts";
import { projectionBound } from "./db/projection_bound.ts";
import type { Clock } from "./runtime/clock.ts";
import { KvActorStore } from "./runtime/kv_store.ts";
import { PgActorStore } from "./runtime/pg_store.ts";
import { runOldDataPasses } from "./runtime/old_data.ts";
import type { ActorRuntime } from "./runtime/runtime.ts";
import { placementOf, runtimeOf } from "./environment_runtime.ts";
import type { LeasedSettings } from "./config.ts";
import { watchMachinery } from "./observe/gauges.ts";
import type { Logger } from "./observe/log.ts";
import { Metrics } from "./observe/metrics.ts";
import { derivedKey } from "./domain/secrets.ts";
import type { Placement } from "./runtime/placement.ts";

export interface EnvironmentOptions {
  readonly name: EnvironmentName;
  /** A KV file path, `:memory:`, or a KV Connect URL. */
  readonly kvPath: string;
  /**
   * The actor store on Postgres at this URL, its tables in `schema` (pg_store.ts), instead of
   * Deno KV at `kvPath` (config `ACTOR_STORE=postgres`).
   */
  readonly actorStoreUrl?: string;
  /** Postgres URL; embedded PGlite when absent. */
  readonly databaseUrl?: string;
  /** PGlite's folder; in memory when absent. */
  readonly pgliteDir?: string;
  /** PGlite in a worker, off the serving thread; default: on with `pgliteDir` (db.ts). */
  readonly pgliteWorker?: boolean;
  /**
   * Another instance's open query side, shared instead of opening one (tests: two instances of
   * one deployment on one embedded PGlite); left open at close, its opener closes it.
   */
  readonly sharedDatabase?: Kysely<Database>;
  /** The query side's Postgres connections at most (db.ts; tests: fewer); absent, its default. */
  readonly databasePoolMax?: number;
  /**
   * Plan limits, addresses' calls, failed sign-ins and the outbound backlog's pace counted in the
   * query side, so they hold across the instances sharing it (Business API 8, issue 43 item 4);
   * default: with `databaseUrl` or `sharedDatabase`. Off, in memory.
   */
  readonly sharedRateLimits?: boolean;
  /** The Postgres schema of this environment. */
  readonly schema: string;
  readonly bus: Bus;
  readonly clock: Clock;
  readonly dataKey: CryptoKey;
  readonly operatorTokenHash: string;
  readonly allowLoopbackWebhooks: boolean;
  /** The environment's public address (CONTRACT "Running" plus README `PUBLIC_URL`). */
  readonly publicUrl?: string;
  /**
   * This machine's own address (`http://HOST:PORT`): links made without a request (a trip
   * webhook's tracking_url) start with it when no public address is set. Absent (tests, in
   * process): `http://localhost`, the address an in-process request without a host is given.
   */
  readonly listenUrl?: string;
  /** Routers mounted after the product's own (tests mount probes of shared guards). */
  readonly extraRouters?: readonly ((api: Api) => void)[];
  /** Strict mode (tests): each refusal a route answers that its document does not list. */
  readonly undocumentedRefusal?: (u: UndocumentedRefusal) => void;
  /**
   * Partitions leased in the actor store with the instances sharing it (PLACEMENT=leased);
   * absent, this instance holds every partition.
   */
  readonly leased?: LeasedSettings;
  /** The features to run; default FEATURES, all of them. */
  readonly features?: readonly Feature[];
  /** The process's log; each line of this environment names it. */
  readonly log: Logger;
  /** Live only: the sandbox environment's twins (Business API 4.4); absent, the sandbox is off. */
  readonly sandboxTwins?: SandboxTwins;
  /** Deps.passwordIterations (tests: fewer); absent, the production count. */
  readonly passwordIterations?: number;
  /**
   * Which partitions of the actors this instance holds (src/runtime/placement.ts); absent, all of
   * them: one instance alone. Asks for the others are forwarded to their holder.
   */
  readonly placement?: Placement;
  /** How long a forward looks for a holder before 503 (the FORWARD_WAIT_MS setting). */
  readonly forwardWaitMs?: number;
  /** A projection's lag before writes are refused (tests: fewer); PROJECTION_BACKLOG_MAX. */
  readonly projectionBacklogMax?: number;
}

export interface OpenEnvironment {
  readonly env: Environment;
  readonly app: Hono;
  /** Actor snapshots and events into Postgres, for lists and reports. */
  readonly projector: Projector;
  /** The features' own projections by name (the courier's `ledger`: courier 2.6, 4.2). */
  readonly projections: Readonly<Record<string, Projection>>;
  close(): Promise<void>;
}

/** The origin Hono gives a request made in process by path alone (`app.request("/api/...")`). */
const IN_PROCESS_URL = "http://localhost";

export async function openEnvironment(o: EnvironmentOptions): Promise<OpenEnvironment> {
  const features = o.features ?? FEATURES;
  const { store, database, busPrefix } = await openStores(o);
  const log = o.log.child({ environment: o.name });
  const metrics = new Metrics();
  const placement = await placementOf(o, store, metrics, log);
  const runtime = runtimeOf(o, { store, busPrefix, features, log, metrics, placement });
  // Each change written once, by its actor's holder (issue 43 item 3).
  const projector = startProjector({
    bus: o.bus,
    db: database.db,
    env: busPrefix,
    handledBy: runtime.placement,
  });
  const projections: Record<string, Projection> = {};
  const writers = () => [projector, ...Object.values(projections)];
  const referenceKey = await derivedKey(o.dataKey, "booking reference");
  const deps = depsOf(o, {
    runtime,
    db: database.db,
    busPrefix,
    log,
    metrics,
    writers,
    referenceKey,
  });
  // Started before the runtime, so events it republishes at start reach every reactor.
  const parts = await startFeatures(features, deps, busPrefix);
  for (const p of parts) Object.assign(projections, p.projections);
  const named = () => ({ snapshots: projector, ...projections });
  watchMachinery(metrics, { runtime, bus: o.bus, projections: named });
  await runtime.start(o.clock.kind === "system" ? { timerPollMs: TIMER_POLL_MS } : {});
  await migrateOldData(runtime, parts, log);
  const loops = startLoops(parts, o.clock, writers(), log, counterSweeps(o, database.db));
  const behind = projectionBound(named, o.projectionBacklogMax ?? PROJECTION_BACKLOG_MAX, log);
  const env = httpEnvironment(o, deps, parts, behind);
  const routers = [...features.flatMap((f) => f.routers), ...(o.extraRouters ?? [])];
  return {
    env,
    app: createApp(
      env,
      routers,
      o.undocumentedRefusal ? { undocumentedRefusal: o.undocumentedRefusal } : {},
    ),
    projector,
    projections,
    async close() {
      loops.stop();
      // Changes already published reach their handlers (billing events, webhooks, alerts) while
      // the runtime still answers them.
      await o.bus.flush();
      // The bus-driven workers stop first, newest first: what they would do next is due again
      // after a restart (timers and leases in KV, the sweeps, charges due, work they defer as
      // they stop), never lost.
      for (const p of [...parts].reverse()) {
        for (const r of Object.values<Reactor>(p.reactors ?? {}).reverse()) await r.close();
      }
      await runtime.close();
      // Every lease given up at once: the other instances take the partitions without waiting.
      await placement?.close();
      await o.bus.flush();
      for (const w of writers()) await w.stop();
      await store.close();
      await database.close();
    },
  };
}

/** What the features are given: the environment's runtime, bus, database and settings. */
function depsOf(
  o: EnvironmentOptions,
  p: {
    runtime: ActorRuntime;
    db: Deps["db"];
    busPrefix: string;
    log: Logger;
    metrics: Metrics;
    writers: () => Projection[];
    referenceKey: Uint8Array;
  },
): Deps {
  return {
    name: o.name,
    runtime: p.runtime,
    clock: o.clock,
    bus: o.bus,
    db: p.db,
    dataKey: o.dataKey,
    referenceKey: p.referenceKey,
    allowLoopbackWebhooks: o.allowLoopbackWebhooks,
    linkBase: o.publicUrl ?? o.listenUrl ?? IN_PROCESS_URL,
    log: p.log,
    metrics: p.metrics,
    settle: () => settled(o.bus, p.busPrefix, p.writers(), p.runtime),
    projected: () => projected(o.bus, p.busPrefix, p.writers()),
    ...(o.sandboxTwins ? { sandboxTwins: o.sandboxTwins } : {}),
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    ...(o.passwordIterations ? { passwordIterations: o.passwordIterations } : {}),
    sharesCounters: sharesCounters(o),
  };
}

/** The environment's actor store and query database, and the bus prefix naming its changes. */
async function openStores(o: EnvironmentOptions) {
  const store = o.actorStoreUrl === undefined
    ? await KvActorStore.open(o.kvPath)
    : await PgActorStore.open({ url: o.actorStoreUrl, schema: o.schema });
  const database = o.sharedDatabase ? borrowed(o.sharedDatabase) : await openDatabase({
    schema: o.schema,
    ...(o.databaseUrl ? { url: o.databaseUrl } : {}),
    ...(o.pgliteDir ? { dataDir: o.pgliteDir } : {}),
    ...(o.pgliteWorker === undefined ? {} : { worker: o.pgliteWorker }),
    ...(o.databasePoolMax === undefined ? {} : { poolMax: o.databasePoolMax }),
  });
  // Subjects name the environment and the store's own identity: instances sharing the store
  // hear each other, while another deployment on the same NATS (staging beside production, a
  // test run beside a server) never receives this one's changes, nor projects them into its
  // query side (ARCHITECTURE "Environments": a bus subject prefix of its own).
  const busPrefix = `${o.name}_${await store.identity()}`;
  return { store, database, busPrefix };
}

/** Another instance's query side: used as it is, and closed by that instance, not this one. */
function borrowed(db: Kysely<Database>): Pick<DatabaseHandle, "db" | "close"> {
  return { db, close: () => Promise.resolve() };
}

/** Resolves once every query-side writer holds every change committed before the call. */
async function settled(
  bus: Bus,
  busPrefix: string,
  writers: readonly Projection[],
  runtime: ActorRuntime,
) {
  // What outboxes do (billing events being made) commits changes of its own, and a change on
  // the bus may add outbox items: settled once a round began no handling (bounded).
  for (let round = 0; round < 20; round++) {
    const begun = runtime.outboxHandlings;
    await runtime.outboxesIdle();
    await projected(bus, busPrefix, writers);
    if (runtime.outboxHandlings === begun) return;
  }
}

/** Resolves once every projection has taken the changes published before the call. */
async function projected(bus: Bus, busPrefix: string, writers: readonly Projection[]) {
  const id = crypto.randomUUID();
  const synced = writers.map((p) => p.synced(id));
  await bus.publish(syncSubject(busPrefix, id), { sync: id });
  await bus.flush();
  await Promise.all(synced);
}

/** The environment as its HTTP app sees it: the machinery, its limits and the features' parts. */
function httpEnvironment(
  o: EnvironmentOptions,
  deps: Deps,
  parts: readonly FeatureParts[],
  projectionBehind: Environment["projectionBehind"],
): Environment {
  const pumps = parts.flatMap((p) => Object.values(p.pumps ?? {}));
  const rateLimiter = new RateLimiter(o.clock);
  const loginThrottle = new LoginThrottle(o.clock);
  const shared = sharesCounters(o);
  const common = { db: deps.db, clock: o.clock, log: deps.log };
  return {
    ...deps,
    operatorTokenHash: o.operatorTokenHash,
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    rateLimiter,
    planCounter: shared ? new SharedRateCounter({ ...common, fallback: rateLimiter }) : rateLimiter,
    addressCounter: shared
      ? new SharedRateCounter({ ...common, fallback: rateLimiter, kind: "address" })
      : { take: (key, limits) => rateLimiter.take(key, limits, "address") },
    loginThrottle: shared
      ? new SharedLoginThrottle({ ...common, fallback: loginThrottle })
      : loginThrottle,
    reactors: Object.assign({}, ...parts.map((p) => p.reactors ?? {})),
    projectionBehind,
    pump: async () => {
      await Promise.all(pumps.map((pump) => pump()));
    },
  };
}

/** Starts each feature in order, handing it the services of those before it. */
async function startFeatures(
  features: readonly Feature[],
  deps: Deps,
  busPrefix: string,
): Promise<FeatureParts[]> {
  const services = new Map<string, unknown>();
  const parts: FeatureParts[] = [];
  for (const f of features) {
    const started = await f.start({
      ...deps,
      busPrefix,
      services: (name) => services.get(name),
    });
    services.set(f.name, started.services);
    parts.push(started);
  }
  return parts;
}

/**
 * The features' passes over old data (FeatureParts.migrations), in order, each once per version
 * (old_data.ts), each logged. One that fails is logged and left for the next start.
 */
function migrateOldData(
  runtime: ActorRuntime,
  parts: readonly FeatureParts[],
  log: Logger,
): Promise<void> {
  const passes = parts.flatMap((p) => Object.entries(p.migrations ?? {}));
  return runOldDataPasses(runtime, passes, {
    failed: (migration, err) => log.error({ err, migration }, "old data migration failed"),
    changed: (migration, changed) =>
      log.info({ event: "old_data_migrated", migration, changed }, "old data migrated"),
  });
}

/** A sweep that completed stalled work says how much (a count of none is no news). */
export function logSweep(log: Logger, sweep: string, done: unknown): void {
  if (typeof done === "number" && done > 0) {
    log.info({ event: "sweep_completed", sweep, completed: done }, "sweep completed stalled work");
  }
}

/**
 * spec: business 8: instances sharing the query side share the plan limits' counts, and (issue
 * 43 item 4) every other count: addresses' calls, failed sign-ins, the outbound backlog's pace.
 */
function sharesCounters(o: EnvironmentOptions): boolean {
  return o.sharedRateLimits ?? (o.databaseUrl !== undefined || o.sharedDatabase !== undefined);
}

/** The shared counters' rows that count nothing any more, deleted with the other sweeps. */
function counterSweeps(o: EnvironmentOptions, db: Kysely<Database>): [string, Sweep][] {
  if (!sharesCounters(o)) return [];
  return [
    ["rate counters", (now) => sweepRateCounters(db, now)],
    ["login throttles", (now) => sweepLoginThrottles(db, now)],
  ];
}

type Sweep = (now: number) => Promise<unknown>;

/** The features' pumps every TIMER_POLL_MS, their sweeps and parked projections every sweep. */
function startLoops(
  parts: readonly FeatureParts[],
  clock: Clock,
  projections: readonly Projection[],
  log: Logger,
  more: readonly [string, Sweep][],
): { stop(): void } {
  const pumps = parts.flatMap((p) => Object.entries(p.pumps ?? {}));
  const sweeps = [...parts.flatMap((p) => Object.entries(p.sweeps ?? {})), ...more];
  const pumpLoop = setInterval(() => {
    for (const [name, pump] of pumps) {
      pump().catch((err) => log.error({ err, pump: name }, "pump failed"));
    }
  }, TIMER_POLL_MS);
  const sweepLoop = setInterval(() => {
    for (const [name, sweep] of sweeps) {
      sweep(clock.now()).then(
        (done) => logSweep(log, name, done),
        (err) => log.error({ err, sweep: name }, "sweep failed"),
      );
    }
    // Changes the projections could not write are tried again, in case the cause is gone.
    for (const p of projections) {
      p.retryParked().then(
        (written) => logSweep(log, "parked projection changes", written),
        (err) => log.error({ err, sweep: "parked projection changes" }, "sweep failed"),
      );
    }
  }, BILLING_SWEEP_MS);
  return {
    stop() {
      clearInterval(pumpLoop);
      clearInterval(sweepLoop);
    },
  };
}

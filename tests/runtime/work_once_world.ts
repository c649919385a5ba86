/**
 * Two instances, `a` and `b`, on one actor store and one bus, placed by the fixed test placement
 * (a holds the even partitions, b the odd ones): the world of the work-done-once tests (issue 43
 * item 3). The store is Postgres (one schema, a connection pool per instance) with ACTOR_STORE=
 * postgres and DATABASE_URL, else one Deno KV in memory; the bus is NATS (a connection per
 * instance) with NATS_URL, else one in-process bus.
 */
import postgres from "postgres";
import type { Bus } from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { NatsBus } from "../../src/bus/nats_bus.ts";
import { SCHEMAS_LOCK_KEY } from "../../src/db/migrate.ts";
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { PgActorStore } from "../../src/runtime/pg_store.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import { ActorRuntime } from "../../src/runtime/runtime.ts";
import type { ActorKey, ActorStore } from "../../src/runtime/store.ts";
import { type SplitPlacement, splitPlacements } from "../helpers/once_placement.ts";

export interface Instance {
  readonly name: "a" | "b";
  readonly runtime: ActorRuntime;
  readonly placement: SplitPlacement;
  readonly bus: Bus;
  readonly store: ActorStore;
}

export interface World {
  readonly a: Instance;
  readonly b: Instance;
  readonly clock: ManualClock;
  /** The subject prefix of this world's changes (fresh, so NATS runs never meet). */
  readonly busPrefix: string;
  /** The instance holding the actor now. */
  holder(key: ActorKey): Instance;
  /** Moves one partition to `to`: both sides are told (Placement.onChange). */
  move(partition: number, to: "a" | "b"): void;
  /** Starts both runtimes (after the test's handlers are subscribed, which it flushes). */
  start(): Promise<void>;
  /** Flushes both buses until both instances' handlers are done. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const natsUrl = Deno.env.get("NATS_URL");
const pgUrl = Deno.env.get("ACTOR_STORE") === "postgres" ? Deno.env.get("DATABASE_URL") : undefined;

/**
 * Opens the two instances; `busOf` may wrap an instance's bus (a publication failing), `storeOf`
 * its store (a listing held back).
 */
export async function openWorld(
  definitions: readonly AnyActorDefinition[],
  busOf: (name: "a" | "b", bus: Bus) => Bus = (_, bus) => bus,
  storeOf: (name: "a" | "b", store: ActorStore) => ActorStore = (_, store) => store,
): Promise<World> {
  const busPrefix = `t${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const clock = new ManualClock();
  const placements = splitPlacements();
  const stores = await openStores();
  const memory = natsUrl ? undefined : new MemoryBus();
  const instance = async (name: "a" | "b", store: ActorStore): Promise<Instance> => {
    const bus = busOf(name, memory ?? await NatsBus.connect(natsUrl!));
    const placement = placements[name];
    const runtime = new ActorRuntime({
      env: "test",
      busPrefix,
      store,
      bus,
      clock,
      definitions,
      placement,
      onError: () => {},
    });
    return { name, runtime, placement, bus, store };
  };
  const a = await instance("a", storeOf("a", stores.a));
  const b = await instance("b", storeOf("b", stores.b));
  const both = [a, b];
  const flush = async () => {
    for (let round = 0; round < 3; round++) for (const i of both) await i.bus.flush();
  };
  return {
    a,
    b,
    clock,
    busPrefix,
    holder: (key) => placements.a.held(partitionOf(key)) === undefined ? b : a,
    move: placements.move,
    start: async () => {
      // Every subscription made so far reaches the server before a change is published.
      await flush();
      for (const i of both) await i.runtime.start();
    },
    flush,
    async close() {
      for (const i of both) await i.runtime.close();
      await flush();
      if (natsUrl) { for (const i of both) await i.bus.drain(); }
      await stores.close();
    },
  };
}

async function openStores(): Promise<{ a: ActorStore; b: ActorStore; close(): Promise<void> }> {
  if (pgUrl === undefined) {
    const kv = await KvActorStore.open(":memory:");
    return { a: kv, b: kv, close: () => Promise.resolve(kv.close()) };
  }
  const schema = `actor_store_once_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const a = await PgActorStore.open({ url: pgUrl, schema });
  const b = await PgActorStore.open({ url: pgUrl, schema });
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await dropSchema(pgUrl, schema);
    },
  };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // In turn with migrations (SCHEMAS_LOCK_KEY), whose look at the catalog fails on a schema
    // dropped meanwhile.
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${SCHEMAS_LOCK_KEY})`;
      await tx.unsafe(`drop schema if exists "${schema}" cascade`);
    });
  } finally {
    await sql.end();
  }
}

/** The bus, whose publications fail while `down()` says so (a connection lost). */
export function failingWhile(bus: Bus, down: () => boolean): Bus {
  return {
    publish: (subject, payload, options) =>
      down()
        ? Promise.reject(new Error("connection lost"))
        : bus.publish(subject, payload, options),
    subscribe: (pattern, handler, options) => bus.subscribe(pattern, handler, options),
    flush: () => bus.flush(),
    drain: () => bus.drain(),
    request: (subject, payload, options) => bus.request(subject, payload, options),
    serve: (subject, handler) => bus.serve(subject, handler),
  };
}

/** The store, whose listings of recovery markers wait for `held()` (when it names a wait). */
export function markersHeldBack(
  store: ActorStore,
  held: () => Promise<void> | undefined,
): ActorStore {
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name === "unpublished") {
        return async (...args: Parameters<ActorStore["unpublished"]>) => {
          await held();
          return target.unpublished(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The actor store behind the runtime (issue 43 item 1): durable commands per second, and the
 * group commits they took, on Deno KV (a file) and on Postgres (DATABASE_URL, in a schema of its
 * own dropped after; NaN when unset), for one hot actor with 200 clients and for 1,000 actors with
 * a client each. Each workload runs for a fixed time.
 */
import postgres from "postgres";
import { accept, type ActorDefinition } from "../src/runtime/actor.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { PgActorStore } from "../src/runtime/pg_store.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";
import type { ActorStore } from "../src/runtime/store.ts";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import { recordFigure } from "./summary.ts";

const SECONDS = 4;
const HOT_CLIENTS = 200;
const ACTORS = 1_000;

/** A counter: each command one event, one commit (as a wallet debit would be). */
const counter: ActorDefinition<number, { kind: "add" }, { kind: "added" }, number> = {
  type: "bench_counter",
  version: 1,
  initial: 0,
  decide: (_s, c) => c.kind === "timer" ? accept([]) : accept([{ kind: "added" }], (s) => s),
  evolve: (s) => s + 1,
};

interface Measured {
  readonly commands: number;
  readonly commits: number;
  readonly seconds: number;
}

/** `clients` clients, client i asking actor `actorOf(i)` again and again, for SECONDS. */
async function drive(
  store: ActorStore,
  clients: number,
  actorOf: (i: number) => string,
): Promise<Measured> {
  const runtime = new ActorRuntime({
    env: "bench",
    store,
    bus: new MemoryBus(),
    clock: new SystemClock(),
    definitions: [counter],
  });
  await runtime.start();
  // Every actor made first, so the figure is of commits to actors that exist.
  await Promise.all(
    Array.from(
      { length: clients },
      (_, i) => runtime.ask(counter, "t", actorOf(i), { kind: "add" }),
    ),
  );
  const commitsBefore = runtime.commitStats.commits;
  let commands = 0;
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: clients }, async (_, i) => {
    while (performance.now() < deadline) {
      const r = await runtime.ask(counter, "t", actorOf(i), { kind: "add" });
      if (!r.ok) throw new Error(r.message);
      commands++;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  const commits = runtime.commitStats.commits - commitsBefore;
  await runtime.close();
  return { commands, commits, seconds };
}

function report(store: string, workload: string, m: Measured): number {
  const rate = m.commands / m.seconds;
  console.log(
    `actor store ${store}, ${workload}: ${rate.toFixed(0)} commands/s, ` +
      `${(m.commits / m.seconds).toFixed(0)} store commits/s ` +
      `(${(m.commands / Math.max(1, m.commits)).toFixed(1)} commands a commit)`,
  );
  return rate;
}

/** Both workloads on one store, opened fresh for each by `open`. */
async function measure(
  name: string,
  open: () => Promise<{ store: ActorStore; drop(): Promise<void> }>,
) {
  const hot = await open();
  const hotRate = report(
    name,
    `one hot actor, ${HOT_CLIENTS} clients`,
    await drive(hot.store, HOT_CLIENTS, () => "hot"),
  );
  await hot.drop();
  const many = await open();
  const manyRate = report(
    name,
    `${ACTORS} actors, a client each`,
    await drive(many.store, ACTORS, (i) => `a${i}`),
  );
  await many.drop();
  return { hotRate, manyRate };
}

async function openKv() {
  const dir = await Deno.makeTempDir();
  const store = await KvActorStore.open(`${dir}/kv.sqlite`);
  return {
    store,
    drop: async () => {
      store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function pgOpener(url: string) {
  return async () => {
    const schema = `bench_actor_store_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const store = await PgActorStore.open({ url, schema });
    return {
      store,
      drop: async () => {
        await store.close();
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        await sql.unsafe(`drop schema if exists "${schema}" cascade`).finally(() => sql.end());
      },
    };
  };
}

export async function actorStoreBench(): Promise<void> {
  const kv = await measure("kv", openKv);
  recordFigure("actor_store_kv_hot_commands_per_s", kv.hotRate);
  recordFigure("actor_store_kv_1000_actors_commands_per_s", kv.manyRate);
  const url = Deno.env.get("DATABASE_URL");
  if (url === undefined) console.log("actor store pg: DATABASE_URL unset, not measured");
  const pg = url === undefined
    ? { hotRate: NaN, manyRate: NaN }
    : await measure("pg", pgOpener(url));
  recordFigure("actor_store_pg_hot_commands_per_s", pg.hotRate);
  recordFigure("actor_store_pg_1000_actors_commands_per_s", pg.manyRate);
}

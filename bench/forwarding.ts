/**
 * Forwarding (issue 43 items 2, 6): forwarded asks per second (each a commit), and the latency
 * a forward adds (p50, p99) over the same ask made where the actor is held: measured on asks that
 * write nothing, so that a commit's own time (a file sync, milliseconds and noisy) hides nothing. With NATS_URL set: two instances on
 * loopback, the holder a process of its own (forwarding_worker.ts) on the bench's KV file, the
 * asker this process, over real NATS. Unset: both runtimes in this process on the in-process
 * bus, which measures the forward's own work (a JSON copy each way, the holder's serving) and no
 * network; the lines say which was measured.
 */
import type { Bus } from "../src/bus/bus.ts";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import { NatsBus } from "../src/bus/nats_bus.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import type { Placement } from "../src/runtime/placement.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";
import type { ActorStore } from "../src/runtime/store.ts";
import { ForwardCluster } from "../tests/helpers/forward_placement.ts";
import { benchCounter, HOLDER } from "./forwarding_actor.ts";
import { recordFigure } from "./summary.ts";

const LATENCY_SAMPLES = 2_000;
const SECONDS = 3;
const CLIENTS = 64;
const ACTORS = 1_000;

interface Measured {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** One `get` at a time for the latencies, then CLIENTS `add`s at once over ACTORS for SECONDS. */
async function measure(runtime: ActorRuntime): Promise<Measured> {
  const add = (i: number) => runtime.ask(benchCounter, "t", `c${i % ACTORS}`, { kind: "add" });
  // Every actor made and in the holder's memory first: the figure is of forwards, not loads.
  await Promise.all(Array.from({ length: ACTORS }, (_, i) => add(i)));
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const t0 = performance.now();
    const r = await runtime.ask(benchCounter, "t", `c${i % ACTORS}`, { kind: "get" });
    if (!r.ok) throw new Error(r.message);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  let asked = 0;
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = client; performance.now() < deadline; i += CLIENTS) {
      if (!(await add(i)).ok) throw new Error("refused");
      asked++;
    }
  }));
  const perSecond = asked / ((performance.now() - start) / 1000);
  return { perSecond, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

function runtimeOf(store: ActorStore, bus: Bus, env: string, placement?: Placement) {
  return new ActorRuntime({
    env,
    store,
    bus,
    clock: new SystemClock(),
    definitions: [benchCounter],
    ...(placement ? { placement } : {}),
  });
}

/** The same asks made where the actor is held: one instance alone. */
async function here(dir: string): Promise<Measured> {
  const store = await KvActorStore.open(`${dir}/here.sqlite`);
  const runtime = runtimeOf(store, new MemoryBus(), "bench_here");
  await runtime.start();
  try {
    return await measure(runtime);
  } finally {
    await runtime.close();
    await store.close();
  }
}

/** The holder in a process of its own over NATS, answering once its stdout says `ready`. */
async function holderProcess(kvPath: string, env: string, natsUrl: string) {
  const worker = new URL("./forwarding_worker.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", worker, kvPath, env, natsUrl],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("ready")) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`the holder ended before it was ready: ${said}`);
    said += value;
  }
  return {
    async close() {
      await child.stdin.close();
      await child.status;
      lines.releaseLock();
      await child.stdout.cancel().catch(() => {});
    },
  };
}

/** The asks made through an instance holding nothing, forwarded to the one holding all. */
async function forwarded(dir: string, natsUrl: string | undefined): Promise<Measured> {
  const kvPath = `${dir}/shared.sqlite`;
  const env = `bench_fwd_${crypto.randomUUID().slice(0, 8)}`;
  const cluster = new ForwardCluster(() => HOLDER);
  const store = await KvActorStore.open(kvPath);
  const bus: Bus = natsUrl ? await NatsBus.connect(natsUrl) : new MemoryBus();
  const holder = natsUrl ? await holderProcess(kvPath, env, natsUrl) : await (async () => {
    const runtime = runtimeOf(store, bus, env, cluster.placement(HOLDER));
    await runtime.start();
    return { close: () => runtime.close() };
  })();
  const asker = runtimeOf(store, bus, env, cluster.placement("asker"));
  await asker.start();
  try {
    return await measure(asker);
  } finally {
    await asker.close();
    await holder.close();
    await bus.drain();
    await store.close();
  }
}

export async function forwardingBench(): Promise<void> {
  const natsUrl = Deno.env.get("NATS_URL");
  const how = natsUrl
    ? "two processes on loopback over NATS"
    : "two runtimes in one process on the in-process bus (no network: NATS_URL unset)";
  const dir = await Deno.makeTempDir({ prefix: "bench_forwarding_" });
  try {
    const local = await here(dir);
    const sent = await forwarded(dir, natsUrl);
    const added50 = sent.p50 - local.p50;
    const added99 = sent.p99 - local.p99;
    console.log(
      `forwarding, ${how}: ${sent.perSecond.toFixed(0)} forwarded asks/s ` +
        `(${CLIENTS} clients over ${ACTORS} actors; ${local.perSecond.toFixed(0)}/s held here); ` +
        `one ask writing nothing p50 ${sent.p50.toFixed(3)} ms, p99 ${
          sent.p99.toFixed(3)
        } ms forwarded, ` +
        `${local.p50.toFixed(3)} / ${local.p99.toFixed(3)} ms held here: ` +
        `added p50 ${added50.toFixed(3)} ms, p99 ${added99.toFixed(3)} ms`,
    );
    recordFigure("forwarded_asks_per_s", sent.perSecond);
    recordFigure("forward_added_latency_p50_ms", added50);
    recordFigure("forward_added_latency_p99_ms", added99);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * What an idle second instance spends on the first's changes (issue 43 item 3: an idle instance
 * burned 1.5 CPU-seconds per 1,000 bookings of another): a process on NATS with the bus handlers
 * an environment subscribes (projections and reactors handled by a partition's holder, the
 * credential cache on every instance), while another process publishes 1,000 booking-sized changes
 * of partitions the first does not hold. Its CPU per 1,000 changes, against the same process
 * holding those partitions (each change parsed, frozen and given to every handler, which here do
 * nothing: the writes and asks a real handler makes come on top). NaN without NATS_URL.
 *
 * Run alone: `deno run -A bench/idle_instance.ts`; `deno task bench` runs it as `idle_instance`.
 */
import process from "node:process";
import { type Bus, EVERY_INSTANCE, type Holding, subjectOf } from "../src/bus/bus.ts";
import { NatsBus } from "../src/bus/nats_bus.ts";
import { PARTITIONS } from "../src/limits.ts";
import { recordFigure } from "./summary.ts";

const CHANGES = 1_000;
/** The holder-handled subscriptions of an environment: six projections, a dozen reactors. */
const PROJECTIONS = 6;
const REACTOR_TYPES = ["shipment", "shipment", "shipment", "outbound_event", "trip", "alert"];
const CACHED_TYPES = ["business", "driver", "courier_client"];
const DONE_TYPE = "bench_done";

/** The idle side (a child process): subscribes, says `ready`, answers its CPU at the sentinel. */
async function idleSide(url: string, env: string, holdsAll: boolean): Promise<void> {
  const bus = await NatsBus.connect(url);
  const odd: Holding = { held: (p) => holdsAll || p % 2 === 1 ? 1 : undefined };
  const nothing = () => {};
  for (let i = 0; i < PROJECTIONS; i++) {
    bus.subscribe(`${env}.*.*.*`, nothing, { pipelined: true, handledBy: odd });
  }
  for (const type of [...REACTOR_TYPES, ...REACTOR_TYPES]) {
    bus.subscribe(`${env}.*.${type}.*`, nothing, { pipelined: true, handledBy: odd });
  }
  for (const type of CACHED_TYPES) {
    bus.subscribe(`${env}.*.${type}.*`, nothing, { handledBy: EVERY_INSTANCE });
  }
  let start = process.cpuUsage();
  const done = new Promise<void>((resolve) =>
    bus.subscribe(`${env}.*.${DONE_TYPE}.*`, () => resolve(), { handledBy: EVERY_INSTANCE })
  );
  await bus.flush();
  start = process.cpuUsage();
  console.log("ready");
  await done;
  const used = process.cpuUsage(start);
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000 }));
  await bus.drain();
}

/** A booking-sized change (a shipment's snapshot and its event, about 3 KB). */
function changeOf(env: string, i: number) {
  const text = "x".repeat(40);
  return {
    env,
    tenant: "biz_bench",
    type: "shipment",
    id: `shp_${i}`,
    version: 1,
    events: [{ seq: 1, at: 1_700_000_000_000 + i, event: { kind: "booked", note: text } }],
    snapshot: Object.fromEntries(Array.from({ length: 60 }, (_, k) => [`field_${k}`, text])),
  };
}

/** Runs the idle side in a child process, publishes the changes, answers its CPU in ms. */
async function measure(url: string, holdsAll: boolean, changes = CHANGES): Promise<number> {
  const env = `bench${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--idle", env, String(holdsAll)],
    stdout: "piped",
    env: { NATS_URL: url },
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).values();
  const next = async () => (await lines.next()).value ?? "";
  if (!(await next()).includes("ready")) throw new Error("the idle side did not start");
  const bus: Bus = await NatsBus.connect(url);
  try {
    for (let i = 0; i < changes; i++) {
      // Even partitions: the publisher's, never the idle side's.
      const partition = (2 * i) % PARTITIONS;
      const subject = subjectOf(env, "biz_bench", "shipment", `shp_${i}`);
      await bus.publish(subject, changeOf(env, i), { partition });
    }
    await bus.publish(subjectOf(env, "biz_bench", DONE_TYPE, "x"), { done: true });
    await bus.flush();
    let answer = await next();
    while (!answer.startsWith("{")) answer = await next();
    await child.status;
    return (JSON.parse(answer) as { cpuMs: number }).cpuMs;
  } finally {
    await bus.drain();
  }
}

export async function idleInstanceBench(): Promise<void> {
  const url = Deno.env.get("NATS_URL");
  console.log("\n== an idle second instance: its CPU per 1,000 changes of the first (NATS) ==");
  if (!url) {
    console.log("NATS_URL unset: skipped");
    recordFigure("idle_instance_cpu_ms_per_1000_changes", NaN);
    return;
  }
  // What the idle side spends on no change at all (its wait, the sentinel) is taken off.
  const none = await measure(url, false, 0);
  const dropped = await measure(url, false) - none;
  const handled = await measure(url, true) - none;
  console.log(`not its partitions (dropped unparsed): ${dropped.toFixed(0)} ms CPU`);
  console.log(`held by it (parsed, given to every handler): ${handled.toFixed(0)} ms CPU`);
  console.log(`(the idle side's own cost with no change, taken off: ${none.toFixed(0)} ms)`);
  recordFigure("idle_instance_cpu_ms_per_1000_changes", dropped);
  recordFigure("idle_instance_cpu_ms_per_1000_changes_held", handled);
}

if (import.meta.main) {
  const [flag, env, holdsAll] = Deno.args;
  if (flag === "--idle") await idleSide(Deno.env.get("NATS_URL")!, env!, holdsAll === "true");
  else await idleInstanceBench();
}

/**
 * `deno task bench`: figures, not assertions (never a timing assertion in a test).
 *
 * 1. Durable commands per second applied to one hot actor through the runtime (group commit on),
 *    on a KV file, by 50 concurrent clients and by 1,000.
 * 2. The same workload done the strongest conventional way: one Postgres transaction per command
 *    (conditional UPDATE ... RETURNING plus an INSERT), 50 concurrent clients, against
 *    DATABASE_URL (embedded PGlite when unset, which is not a fair baseline and says so).
 * 3. The ratio; p50/p99 latency of one command; resident memory per 10,000 idle actors.
 * 4. Bookings over HTTP, with the CPU each cost and the ceiling of routes that book nothing
 *    (booking.ts), Business API bookings on a hot wallet, over 1,000 businesses and replayed
 *    (business_book.ts), outbound events and the CSV export (outbound.ts), open shipments and their
 *    deadlines (shipments.ts), the live board (board.ts), the operations board's list with
 *    50,000 open shipments (board_list.ts), runs (runs.ts), client bulk and CSV booking
 *    (client_booking.ts), the client's label, waybill and packing slip PDFs (labels.ts), the
 *    Business API's waybill, receipt, pick list, packing slip and label PDFs
 *    (business_documents.ts).
 * 5. What the request log and the metrics cost a hello-world route, with and without them in
 *    the same run (observability.ts); what each layer of the request path costs, from a bare
 *    Hono route to a client's price request (request_path.ts).
 *
 * It ends with the summary block (summary.ts): one `name: value` line per goal figure of the
 * parts that ran. The booking part runs on the embedded defaults and, when DATABASE_URL is set,
 * on Postgres too (NATS when NATS_URL is set); unset, the `*_postgres` figures are NaN.
 *
 * 6. Live tracking reads per second against accepted trips with fresh positions (tracking.ts).
 * 7. Dispatch (dispatch.ts): 10,000 drivers' positions absorbed per second and CPU per position;
 *    the latency from a trip's creation to its offer to the nearest driver, 1,000 bookings at once.
 * 8. The sandbox autopilot (sandbox_autopilot.ts): 1,000 trips at once running the delivered
 *    scenario with step_seconds 1 under the manual clock; trips run to completion per second.
 * 9. Webhooks per second delivered to the sandbox inbox and listed (sandbox_inbox.ts).
 * 10. Shopping orders of 20 stores x 200 lines validated and booked per second (shopping_orders.ts);
 *     decision windows expiring per second when 10,000 expire at one clock advance
 *     (shopping_decisions.ts).
 * 11. Recurring deliveries (subscriptions.ts): occurrences booked per second when 10,000 fall due
 *    at one clock advance.
 * 12. Batches (batches.ts): batches of 50 stops booked per second; the driving order's tour
 *     against the exact optimum on 12-stop batches (mean and worst ratio).
 * 13. The actor store (actor_store.ts): commands and group commits per second of one hot actor
 *     and of 1,000 actors, on Deno KV and on Postgres (DATABASE_URL; NaN when unset).
 * 14. Forwarding (forwarding.ts): asks forwarded per second to the instance holding their actor,
 *     and the latency a forward adds (p50, p99): two processes over NATS when NATS_URL is set.
 * 15. An idle second instance (idle_instance.ts): its CPU per 1,000 changes of the first, on NATS
 *     (NATS_URL; NaN when unset).
 * 16. Counters (counters.ts): a plan limit's take in memory and shared on Postgres (latency of
 *     one, takes per second of many at once), and a failed sign-in's shared count.
 * 17. Several instances (cluster.ts): bookings/s on one hot wallet through one, two and three
 *     instances, and the time from killing one of three to its partitions held and a booking
 *     answered again (DATABASE_URL and NATS_URL; NaN when unset).
 *
 * BENCH_ONLY=<part> runs one part alone: runtime, booking, business_book, outbound, shipments, board,
 * board_list, runs, client_booking, labels, business_documents, observability, request_path,
 * tracking, dispatch, sandbox_autopilot, sandbox_inbox, shopping_orders, shopping_decisions,
 * subscriptions, batches, actor_store, forwarding, idle_instance, counters or cluster.
 */
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { accept, type ActorDefinition, reject } from "../src/runtime/actor.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import { bookingBench } from "./booking.ts";
import { businessBookBench } from "./business_book.ts";
import { outboundBench } from "./outbound.ts";
import { sandboxInboxBench } from "./sandbox_inbox.ts";
import { shoppingOrdersBench } from "./shopping_orders.ts";
import { shoppingDecisionsBench } from "./shopping_decisions.ts";
import { batchesBench } from "./batches.ts";
import { shipmentsBench } from "./shipments.ts";
import { boardBench } from "./board.ts";
import { boardListBench } from "./board_list.ts";
import { runsBench } from "./runs.ts";
import { clientBookingBench } from "./client_booking.ts";
import { labelsBench } from "./labels.ts";
import { businessDocumentsBench } from "./business_documents.ts";
import { observabilityBench } from "./observability.ts";
import { requestPathBench } from "./request_path.ts";
import { trackingBench } from "./tracking.ts";
import { dispatchBench } from "./dispatch.ts";
import { sandboxAutopilotBench } from "./sandbox_autopilot.ts";
import { subscriptionsBench } from "./subscriptions.ts";
import { actorStoreBench } from "./actor_store.ts";
import { forwardingBench } from "./forwarding.ts";
import { idleInstanceBench } from "./idle_instance.ts";
import { countersBench } from "./counters.ts";
import { clusterBench } from "./cluster.ts";
import { recordFigure, summaryBlock } from "./summary.ts";

const HOT_COMMANDS = 40_000;
const PG_SECONDS = 5;
const LATENCY_SAMPLES = 2_000;
const IDLE_ACTORS = 10_000;

type Cmd = { kind: "debit"; amount: number } | { kind: "credit"; amount: number };
type Ev = { kind: "debited"; amount: number } | { kind: "credited"; amount: number };

/** A client account: the debit is checked against the balance inside the actor (no lock). */
const account: ActorDefinition<{ balance: number }, Cmd, Ev, number> = {
  type: "bench_account",
  version: 1,
  initial: { balance: 0 },
  decide(state, c) {
    if (c.kind === "timer") return accept([]);
    if (c.kind === "debit" && state.balance < c.amount) {
      return reject("insufficient_balance", "low");
    }
    return accept([
      c.kind === "debit" ? { kind: "debited", amount: c.amount } : {
        kind: "credited",
        amount: c.amount,
      },
    ], (s) => s.balance);
  },
  evolve: (s, e) => ({ balance: s.balance + (e.kind === "credited" ? e.amount : -e.amount) }),
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function openRuntime(dir: string) {
  const store = await KvActorStore.open(`${dir}/kv.sqlite`);
  const runtime = new ActorRuntime({
    env: "bench",
    store,
    bus: new MemoryBus(),
    clock: new SystemClock(),
    definitions: [account],
  });
  await runtime.start();
  return { runtime, close: async () => (await runtime.close(), store.close()) };
}

async function hotActor(clients: number): Promise<number> {
  const dir = await Deno.makeTempDir();
  const { runtime, close } = await openRuntime(dir);
  await runtime.ask(account, "t", "hot", { kind: "credit", amount: HOT_COMMANDS * 10 });
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next++ < HOT_COMMANDS) {
      const r = await runtime.ask(account, "t", "hot", { kind: "debit", amount: 1 });
      if (!r.ok) throw new Error(r.message);
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  const commits = runtime.commitStats.commits;
  await close();
  await Deno.remove(dir, { recursive: true });
  const rate = HOT_COMMANDS / seconds;
  console.log(
    `runtime, one hot actor, ${clients} clients: ${rate.toFixed(0)} commands/s ` +
      `(${HOT_COMMANDS} in ${seconds.toFixed(2)} s, ${commits} KV commits)`,
  );
  return rate;
}

async function latency(): Promise<void> {
  const dir = await Deno.makeTempDir();
  const { runtime, close } = await openRuntime(dir);
  await runtime.ask(account, "t", "one", { kind: "credit", amount: LATENCY_SAMPLES });
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const t0 = performance.now();
    await runtime.ask(account, "t", "one", { kind: "debit", amount: 1 });
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `runtime, one command at a time: p50 ${percentile(samples, 0.5).toFixed(3)} ms, ` +
      `p99 ${percentile(samples, 0.99).toFixed(3)} ms`,
  );
  await close();
  await Deno.remove(dir, { recursive: true });
}

async function idleMemory(): Promise<void> {
  const dir = await Deno.makeTempDir();
  const { runtime, close } = await openRuntime(dir);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage();
  for (let i = 0; i < IDLE_ACTORS; i += 500) {
    await Promise.all(
      Array.from(
        { length: 500 },
        (_, j) => runtime.ask(account, "t", `idle${i + j}`, { kind: "credit", amount: 1 }),
      ),
    );
  }
  gc?.();
  const after = Deno.memoryUsage();
  const mib = (n: number) => (n / 1_048_576).toFixed(1);
  console.log(
    `memory per ${IDLE_ACTORS} idle activated actors: rss +${mib(after.rss - before.rss)} MiB, ` +
      `heap +${mib(after.heapUsed - before.heapUsed)} MiB (${runtime.activeActors} active)`,
  );
  await close();
  await Deno.remove(dir, { recursive: true });
}

interface Sql {
  query(text: string, params: unknown[]): Promise<unknown>;
  transaction<T>(
    fn: (q: (text: string, params: unknown[]) => Promise<unknown[]>) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
  label: string;
}

async function openSql(): Promise<Sql> {
  const url = Deno.env.get("DATABASE_URL");
  if (url) {
    const sql = postgres(url, { max: 50, onnotice: () => {} });
    return {
      label: "Postgres (DATABASE_URL)",
      query: (t, p) => sql.unsafe(t, p as never[]),
      transaction: (fn) =>
        sql.begin((tx) => fn((t, p) => tx.unsafe(t, p as never[]) as Promise<unknown[]>)) as never,
      close: () => sql.end(),
    };
  }
  const db = await PGlite.create();
  return {
    label: "embedded PGlite (DATABASE_URL unset: not a fair baseline)",
    query: (t, p) => db.query(t, p),
    transaction: (fn) => db.transaction((tx) => fn(async (t, p) => (await tx.query(t, p)).rows)),
    close: () => db.close(),
  };
}

async function postgresBaseline(): Promise<number> {
  const sql = await openSql();
  const table = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  await sql.query(
    `create table ${table}_accounts (id text primary key, balance bigint not null)`,
    [],
  );
  await sql.query(
    `create table ${table}_ledger (id bigserial primary key, account text, amount bigint, at timestamptz default now())`,
    [],
  );
  await sql.query(`insert into ${table}_accounts values ('hot', 1000000000)`, []);
  let done = 0;
  const deadline = performance.now() + PG_SECONDS * 1000;
  const start = performance.now();
  await Promise.all(Array.from({ length: 50 }, async () => {
    while (performance.now() < deadline) {
      await sql.transaction(async (q) => {
        const rows = await q(
          `update ${table}_accounts set balance = balance - $1 where id = $2 and balance >= $1 returning balance`,
          [1, "hot"],
        );
        if (rows.length === 1) {
          await q(`insert into ${table}_ledger (account, amount) values ($1, $2)`, ["hot", -1]);
        }
      });
      done++;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  await sql.query(`drop table ${table}_accounts`, []);
  await sql.query(`drop table ${table}_ledger`, []);
  await sql.close();
  const rate = done / seconds;
  console.log(
    `${sql.label}, one transaction per command, 50 clients: ${rate.toFixed(0)} commands/s`,
  );
  return rate;
}

/** The runtime's own figures (1 to 3 above), in the order they were first printed. */
async function runtimeBench(): Promise<void> {
  await idleMemory(); // first, while the heap holds nothing else
  const hot50 = await hotActor(50);
  const hot1000 = await hotActor(1_000);
  const baseline = await postgresBaseline();
  recordFigure("runtime_hot_commands_per_s", hot50);
  recordFigure("runtime_hot_ratio", hot50 / baseline);
  console.log(
    `ratio runtime/Postgres: ${(hot50 / baseline).toFixed(1)}x at 50 clients, ` +
      `${(hot1000 / baseline).toFixed(1)}x at 1,000 clients (target 20x)`,
  );
  await latency();
}

/** Every part by name, in the order `deno task bench` runs them; BENCH_ONLY=<name> runs one. */
const PARTS: Readonly<Record<string, () => Promise<void>>> = {
  runtime: runtimeBench,
  booking: bookingBench,
  business_book: businessBookBench,
  outbound: outboundBench,
  shipments: shipmentsBench,
  board: boardBench,
  board_list: boardListBench,
  runs: runsBench,
  client_booking: clientBookingBench,
  labels: labelsBench,
  business_documents: businessDocumentsBench,
  observability: observabilityBench,
  request_path: requestPathBench,
  tracking: trackingBench,
  dispatch: dispatchBench,
  sandbox_autopilot: sandboxAutopilotBench,
  sandbox_inbox: sandboxInboxBench,
  shopping_orders: shoppingOrdersBench,
  shopping_decisions: shoppingDecisionsBench,
  subscriptions: subscriptionsBench,
  batches: batchesBench,
  actor_store: actorStoreBench,
  forwarding: forwardingBench,
  idle_instance: idleInstanceBench,
  counters: countersBench,
  cluster: clusterBench,
};

console.log(`bench on ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`);
const only = Deno.env.get("BENCH_ONLY");
if (only !== undefined && !(only in PARTS)) {
  throw new Error(`BENCH_ONLY must name a part: ${Object.keys(PARTS).join(", ")}`);
}
for (const [name, part] of Object.entries(PARTS)) {
  if (only === undefined || only === name) await part();
}
// One `name: value` line per goal figure of the parts that ran, for scripts (summary.ts).
console.log(summaryBlock());
// PGlite's WebAssembly keeps re-arming a timer after its environment has closed, so the process
// would not end by itself once every part is done.
Deno.exit(0);

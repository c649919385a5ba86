/**
 * End-to-end booking over HTTP (courier 4.1): POST /client/prices then POST /client/book, on one
 * hot prepaid account and spread over 1,000 accounts, through the real server on loopback; and
 * the same flow done the conventional way (one Postgres transaction per booking with a
 * conditional UPDATE ... RETURNING) behind Hono routes of the same shape. Both sides record what a
 * booking records: the held offer, the shipment with its pricing and tracking token, its ledger
 * entry and its billing event (the baseline's as an outbox row in the same transaction).
 *
 * Routes of the same shape that book nothing give the ceiling: what the load generator and Hono
 * carry on this machine, with the CPU each booking cost on every side (Linux /proc), since the
 * server, its databases and the load generator share the machine's cores.
 *
 * Each side is measured at several client counts and the baseline at several connection pool
 * sizes: the strongest conventional design is a tuned one (a pool as large as the client count
 * queues every client on the hot row's lock, and lowers the baseline by a third), and the ratio
 * is best against best, with the ratio at each client count beside it.
 */
import { Hono } from "hono";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { courierClientActor } from "../actors/courier/courier_client.ts";
import { openBus } from "../src/bus/mod.ts";
import { issueCredential } from "../src/domain/credentials.ts";
import { hashSecret, importDataKey } from "../src/domain/secrets.ts";
import { priceOption } from "../src/courier/rules/pricing.ts";
import type { RateCardTerms } from "../src/courier/rules/rate_card.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { newId } from "../src/runtime/ids.ts";
import { openEnvironment } from "../src/server.ts";
import { dropSchema } from "../src/db/migrate.ts";

const OPERATOR = "op_bench_operator_token_0123456789";
const BOOKINGS = Number(Deno.env.get("BENCH_BOOKINGS") ?? 2_000);
/** Concurrent client loops; BENCH_CLIENTS names one count instead. */
const CLIENT_COUNTS = Deno.env.get("BENCH_CLIENTS")
  ? [Number(Deno.env.get("BENCH_CLIENTS"))]
  : [50, 200];
/** Connection pool sizes tried for the baseline; its best counts. */
const POOL_SIZES = [4, 10, 20];
const ACCOUNTS = 1_000;

const PRICE_BODY = {
  recipient_name: "Neo",
  recipient_phone: "+26771234567",
  parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
  from_country: "BW",
  to_country: "BW",
};

export interface Target {
  readonly base: string;
  /** Client API keys, one per account. */
  readonly keys: readonly string[];
  /** The courier's business key and id (the runtime target only). */
  readonly businessKey?: string;
  readonly businessId?: string;
  /**
   * Resolves once the work a booking left to do asynchronously is done (the runtime's Postgres
   * projections and bus handlers: billing events, alerts); the load is timed until then, so a
   * backlog never flatters the rate.
   */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

interface LoadResult {
  readonly ok: boolean;
  readonly seconds: number;
  readonly latencies: number[];
  readonly refused: number;
  readonly error?: string;
}

/**
 * Runs BOOKINGS price-then-book flows from `clients` concurrent loops, spread over `workers`
 * Workers (the load generator's threads); prints the rate and the CPU each booking cost.
 */
export async function load(
  label: string,
  target: Target,
  clients: number,
  workers = 1,
): Promise<number> {
  const before = cpuSample();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: workers }, (_, i) =>
      new Promise<LoadResult>((resolve) => {
        const worker = new Worker(new URL("./load_worker.ts", import.meta.url), {
          type: "module",
        });
        worker.onmessage = (e) => {
          worker.terminate();
          resolve(e.data);
        };
        // Each worker takes its share; the first takes what does not divide evenly.
        const share = (n: number) => Math.floor(n / workers) + (i === 0 ? n % workers : 0);
        worker.postMessage({
          base: target.base,
          keys: target.keys,
          bookings: share(BOOKINGS),
          clients: share(clients),
          body: PRICE_BODY,
        });
      })),
  );
  const answered = performance.now();
  await target.settle?.();
  const lag = performance.now() - answered;
  const seconds = (performance.now() - started) / 1000;
  const after = cpuSample();
  const failed = results.find((r) => !r.ok);
  if (failed) throw new Error(failed.error);
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const refused = results.reduce((n, r) => n + r.refused, 0);
  const rate = BOOKINGS / seconds;
  console.log(
    `${label}: ${rate.toFixed(0)} bookings/s, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 0.99).toFixed(1)} ms (${refused} refused)` +
      (target.settle ? `, caught up ${lag.toFixed(0)} ms after the last answer` : "") +
      cpuPerBooking(before, after),
  );
  return rate;
}

/** CPU time in ms: the whole machine's, this process's (server and load generator) and Postgres's. */
interface CpuSample {
  readonly busy: number;
  readonly idle: number;
  readonly self: number;
  readonly postgres: number;
  /** This process's CPU by kind of thread (threadKind). */
  readonly threads: ReadonlyMap<string, number>;
}

/**
 * What a thread of this process does, by the name Linux shows for it: the server's JavaScript
 * (`deno`), Deno KV's SQLite writer (`sw-0`), V8's background threads (mostly garbage
 * collection). The load generator's Workers (`worker-N`) have ended by the second sample, so
 * their CPU is in the process's total only.
 */
function threadKind(comm: string): string {
  if (comm === "deno") return "server JS";
  if (comm.startsWith("sw-")) return "KV store";
  if (comm.startsWith("V8 ")) return "V8 background";
  return "other";
}

/** Reads Linux's /proc (clock ticks of 10 ms); null elsewhere, and the figure is left out. */
function cpuSample(): CpuSample | null {
  try {
    const ticks = (stat: string) => {
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(f[11]) + Number(f[12])) * 10;
    };
    const all = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/).slice(1)
      .map(Number);
    let postgres = 0;
    for (const d of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(d.name)) continue;
      try {
        const stat = Deno.readTextFileSync(`/proc/${d.name}/stat`);
        if (stat.includes("(postgres)")) postgres += ticks(stat);
      } catch {
        // The process ended meanwhile.
      }
    }
    const threads = new Map<string, number>();
    for (const t of Deno.readDirSync("/proc/self/task")) {
      try {
        const stat = Deno.readTextFileSync(`/proc/self/task/${t.name}/stat`);
        const kind = threadKind(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
        threads.set(kind, (threads.get(kind) ?? 0) + ticks(stat));
      } catch {
        // The thread ended meanwhile.
      }
    }
    return {
      busy: (all[0]! + all[1]! + all[2]! + all[4]! + all[5]! + all[6]!) * 10,
      idle: all[3]! * 10,
      self: ticks(Deno.readTextFileSync("/proc/self/stat")),
      postgres,
      threads,
    };
  } catch {
    return null;
  }
}

/**
 * The CPU one booking cost while the load ran: all of it counts against the machine's two
 * cores, whichever process spent it (the baseline's work is mostly in Postgres, ours in Deno).
 */
function cpuPerBooking(before: CpuSample | null, after: CpuSample | null): string {
  if (!before || !after) return "";
  const per = (ms: number) => (ms / BOOKINGS).toFixed(2);
  const busy = after.busy - before.busy;
  const share = busy / (busy + after.idle - before.idle);
  const threads = [...after.threads]
    .map(([kind, ms]) => [kind, ms - (before.threads.get(kind) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${per(ms)}`);
  return `; CPU ${per(busy)} ms per booking (this process ${per(after.self - before.self)}: ` +
    `${threads.join(", ")}; Postgres ${per(after.postgres - before.postgres)}), ` +
    `machine ${(share * 100).toFixed(0)}% busy`;
}

export async function operatorCall(
  base: string,
  method: string,
  path: string,
  body: unknown,
  key?: string,
) {
  const r = await fetch(`${base}/api${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      ...(key ? { "X-Business-API-Key": key } : { Authorization: `Bearer ${OPERATOR}` }),
    },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

export async function runtimeTarget(accounts: number): Promise<Target> {
  const dir = await Deno.makeTempDir();
  const bus = await openBus(Deno.env.get("NATS_URL"));
  const databaseUrl = Deno.env.get("DATABASE_URL");
  const schema = `bench_${crypto.randomUUID().slice(0, 8)}`;
  const o = await openEnvironment({
    name: "live",
    kvPath: `${dir}/kv.sqlite`,
    ...(databaseUrl ? { databaseUrl } : {}),
    schema,
    bus,
    clock: new SystemClock(),
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    operatorTokenHash: await hashSecret(OPERATOR),
    allowLoopbackWebhooks: false,
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, o.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const biz = await operatorCall(base, "POST", "/operator/businesses", {
    name: "Bench Couriers",
    plan: "enterprise",
    currency: "BWP",
    country: "BW",
    owner_email: `bench-${crypto.randomUUID()}@example.com`,
  });
  await operatorCall(base, "PATCH", `/operator/businesses/${biz.id}`, {
    courier_platform_enabled: true,
    api_key_scopes: ["billing:administer", "runs:override", "runs:operate"],
    rate_limit_per_minute: 1_000_000,
    rate_limit_per_day: 100_000_000,
  });
  const cal = await operatorCall(base, "POST", "/business/courier/calendars", {
    code: "BW",
    name: "BW",
    timezone: "Africa/Gaborone",
    working_days: [1, 2, 3, 4, 5],
    holidays: [],
  }, biz.api_key);
  const hours = Object.fromEntries(
    [
      "collection_due",
      "depot_dwell",
      "border_presentation",
      "customs_wait",
      "linehaul",
      "destination_dwell",
      "delivery_attempt",
      "redelivery_due",
      "no_scan",
    ]
      .map((h) => [`${h}_hours`, 8]),
  );
  await operatorCall(base, "POST", "/business/courier/service-levels", {
    code: "express",
    name: "Express",
    transit_days: 1,
    cut_off: "14:00",
    calendar_id: cal.id,
    ...hours,
  }, biz.api_key);
  const card = await operatorCall(base, "POST", "/business/courier/rate-cards", {
    name: "Bench",
    currency: "BWP",
    base_charge: 50,
    per_kg: 10,
    included_kg: 1,
    tax_pct: 14,
  }, biz.api_key);
  const keys: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const id = newId("cli");
    const key = await issueCredential("ck_", Date.now());
    const r = await o.env.runtime.ask(courierClientActor, biz.id, id, {
      kind: "create",
      client: {
        id,
        business_id: biz.id,
        name: `Bench client ${i}`,
        code: `B${i}`,
        email: `b${i}.${biz.id}@example.com`,
        settings: {
          settlement_mode: "prepaid",
          credit_limit_minor: 0,
          payment_days: null,
          billing_currency: "BWP",
          external_system: null,
          unique_external_reference: false,
          rate_card_id: card.id,
        },
        api_key: key.record,
        users: [],
      },
      by: "bench",
    });
    if (!r.ok) throw new Error(r.message);
    await o.env.runtime.ask(courierClientActor, biz.id, id, {
      kind: "top_up",
      amount_minor: 1_000_000_000,
      currency: "BWP",
      reference: "bench",
      by: "bench",
    });
    keys.push(key.secret);
  }
  return {
    base,
    keys,
    businessKey: biz.api_key,
    businessId: biz.id,
    settle: () => o.env.settle(),
    async close() {
      const st = o.env.runtime.commitStats;
      console.log(
        `  (${st.commits} KV commits of ${st.writes} actor writes, ${
          (st.commitMs / st.commits).toFixed(2)
        } ms each)`,
      );
      await server.shutdown();
      await o.env.settle();
      // A real server keeps schemas: each run would leave its tables behind.
      if (databaseUrl) await dropSchema(o.env.db, schema);
      await o.close();
      await bus.drain();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const TERMS: RateCardTerms = {
  currency: "BWP",
  base_charge: 5_000,
  per_kg: 1_000,
  included_grams: 1_000,
  volumetric_divisor: 5_000,
  minimum_charge: 0,
  collection_fee: 0,
  delivery_fee: 0,
  discount_bp: 0,
  surcharge_bp: 0,
  tax_bp: 1_400,
  tax_inclusive: false,
  tax_label: "VAT",
  corridors: [],
  liability_cover_bp: 0,
  redelivery_fee: 0,
  return_fee: 0,
  claim_window_days: 0,
  customs_admin_fee: 0,
  errand_fee: 0,
  failed_collection_fee: 0,
  cold_chain_fee: 0,
  waiting_fee: 0,
};

interface Sql {
  unsafe(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  begin<T>(
    fn: (q: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>,
  ): Promise<T>;
  end(): Promise<void>;
  label: string;
}

async function openSql(pool: number): Promise<Sql> {
  const url = Deno.env.get("DATABASE_URL");
  if (url) {
    const sql = postgres(url, { max: pool, onnotice: () => {} });
    return {
      label: `Postgres, pool of ${pool}`,
      unsafe: (t, p) =>
        sql.unsafe(t, (p ?? []) as never[]) as unknown as Promise<Record<string, unknown>[]>,
      begin: (fn) =>
        sql.begin((tx) =>
          fn((t, p) =>
            tx.unsafe(t, (p ?? []) as never[]) as unknown as Promise<Record<string, unknown>[]>
          )
        ) as never,
      end: () => sql.end(),
    };
  }
  const db = await PGlite.create();
  const q = async (t: string, p?: unknown[]) =>
    (await db.query<Record<string, unknown>>(t, p)).rows;
  return {
    label: "embedded PGlite (DATABASE_URL unset: not a fair baseline)",
    unsafe: q,
    begin: (fn) =>
      db.transaction((tx) =>
        fn(async (t, p) => (await tx.query<Record<string, unknown>>(t, p)).rows)
      ),
    end: () => db.close(),
  };
}

/** The balance did not cover the booking: rolls the transaction back. */
class Refused extends Error {}

/** The conventional design: Hono routes, one Postgres transaction per booking. */
export async function baselineTarget(
  accounts: number,
  pool: number,
): Promise<Target & { label: string }> {
  const sql = await openSql(pool);
  const s = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  await sql.unsafe(`create schema ${s}`);
  await sql.unsafe(
    `create table ${s}.accounts (id text primary key, key_hash text unique, balance bigint not null)`,
  );
  await sql.unsafe(
    `create table ${s}.offers (id text primary key, account text not null, valid_until bigint not null, options jsonb not null, waybill text)`,
  );
  await sql.unsafe(
    `create table ${s}.shipments (waybill text primary key, account text not null, total bigint not null, pricing jsonb not null, tracking_token text not null unique)`,
  );
  // The same flow as ours: the booking's ledger entry (a row for statements and exports) and its
  // shipment.booked billing event (an outbox row the sender picks up) commit with the booking.
  await sql.unsafe(
    `create table ${s}.ledger_entries (id bigint generated always as identity primary key, account text not null, reference text not null, kind text not null, amount bigint not null, currency text not null, created_at timestamptz not null default now())`,
  );
  await sql.unsafe(`create index on ${s}.ledger_entries (account, id)`);
  await sql.unsafe(
    `create table ${s}.billing_events (id bigint generated always as identity primary key, account text not null, type text not null, body jsonb not null, sent_at timestamptz)`,
  );
  await sql.unsafe(`create index on ${s}.billing_events (id) where sent_at is null`);
  const keys: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const key = `ck_${crypto.randomUUID()}`;
    keys.push(key);
    await sql.unsafe(`insert into ${s}.accounts values ($1, $2, $3)`, [
      `a${i}`,
      await hashSecret(key),
      1_000_000_000,
    ]);
  }
  const app = new Hono();
  const accountOf = async (key: string | undefined) => {
    const rows = await sql.unsafe(`select id from ${s}.accounts where key_hash = $1`, [
      await hashSecret(key ?? ""),
    ]);
    return rows[0]?.id as string | undefined;
  };
  app.post("/api/client/prices", async (c) => {
    const account = await accountOf(c.req.header("X-Client-API-Key"));
    if (!account) return c.json({ success: false, code: "unauthenticated" }, 401);
    const body = await c.req.json();
    const option = priceOption(TERMS, { code: "express", name: "Express", adjustment_bp: 0 }, {
      parcels: body.parcels,
      from_country: body.from_country,
      to_country: body.to_country,
      declared_value_minor: null,
      liability_cover: false,
    });
    const id = newId("prc");
    await sql.unsafe(`insert into ${s}.offers values ($1, $2, $3, $4, null)`, [
      id,
      account,
      Date.now() + 30 * 60_000,
      JSON.stringify([option]),
    ]);
    return c.json({ success: true, data: { prices_reference: id, options: [option] } });
  });
  app.post("/api/client/book", async (c) => {
    const account = await accountOf(c.req.header("X-Client-API-Key"));
    if (!account) return c.json({ success: false, code: "unauthenticated" }, 401);
    const body = await c.req.json();
    const result = await sql.begin(async (q) => {
      const [offer] = await q(
        `select * from ${s}.offers where id = $1 and account = $2 for update`,
        [
          body.prices_reference,
          account,
        ],
      );
      if (!offer) return { status: 404 as const };
      if (offer.waybill) return { status: 200 as const, waybill: offer.waybill };
      if (Number(offer.valid_until) < Date.now()) return { status: 422 as const };
      const options =
        (typeof offer.options === "string" ? JSON.parse(offer.options) : offer.options) as {
          code: string;
          total_minor: number;
          lines: unknown[];
        }[];
      const option = options.find((o) => o.code === body.service_level);
      if (!option) return { status: 422 as const };
      const waybill = newId("WB");
      await q(`insert into ${s}.shipments values ($1, $2, $3, $4, $5)`, [
        waybill,
        account,
        option.total_minor,
        JSON.stringify(option),
        crypto.randomUUID(),
      ]);
      await q(
        `insert into ${s}.ledger_entries (account, reference, kind, amount, currency) values ($1, $2, 'shipment', $3, $4)`,
        [account, waybill, option.total_minor, TERMS.currency],
      );
      await q(`insert into ${s}.billing_events (account, type, body) values ($1, $2, $3)`, [
        account,
        "shipment.booked",
        JSON.stringify({ waybill, total_minor: option.total_minor, lines: option.lines }),
      ]);
      await q(`update ${s}.offers set waybill = $1 where id = $2`, [
        waybill,
        body.prices_reference,
      ]);
      // The hot row last: its lock is held only from here to the commit.
      const paid = await q(
        `update ${s}.accounts set balance = balance - $1 where id = $2 and balance >= $1 returning balance`,
        [option.total_minor, account],
      );
      if (paid.length === 0) throw new Refused();
      return { status: 201 as const, waybill };
    }).catch((e) => {
      if (e instanceof Refused) return { status: 422 as const };
      throw e;
    });
    return c.json({ success: result.status < 300, data: result }, result.status);
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  return {
    label: sql.label,
    base: `http://127.0.0.1:${server.addr.port}`,
    keys,
    async close() {
      await server.shutdown();
      await sql.unsafe(`drop schema ${s} cascade`);
      await sql.end();
    },
  };
}

/**
 * Routes of the same shape that book nothing: the most this load generator and Hono on this
 * machine carry, which bounds what any booking design can show here.
 */
export function ceilingTarget(): Target {
  const app = new Hono();
  let n = 0;
  app.post("/api/client/prices", async (c) => {
    await c.req.json();
    return c.json({ success: true, data: { prices_reference: `prc_${n++}` } });
  });
  app.post("/api/client/book", async (c) => {
    await c.req.json();
    return c.json({ success: true, data: { waybill: `WB${n++}` } }, 201);
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    keys: ["ck_ceiling"],
    close: () => server.shutdown(),
  };
}

export async function bookingBench(options: { only?: "runtime-hot" } = {}): Promise<void> {
  let ceiling = 0;
  if (!options.only) {
    // One load Worker tops out before the server does: the ceiling is the best of several.
    const target = ceilingTarget();
    for (const workers of [1, 2, 3]) {
      for (const clients of CLIENT_COUNTS) {
        const rate = await load(
          `HTTP booking ceiling (routes that book nothing), ${clients} clients, ${workers} load workers`,
          target,
          clients,
          workers,
        );
        ceiling = Math.max(ceiling, rate);
      }
    }
    await target.close();
  }
  for (const [label, accounts] of [["one hot account", 1], ["1,000 accounts", ACCOUNTS]] as const) {
    const ours = new Map<number, number>();
    const runtime = await runtimeTarget(accounts);
    for (const clients of CLIENT_COUNTS) {
      ours.set(
        clients,
        await load(`HTTP booking, runtime, ${label}, ${clients} clients`, runtime, clients),
      );
    }
    await runtime.close();
    if (options.only) return;
    const theirs = new Map<number, number>();
    for (const clients of CLIENT_COUNTS) {
      // PGlite is one connection: there is no pool to tune.
      for (const pool of Deno.env.get("DATABASE_URL") ? POOL_SIZES : [1]) {
        const baseline = await baselineTarget(accounts, pool);
        const rate = await load(
          `HTTP booking, ${baseline.label} transaction per booking, ${label}, ${clients} clients`,
          baseline,
          clients,
        );
        await baseline.close();
        theirs.set(clients, Math.max(theirs.get(clients) ?? 0, rate));
      }
    }
    for (const clients of CLIENT_COUNTS) {
      console.log(
        `ratio runtime/baseline, ${label}, ${clients} clients: ${
          (ours.get(clients)! / theirs.get(clients)!).toFixed(1)
        }x`,
      );
    }
    const best = (m: Map<number, number>) => Math.max(...m.values());
    console.log(
      `ratio runtime/baseline, ${label}, best against best: ${
        (best(ours) / best(theirs)).toFixed(1)
      }x (target 10x, aim 20x)`,
    );
    console.log(
      `ratio ceiling/baseline, ${label}: ${(ceiling / best(theirs)).toFixed(1)}x ` +
        `(the most any booking design can show against this baseline on this machine)`,
    );
  }
}

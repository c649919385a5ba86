/**
 * Outbound events and the billing export (issue 4), figures only:
 *
 * 1. Events delivered per second to a local receiver, V3-signed, through the delivery engine
 *    (claim, sign, POST, record) on a KV file.
 * 2. Memory held by 100,000 pending events (created and activated, not yet sent).
 * 3. CSV export rows per second for 1,000,000 ledger entries, and the process's peak RSS while
 *    streaming it (against DATABASE_URL, else embedded PGlite).
 */
import { sql } from "kysely";
import {
  type NewOutboundEvent,
  outboundEventActor,
} from "../actors/platform/outbound_event/mod.ts";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import { openDatabase } from "../src/db/db.ts";
import { dropSchema } from "../src/db/migrate.ts";
import { billingCsvStream } from "../src/courier/queries/billing_export.ts";
import { importDataKey, seal, sealOwner } from "../src/domain/secrets.ts";
import { OutboundDelivery } from "../src/platform/reactors/deliver.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";

const DELIVERED_EVENTS = Number(Deno.env.get("BENCH_DELIVERED") ?? 3_000);
const PENDING_EVENTS = 100_000;
const EXPORT_ENTRIES = Number(Deno.env.get("BENCH_EXPORT_ENTRIES") ?? 1_000_000);
const TENANT = "biz_bench";

const mib = (n: number) => (n / 1_048_576).toFixed(1);

async function openRuntime(dir: string) {
  const store = await KvActorStore.open(`${dir}/kv.sqlite`);
  const bus = new MemoryBus();
  const clock = new SystemClock();
  const runtime = new ActorRuntime({
    env: "bench",
    store,
    bus,
    clock,
    definitions: [outboundEventActor],
  });
  await runtime.start();
  return {
    runtime,
    bus,
    clock,
    close: async () => (await runtime.close(), store.close()),
  };
}

function body(i: number): string {
  return JSON.stringify({
    api_version: "v1",
    event_type: "shipment.booked",
    event_id: `evt_bench_${i}`,
    occurred_at: new Date().toISOString(),
    client: { id: "cli_1", code: "C1", name: "Molapo Pharmacy" },
    entry: { reference: `WB${i}`, kind: "shipment", amount: "88.92", currency: "BWP" },
  });
}

async function createAll(
  runtime: ActorRuntime,
  count: number,
  event: (i: number) => NewOutboundEvent,
): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, count - i) }, (_, j) => {
        const e = event(i + j);
        return runtime.ask(outboundEventActor, TENANT, e.event_id, { kind: "create", event: e });
      }),
    );
  }
}

async function deliveredPerSecond(): Promise<void> {
  const dir = await Deno.makeTempDir();
  const { runtime, bus, clock, close } = await openRuntime(dir);
  let received = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (r) => {
    await r.arrayBuffer();
    received++;
    return new Response("ok");
  });
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  // Each event's fixed target is sealed for that event (sealOwner), as the engine unseals it.
  const sealed = await Promise.all(
    Array.from(
      { length: DELIVERED_EVENTS },
      (_, i) =>
        seal(dataKey, "whsec_bench_secret", sealOwner("outbound_target", TENANT, `evt_bench_${i}`)),
    ),
  );
  const delivery = new OutboundDelivery({ runtime, bus, dataKey, clock, allowLoopback: true });
  const url = `http://127.0.0.1:${server.addr.port}/billing`;
  await createAll(runtime, DELIVERED_EVENTS, (i) => ({
    event_id: `evt_bench_${i}`,
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: body(i),
    target: { url, key_id: "whk_bench", sealed_secret: sealed[i]! },
  }));
  const start = performance.now();
  await runtime.fireDueTimers();
  await bus.flush();
  while (received < DELIVERED_EVENTS) {
    if ((await delivery.pump()) === 0) {
      await runtime.fireDueTimers();
      await bus.flush();
    }
  }
  const seconds = (performance.now() - start) / 1000;
  console.log(
    `outbound: ${DELIVERED_EVENTS} billing events delivered to a local receiver, V3-signed: ` +
      `${(DELIVERED_EVENTS / seconds).toFixed(0)} events/s`,
  );
  await delivery.close();
  await server.shutdown();
  await close();
  await Deno.remove(dir, { recursive: true });
}

async function pendingMemory(): Promise<void> {
  const dir = await Deno.makeTempDir();
  const { runtime, close } = await openRuntime(dir);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage();
  const start = performance.now();
  await createAll(runtime, PENDING_EVENTS, (i) => ({
    event_id: `evt_pending_${i}`,
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: body(i),
    recipient: { kind: "courier" },
    entry: { client_id: "cli_1", reference: `WB${i}` },
  }));
  const seconds = (performance.now() - start) / 1000;
  gc?.();
  const after = Deno.memoryUsage();
  console.log(
    `outbound: ${PENDING_EVENTS} pending events created in ${seconds.toFixed(1)} s ` +
      `(${(PENDING_EVENTS / seconds).toFixed(0)}/s); memory held: rss +${
        mib(after.rss - before.rss)
      } MiB, heap +${mib(after.heapUsed - before.heapUsed)} MiB (${runtime.activeActors} active)`,
  );
  await close();
  await Deno.remove(dir, { recursive: true });
}

export async function csvExport(): Promise<void> {
  const url = Deno.env.get("DATABASE_URL");
  const schema = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const database = await openDatabase({ schema, ...(url ? { url } : {}) });
  const { db } = database;
  const fill = performance.now();
  // Entries straight into the query side, a tenth of them shipments with a snapshot each.
  await sql`insert into ledger_entries (tenant, client_id, reference, seq, period, kind,
      amount_minor, currency, status, payer, recoverable, shipment, created_at, event_id)
    select ${TENANT}, 'cli_' || (g % 50), 'REF' || g, g, '2026-11', 'shipment', 8892, 'BWP',
      'posted', 'client', false, 'WB' || g, timestamptz '2026-11-01' + g * interval '1 second',
      'evt_' || g
    from generate_series(1, ${EXPORT_ENTRIES}) g`.execute(db);
  await sql`insert into snapshots (type, id, tenant, version, data)
    select 'shipment', 'WB' || g, ${TENANT}, 1, jsonb_build_object('status', 'booked',
      'external_customer_code', 'EXT' || g, 'pricing', jsonb_build_object('tax_minor', 1092))
    from generate_series(1, ${EXPORT_ENTRIES / 10}) g`.execute(db);
  // As autovacuum would after a load this size: the planner needs the tables' statistics.
  await sql`analyze ledger_entries`.execute(db);
  await sql`analyze snapshots`.execute(db);
  const filled = (performance.now() - fill) / 1000;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = Deno.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }, 50);
  const start = performance.now();
  const stream = await billingCsvStream(db, {
    tenant: TENANT,
    client_id: null,
    from: null,
    to: null,
    as_of: new Date("2027-01-01"),
  });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  console.log(
    `billing export (${database.kind}): ${lines - 1} rows, ${mib(bytes)} MiB of CSV in ` +
      `${seconds.toFixed(1)} s: ${((lines - 1) / seconds).toFixed(0)} rows/s; peak rss ${
        mib(peak)
      } MiB (+${mib(peak - baseline)} MiB while streaming; filling took ${filled.toFixed(1)} s)`,
  );
  if (url) await dropSchema(db, schema);
  await database.close();
}

export async function outboundBench(): Promise<void> {
  await deliveredPerSecond();
  await pendingMemory();
  await csvExport();
}

if (import.meta.main) await outboundBench();

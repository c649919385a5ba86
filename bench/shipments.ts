/**
 * Open shipments (issue 5), figures only: with 100,000 open shipments activated, resident memory
 * per shipment; the time to evaluate every deadline after a clock jump of one day; and the time
 * from a restart until every shipment is served again. On a KV file, with the manual clock.
 */
import { shipmentActor, type ShipmentBooking } from "../actors/courier/shipment/mod.ts";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import { ManualClock } from "../src/runtime/clock.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";

const SHIPMENTS = Number(Deno.env.get("BENCH_SHIPMENTS") ?? 100_000);
const BATCH = 500;
const TENANT = "biz_bench";
const mib = (n: number) => (n / 1_048_576).toFixed(1);

export function booking(i: number, now: number): ShipmentBooking {
  const party = {
    name: "Neo Kgosi",
    address: "Plot 9, Gaborone",
    phone: null,
    lat: null,
    lng: null,
  };
  return {
    waybill: `WB${String(i).padStart(9, "0")}`,
    courier_id: TENANT,
    client_id: `cli_${i % 100}`,
    booked_at: now,
    booked_by: "bench",
    from_country: "BW",
    to_country: "BW",
    sender: party,
    recipient: party,
    parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
    contents: "Medicines",
    declared_value_minor: null,
    liability_cover: false,
    dangerous_goods_confirmed: false,
    references: {
      external_customer_code: null,
      external_billing_reference: null,
      client_order_reference: `ORD-${i}`,
    },
    pricing: {
      prices_reference: `prc_${i}`,
      rate_card_id: "rc_1",
      rate_card_version: 1,
      service: { code: "express", name: "Express" },
      chargeable_grams: 2500,
      lines: [],
      tax_minor: 1092,
      total_minor: 8892,
      currency: "BWP",
      payer: "client",
      settlement_mode: "prepaid",
      promise: {
        collection_on: "2026-11-02",
        earliest_delivery: "2026-11-03",
        latest_delivery: "2026-11-04",
      },
    },
    service_terms: {
      code: "express",
      collection_due_hours: 8,
      depot_dwell_hours: 8,
      border_presentation_hours: 16,
      customs_wait_hours: 16,
      linehaul_hours: 24,
      destination_dwell_hours: 8,
      delivery_attempt_hours: 8,
      redelivery_due_hours: 16,
      no_scan_hours: 24,
      at_risk_pct: 75,
      calendar: {
        timezone: "Africa/Gaborone",
        working_days: [1, 2, 3, 4, 5],
        holidays: ["2026-12-25"],
      },
    },
    tracking_token: `tok_${i}`,
    tracking_token_hash: `hash_${i}`,
  };
}

async function open(path: string, clock: ManualClock) {
  const store = await KvActorStore.open(path);
  const runtime = new ActorRuntime({
    env: "bench",
    store,
    bus: new MemoryBus(),
    clock,
    definitions: [shipmentActor],
  });
  await runtime.start();
  return { runtime, close: async () => (await runtime.close(), store.close()) };
}

async function inBatches(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, n - i) }, (_, j) => fn(i + j)));
  }
}

export async function shipmentsBench(): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const clock = new ManualClock();
  const gc = (globalThis as { gc?: () => void }).gc;
  let opened = await open(path, clock);
  gc?.();
  const before = Deno.memoryUsage();
  const t0 = performance.now();
  await inBatches(SHIPMENTS, async (i) => {
    const r = await opened.runtime.ask(shipmentActor, TENANT, booking(i, clock.now()).waybill, {
      kind: "book",
      shipment: booking(i, clock.now()),
    });
    if (!r.ok) throw new Error(r.message);
  });
  const booked = (performance.now() - t0) / 1000;
  gc?.();
  const after = Deno.memoryUsage();
  console.log(
    `shipments: ${SHIPMENTS} open shipments booked and activated in ${booked.toFixed(1)} s; ` +
      `resident memory per shipment: ${((after.rss - before.rss) / SHIPMENTS / 1024).toFixed(1)} ` +
      `KiB rss, ${((after.heapUsed - before.heapUsed) / SHIPMENTS / 1024).toFixed(1)} KiB heap ` +
      `(rss +${mib(after.rss - before.rss)} MiB)`,
  );

  // A clock jump of one day: every deadline now due is evaluated (at risk, overdue, no scan).
  clock.advanceBy(24 * 60 * 60 * 1000);
  const t1 = performance.now();
  let fired = 0;
  for (
    let n = await opened.runtime.fireDueTimers();
    n > 0;
    n = await opened.runtime.fireDueTimers()
  ) {
    fired += n;
  }
  const jump = (performance.now() - t1) / 1000;
  console.log(
    `shipments: clock jump of one day: ${fired} deadlines evaluated in ${jump.toFixed(1)} s ` +
      `(${(fired / jump).toFixed(0)} timers/s)`,
  );

  // A restart: the store is reopened and every shipment is read once more.
  await opened.close();
  const t2 = performance.now();
  opened = await open(path, clock);
  await inBatches(SHIPMENTS, async (i) => {
    const r = await opened.runtime.ask(shipmentActor, TENANT, booking(i, 0).waybill, {
      kind: "get",
    });
    if (!r.ok) throw new Error(r.message);
  });
  const restart = (performance.now() - t2) / 1000;
  console.log(
    `shipments: restart until all ${SHIPMENTS} are served again: ${restart.toFixed(1)} s`,
  );
  await opened.close();
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) await shipmentsBench();

/**
 * Client bulk and CSV booking over HTTP (courier 4.6), figures only: one 200-row
 * POST /client/shipments/bulk and one 5,000-line POST /client/shipments/csv, end to end through
 * the real server on loopback (booking.ts' runtime target), each with its time and the process's
 * peak RSS and heap above the level before it; then the same CSV again (every line answered
 * already_booked). Alone: `deno run --allow-all --v8-flags=--expose-gc bench/client_booking.ts`.
 */
import { stringify } from "csv-stringify/sync";
import { BULK_SHIPMENTS_MAX, CSV_BOOKING_LINES_MAX } from "../src/limits.ts";
import { runtimeTarget } from "./booking.ts";

const CSV_LINES = Number(Deno.env.get("BENCH_CSV_LINES") ?? CSV_BOOKING_LINES_MAX);
const mib = (n: number) => (n / 1_048_576).toFixed(1);

function row(i: number) {
  return {
    client_order_reference: `BENCH-${i}`,
    service_level: "express",
    sender_name: "Molapo Pharmacy",
    sender_address: "Plot 123, Main Mall, Gaborone",
    recipient_name: "Neo Kgosi",
    recipient_phone: "+26771234567",
    recipient_address: `Plot ${i}, Block 8, Gaborone`,
    from_country: "BW",
    to_country: "BW",
    parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
    contents: "Medicines",
  };
}

function csvOf(from: number, lines: number): string {
  const { parcels: _p, ...first } = row(0);
  const columns = [...Object.keys(first), "weight_kg", "length_cm", "width_cm", "height_cm"];
  const records = Array.from({ length: lines }, (_, i) => {
    const { parcels: [p], ...r } = row(from + i);
    return [...Object.values(r), p!.weight_kg, p!.length_cm, p!.width_cm, p!.height_cm].map(
      String,
    );
  });
  return stringify([columns, ...records]);
}

/** Runs `fn` while sampling memory; prints its time, rate and peaks above the level before. */
async function measured(label: string, rows: number, fn: () => Promise<Response>): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage();
  let rss = before.rss;
  let heap = before.heapUsed;
  const sample = () => {
    const m = Deno.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  const sampler = setInterval(sample, 20);
  const start = performance.now();
  const res = await fn();
  const body = await res.json();
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  sample();
  if (res.status !== 200) throw new Error(`${label}: ${res.status} ${JSON.stringify(body)}`);
  const { booked, failed, results } = body.data as {
    booked: number;
    failed: number;
    results: { already_booked?: boolean }[];
  };
  const replayed = results.filter((r) => r.already_booked).length;
  console.log(
    `${label}: ${rows} rows in ${seconds.toFixed(2)} s (${(rows / seconds).toFixed(0)} rows/s; ` +
      `${booked} booked of which ${replayed} already_booked, ${failed} failed); peak rss +${
        mib(rss - before.rss)
      } MiB, peak heap +${mib(heap - before.heapUsed)} MiB`,
  );
}

export async function clientBookingBench(): Promise<void> {
  const target = await runtimeTarget(1);
  const headers = { "X-Client-API-Key": target.keys[0]! };
  try {
    const bulk = JSON.stringify({
      shipments: Array.from({ length: BULK_SHIPMENTS_MAX }, (_, i) => row(i)),
    });
    await measured(
      "client bulk booking over HTTP",
      BULK_SHIPMENTS_MAX,
      () =>
        fetch(`${target.base}/api/client/shipments/bulk`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json" },
          body: bulk,
        }),
    );
    const csv = csvOf(BULK_SHIPMENTS_MAX, CSV_LINES);
    const upload = () =>
      fetch(`${target.base}/api/client/shipments/csv`, {
        method: "POST",
        // The upload's key names its lines (client_order_reference does only for a client with
        // unique_external_reference, courier 7): sent again, every line is already booked.
        headers: { ...headers, "Content-Type": "text/csv", "Idempotency-Key": "bench-csv-1" },
        body: csv,
      });
    await measured(`client CSV booking over HTTP (${mib(csv.length)} MiB)`, CSV_LINES, upload);
    await measured("the same CSV again (replays)", CSV_LINES, upload);
  } finally {
    await target.close();
  }
}

if (import.meta.main) await clientBookingBench();

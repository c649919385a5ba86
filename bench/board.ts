/**
 * The live board (issue 5), figures only: with 200 WebSocket boards of one courier connected,
 * the delay from a scan's HTTP answer to the row change arriving on every board (p50, p99).
 */
import { runtimeTarget } from "./booking.ts";

const BOARDS = Number(Deno.env.get("BENCH_BOARDS") ?? 200);
const SCANS = 50;
const WAIT_MS_MAX = 30_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

async function call(base: string, path: string, body: unknown, headers: Record<string, string>) {
  const r = await fetch(`${base}/api${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

export async function boardBench(): Promise<void> {
  const target = await runtimeTarget(1);
  try {
    const clientKey = { "X-Client-API-Key": target.keys[0]! };
    const key = { "X-Business-API-Key": target.businessKey! };
    const prices = await call(target.base, "/client/prices", {
      sender_address: "Plot 1, Gaborone",
      recipient_address: "Plot 2, Gaborone",
      recipient_name: "Neo",
      parcels: [{ weight_kg: 2, length_cm: 20, width_cm: 20, height_cm: 20 }],
      from_country: "BW",
      to_country: "BW",
    }, clientKey);
    const booked = await call(target.base, "/client/book", {
      prices_reference: prices.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: false,
    }, clientKey);
    const waybill: string = booked.waybill;

    // Every board waits for the note of the scan under way; arrival times are recorded per scan.
    let current = "";
    let answeredAt = 0;
    const delays: number[] = [];
    let arrived = 0;
    const sockets: WebSocket[] = [];
    const url = `${target.base.replace("http", "ws")}/api/business/courier/operations/live`;
    await Promise.all(Array.from({ length: BOARDS }, () =>
      new Promise<void>((ready, fail) => {
        const ws = new WebSocket(url);
        sockets.push(ws);
        ws.onopen = () => ws.send(JSON.stringify({ type: "auth", key: target.businessKey }));
        ws.onerror = () => fail(new Error("board socket failed"));
        ws.onmessage = (m) => {
          const msg = JSON.parse(String(m.data));
          if (msg.type === "ready") ready();
          if (msg.type === "shipment" && msg.row?.last_scan?.note === current && current !== "") {
            arrived++;
            // A row may arrive before the scan's HTTP answer is read: that counts as no delay.
            delays.push(Math.max(0, performance.now() - answeredAt));
          }
        };
      })));
    for (let i = 0; i < SCANS; i++) {
      arrived = 0;
      current = `bench-scan-${i}`;
      answeredAt = Number.POSITIVE_INFINITY;
      await call(target.base, `/business/courier/shipments/${waybill}/scans`, {
        event: "scan",
        facility_id: `HUB-${i % 3}`,
        note: current,
      }, key);
      answeredAt = performance.now();
      const deadline = Date.now() + WAIT_MS_MAX;
      while (arrived < BOARDS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      if (arrived < BOARDS) throw new Error(`scan ${i}: only ${arrived} of ${BOARDS} boards`);
    }
    for (const ws of sockets) ws.close();
    delays.sort((a, b) => a - b);
    console.log(
      `board: ${BOARDS} boards, ${SCANS} scans: scan answered -> row on every board ` +
        `p50 ${percentile(delays, 0.5).toFixed(1)} ms, p99 ${
          percentile(delays, 0.99).toFixed(1)
        } ms`,
    );
  } finally {
    await target.close();
  }
}

if (import.meta.main) await boardBench();

/**
 * The sandbox inbox (issue 39, Business API 4.4), figures only: webhooks per second delivered to
 * the built-in inbox through the delivery engine (made from the trips' events, claimed, signed,
 * kept by the inbox's actor, recorded delivered) and listed in its read table, measured from
 * the events' creation until every one is listed. Over many businesses, as the sandbox serves
 * many integrators at once.
 */
import { sql } from "kysely";
import { emitBusinessWebhook } from "../src/business/reactors/business_webhooks.ts";
import type { BusinessWebhookItem } from "../src/business/rules/webhook_events.ts";
import { recordFigure } from "./summary.ts";
import { BENCH_OPERATOR, type BenchEnvironment, withBenchEnvironment } from "./bench_env.ts";

const BUSINESSES = Number(Deno.env.get("BENCH_INBOX_BUSINESSES") ?? 50);
const TRIPS_EACH = Number(Deno.env.get("BENCH_INBOX_TRIPS") ?? 5);
/** A delivered trip's webhooks: trip.created, accepted, picked_up, completed. */
const EVENTS = ["trip.created", "trip.accepted", "trip.picked_up", "trip.completed"] as const;

async function call(o: BenchEnvironment, path: string, body: unknown, auth: HeadersInit) {
  const r = await o.app.request(`/api${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** BUSINESSES sandbox businesses, each with its webhook URL pointed at the inbox. */
async function inboxBusinesses(o: BenchEnvironment): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < BUSINESSES; i++) {
    const biz = await call(o, "/operator/businesses", {
      name: `Bench Inbox ${i}`,
      plan: "enterprise",
      currency: "BWP",
      country: "BW",
      owner_email: `bench-inbox-${i}@example.com`,
    }, { Authorization: `Bearer ${BENCH_OPERATOR}` });
    await call(o, "/business/sandbox/inbox", {}, { "X-Business-API-Key": biz.api_key });
    ids.push(biz.id);
  }
  return ids;
}

/** One trip's webhook as the trip actor's outbox item would carry it. */
function item(business: string, trip: number, event: typeof EVENTS[number]): BusinessWebhookItem {
  const reference = `BK-BENCH${String(trip).padStart(6, "0")}`;
  return {
    business_id: business,
    event_id: `${reference}:${event}`,
    event,
    external_reference: `ORD-${trip}`,
    occurred_at: Date.now(),
    data: { id: trip, reference, status: "active", type: "parcel", returning: false },
  };
}

async function listed(o: BenchEnvironment): Promise<number> {
  await o.env.settle();
  const { rows } = await sql<{ n: string }>`select count(*) as n from sandbox_inbox`
    .execute(o.env.db);
  return Number(rows[0]?.n ?? 0);
}

/** No progress for this long (two attempt leases): the run is reported stalled, not waited on. */
const STALLED_MS = 130_000;

/** Pumps until `total` are listed or nothing more is listed for STALLED_MS; answers how many. */
async function waitListed(o: BenchEnvironment, total: number, started: number): Promise<number> {
  let n = await listed(o);
  let progressed = performance.now();
  let logged = performance.now();
  while (n < total && performance.now() - progressed < STALLED_MS) {
    await o.env.runtime.fireDueTimers();
    await o.env.pump();
    const now = await listed(o);
    if (now > n) progressed = performance.now();
    n = now;
    if (performance.now() - logged > 5_000) {
      logged = performance.now();
      console.log(`  ${n} of ${total} listed after ${((logged - started) / 1_000).toFixed(1)} s`);
    }
  }
  return n;
}

export async function sandboxInboxBench(): Promise<void> {
  await withBenchEnvironment("sandbox", async (o) => {
    const businesses = await inboxBusinesses(o);
    const total = businesses.length * TRIPS_EACH * EVENTS.length;
    const started = performance.now();
    await Promise.all(businesses.map(async (b) => {
      for (let trip = 0; trip < TRIPS_EACH; trip++) {
        for (const event of EVENTS) {
          await emitBusinessWebhook(o.env.runtime, b, item(b, trip, event));
        }
      }
    }));
    const made = performance.now();
    const n = await waitListed(o, total, started);
    const seconds = (performance.now() - started) / 1_000;
    const perSecond = n < total ? NaN : total / seconds;
    console.log(
      `sandbox inbox: ${perSecond.toFixed(0)} webhooks/s delivered to the inbox and listed ` +
        `(${n} of ${total} events of ${businesses.length * TRIPS_EACH} trips over ` +
        `${businesses.length} businesses, ${seconds.toFixed(1)} s, made in ` +
        `${((made - started) / 1_000).toFixed(1)} s)`,
    );
    recordFigure("sandbox_inbox_webhooks_per_second", perSecond);
  });
}

if (import.meta.main) await sandboxInboxBench();

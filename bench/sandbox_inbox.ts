/**
 * The sandbox inbox (issue 39, Business API 4.4), figures only: webhooks per second delivered to
 * the built-in inbox through the delivery engine (made from the trips' events, claimed, signed,
 * kept by the inbox's actor, recorded delivered) and listed in its read table, measured from
 * the events' creation until every one is listed. Over many businesses, since the engine sends
 * one recipient's events at most RECIPIENT_ATTEMPTS_PER_SECOND_MAX a second (a limit, not a cost).
 */
import { sql } from "kysely";
import { openBus } from "../src/bus/mod.ts";
import { emitBusinessWebhook } from "../src/business/reactors/business_webhooks.ts";
import type { BusinessWebhookItem } from "../src/business/rules/webhook_events.ts";
import { hashSecret, importDataKey } from "../src/domain/secrets.ts";
import { silentLogger } from "../src/observe/log.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { openEnvironment } from "../src/server.ts";
import { recordFigure } from "./summary.ts";

const BUSINESSES = Number(Deno.env.get("BENCH_INBOX_BUSINESSES") ?? 50);
const TRIPS_EACH = Number(Deno.env.get("BENCH_INBOX_TRIPS") ?? 5);
/** A delivered trip's webhooks: trip.created, accepted, picked_up, completed. */
const EVENTS = ["trip.created", "trip.accepted", "trip.picked_up", "trip.completed"] as const;
const OPERATOR = "op_bench_operator_token_0123456789";

type Opened = Awaited<ReturnType<typeof openEnvironment>>;

async function call(o: Opened, path: string, body: unknown, auth: HeadersInit) {
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
async function inboxBusinesses(o: Opened): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < BUSINESSES; i++) {
    const biz = await call(o, "/operator/businesses", {
      name: `Bench Inbox ${i}`,
      plan: "enterprise",
      currency: "BWP",
      country: "BW",
      owner_email: `bench-inbox-${i}@example.com`,
    }, { Authorization: `Bearer ${OPERATOR}` });
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

async function listed(o: Opened): Promise<number> {
  await o.env.settle();
  const { rows } = await sql<{ n: string }>`select count(*) as n from sandbox_inbox`
    .execute(o.env.db);
  return Number(rows[0]?.n ?? 0);
}

/** No progress for this long (two attempt leases): the run is reported stalled, not waited on. */
const STALLED_MS = 130_000;

/** Pumps until `total` are listed or nothing more is listed for STALLED_MS; answers how many. */
async function waitListed(o: Opened, total: number, started: number): Promise<number> {
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
  const dir = await Deno.makeTempDir();
  const bus = await openBus(undefined);
  const o = await openEnvironment({
    name: "sandbox",
    kvPath: `${dir}/kv.sqlite`,
    schema: `bench_${crypto.randomUUID().slice(0, 8)}`,
    bus,
    clock: new SystemClock(),
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    operatorTokenHash: await hashSecret(OPERATOR),
    allowLoopbackWebhooks: false,
    log: silentLogger(),
  });
  try {
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
  } finally {
    await o.close();
    await bus.drain();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await sandboxInboxBench();

/**
 * The runtime target: the real server (src/server.ts) on loopback, with one courier set up to
 * book (calendar, service level, rate card) and prepaid client accounts, each with its API key.
 * The booking bench loads it; the runs, board and client booking benches drive it too.
 */
import { silentLogger } from "../src/observe/log.ts";
import { courierClientActor } from "../actors/courier/courier_client.ts";
import { openBus } from "../src/bus/mod.ts";
import { issueCredential } from "../src/domain/credentials.ts";
import { hashSecret, importDataKey } from "../src/domain/secrets.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { newId } from "../src/runtime/ids.ts";
import type { ActorRuntime } from "../src/runtime/runtime.ts";
import { openEnvironment } from "../src/server.ts";
import { dropSchema } from "../src/db/migrate.ts";
import type { Target } from "./booking_load.ts";
import type { Hono } from "hono";
import type { Router } from "../src/feature.ts";

const OPERATOR = "op_bench_operator_token_0123456789";

/** The milestones a service level times (courier 2.8): 8 working hours each. */
const SERVICE_HOURS = [
  "collection_due",
  "depot_dwell",
  "border_presentation",
  "customs_wait",
  "linehaul",
  "destination_dwell",
  "delivery_attempt",
  "redelivery_due",
  "no_scan",
];

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

/** Where the query side and the bus are: the environment's settings unless named. */
export interface Backend {
  readonly databaseUrl: string | undefined;
  readonly natsUrl: string | undefined;
}

export function environmentBackend(): Backend {
  return { databaseUrl: Deno.env.get("DATABASE_URL"), natsUrl: Deno.env.get("NATS_URL") };
}

/** The runtime target, with its app for requests made in process (request_path.ts). */
export interface RuntimeTarget extends Target {
  readonly app: Hono;
}

export async function runtimeTarget(
  accounts: number,
  backend: Backend = environmentBackend(),
  routers: readonly Router[] = [],
): Promise<RuntimeTarget> {
  const dir = await Deno.makeTempDir();
  const bus = await openBus(backend.natsUrl);
  const databaseUrl = backend.databaseUrl;
  const schema = `bench_${crypto.randomUUID().slice(0, 8)}`;
  const o = await openEnvironment({
    name: "live",
    kvPath: `${dir}/kv.sqlite`,
    ...(databaseUrl ? { databaseUrl } : {}),
    // In memory, as before, but off the serving thread as a server's; 0 keeps it on the thread.
    pgliteWorker: Deno.env.get("BENCH_PGLITE_WORKER") !== "0",
    schema,
    bus,
    clock: new SystemClock(),
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    operatorTokenHash: await hashSecret(OPERATOR),
    allowLoopbackWebhooks: false,
    log: silentLogger(),
    extraRouters: routers,
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, o.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const courier = await benchCourier(base);
  const keys = await prepaidClients(o.env.runtime, courier, accounts);
  return {
    app: o.app,
    base,
    keys,
    businessKey: courier.businessKey,
    businessId: courier.businessId,
    settle: () => o.env.settle(),
    async close() {
      const st = o.env.runtime.commitStats;
      console.log(
        `  (${st.commits} KV commits of ${st.writes} actor writes: ${st.mutations} mutations, ` +
          `${(st.bytes / 1e6).toFixed(1)} MB; ${(st.commitMs / st.commits).toFixed(2)} ms each)`,
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

interface BenchCourier {
  readonly businessId: string;
  readonly businessKey: string;
  readonly rateCardId: string;
}

/** A courier business on the enterprise plan, with a calendar, a service level and a rate card. */
async function benchCourier(base: string): Promise<BenchCourier> {
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
  const hours = Object.fromEntries(SERVICE_HOURS.map((h) => [`${h}_hours`, 8]));
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
  return { businessId: biz.id, businessKey: biz.api_key, rateCardId: card.id };
}

/** `accounts` prepaid client accounts of the courier, topped up well beyond the load; their keys. */
async function prepaidClients(
  runtime: ActorRuntime,
  courier: BenchCourier,
  accounts: number,
): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const id = newId("cli");
    const key = await issueCredential("ck_", Date.now());
    const r = await runtime.ask(courierClientActor, courier.businessId, id, {
      kind: "create",
      client: {
        id,
        business_id: courier.businessId,
        name: `Bench client ${i}`,
        code: `B${i}`,
        email: `b${i}.${courier.businessId}@example.com`,
        settings: {
          settlement_mode: "prepaid",
          credit_limit_minor: 0,
          payment_days: null,
          billing_currency: "BWP",
          external_system: null,
          unique_external_reference: false,
          rate_card_id: courier.rateCardId,
        },
        api_key: key.record,
        users: [],
      },
      by: "bench",
    });
    if (!r.ok) throw new Error(r.message);
    await runtime.ask(courierClientActor, courier.businessId, id, {
      kind: "top_up",
      amount_minor: 1_000_000_000,
      currency: "BWP",
      reference: "bench",
      by: "bench",
    });
    keys.push(key.secret);
  }
  return keys;
}

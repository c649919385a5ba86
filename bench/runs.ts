/**
 * Network runs (issue 6), figures only: stop actions per second for a run of 500 stops driven
 * concurrently by its driver and by operations (each also replaying some of the other's actions
 * with the same idempotency key, as after lost signal), then a check that every custody move was
 * applied exactly once.
 */
import type { Target } from "./booking_load.ts";
import { operatorCall, runtimeTarget } from "./runtime_target.ts";

const STOPS = Number(Deno.env.get("BENCH_RUN_STOPS") ?? 500);

type Headers = Record<string, string>;

/** A stop action: who sends it, where, for which stop. */
interface StopAction {
  readonly path: string;
  readonly headers: Headers;
  readonly stop: string;
}

async function call(
  base: string,
  method: string,
  path: string,
  body: unknown,
  headers: Headers,
) {
  const r = await fetch(`${base}/api${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

export async function runsBench(): Promise<void> {
  const target = await runtimeTarget(1);
  try {
    const client = { "X-Client-API-Key": target.keys[0]! };
    const ops = { "X-Business-API-Key": target.businessKey! };
    const driver = await operatorCall(
      target.base,
      "POST",
      `/operator/businesses/${target.businessId}/drivers`,
      {
        name: "Thabo",
        phone: "+26771000000",
        vehicle_type_id: 1,
      },
    );
    const asDriver = { Authorization: `Bearer ${driver.token}` };
    const waybills = await bookShipments(target, client);
    const { runId, stops } = await departedRun(target, ops, driver.id, waybills);
    const actions = stopActions(runId, stops, asDriver, ops);
    // The bookings' and the run's own work (projections, events) is done before the clock starts,
    // so that the figure is the stop actions' alone.
    await target.settle?.();
    const start = performance.now();
    await sendActions(target, actions);
    const answered = performance.now();
    // Timed until the runtime has done what the actions left to do asynchronously (completion
    // billing events, webhooks, projections): a backlog must not flatter the rate.
    await target.settle?.();
    const lag = performance.now() - answered;
    const seconds = (performance.now() - start) / 1000;
    const exactlyOnce = await deliveredOnce(target, ops, waybills);
    console.log(
      `runs: ${actions.length} stop actions on a run of ${STOPS} stops (driver and operations ` +
        `concurrently, with replays): ${(actions.length / seconds).toFixed(0)} actions/s` +
        (target.settle ? ` (caught up ${lag.toFixed(0)} ms after the last answer)` : "") + `; ` +
        `custody moved exactly once on ${exactlyOnce} of ${STOPS} shipments`,
    );
  } finally {
    await target.close();
  }
}

/** STOPS shipments booked by the client, 25 at a time; their waybills. */
async function bookShipments(target: Target, client: Headers): Promise<string[]> {
  const waybills: string[] = [];
  for (let i = 0; i < STOPS; i += 25) {
    waybills.push(
      ...await Promise.all(Array.from({ length: Math.min(25, STOPS - i) }, async () => {
        const prices = await call(target.base, "POST", "/client/prices", {
          recipient_name: "Neo",
          parcels: [{ weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 }],
          from_country: "BW",
          to_country: "BW",
        }, client);
        const booked = await call(target.base, "POST", "/client/book", {
          prices_reference: prices.prices_reference,
          service_level: "express",
          dangerous_goods_confirmed: false,
        }, client);
        return booked.waybill as string;
      })),
    );
  }
  return waybills;
}

/** A delivery run of the driver with a stop per waybill, departed. */
async function departedRun(target: Target, ops: Headers, driverId: string, waybills: string[]) {
  const run = await call(target.base, "POST", "/business/network-runs", {
    facility_id: "GBE-HUB",
    kind: "delivery",
    countries: ["BW"],
    capacity: { kg: 10_000, m3: 100, pieces: 10_000, cold_slots: 0 },
    driver_id: driverId,
  }, ops);
  let stops: { id: string; waybill: string }[] = [];
  for (const waybill of waybills) {
    const r = await call(target.base, "POST", `/business/network-runs/${run.id}/stops`, {
      kind: "deliver",
      waybill,
    }, ops);
    stops = r.stops;
  }
  await call(target.base, "POST", `/business/network-runs/${run.id}/depart`, {}, ops);
  return { runId: run.id as string, stops };
}

/**
 * The driver works the even stops and operations the odd ones; each also replays every fifth
 * stop of the other with the same idempotency key.
 */
function stopActions(
  runId: string,
  stops: readonly { id: string }[],
  asDriver: Headers,
  ops: Headers,
): StopAction[] {
  const actions: StopAction[] = [];
  stops.forEach((s, i) => {
    const mine = i % 2 === 0 ? asDriver : ops;
    const prefix = i % 2 === 0 ? "/driver" : "/business";
    actions.push({
      path: `${prefix}/network-runs/${runId}/stops/${s.id}/deliver`,
      headers: mine,
      stop: s.id,
    });
    if (i % 5 === 0) {
      const other = i % 2 === 0 ? ops : asDriver;
      const otherPrefix = i % 2 === 0 ? "/business" : "/driver";
      actions.push({
        path: `${otherPrefix}/network-runs/${runId}/stops/${s.id}/deliver`,
        headers: other,
        stop: s.id,
      });
    }
  });
  return actions;
}

/** Sends the actions in order from 16 concurrent loops. */
async function sendActions(target: Target, actions: readonly StopAction[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < actions.length) {
      const a = actions[next++]!;
      await call(
        target.base,
        "POST",
        a.path,
        { idempotency_key: `deliver-${a.stop}` },
        a.headers,
      );
    }
  }));
}

/** How many of the shipments have exactly one delivered event in their trail. */
async function deliveredOnce(target: Target, ops: Headers, waybills: string[]): Promise<number> {
  let exactlyOnce = 0;
  for (const waybill of waybills) {
    const s = await call(
      target.base,
      "GET",
      `/business/courier/operations/${waybill}`,
      undefined,
      ops,
    );
    const delivered = s.trail.filter((e: { event: string }) => e.event === "delivered").length;
    if (delivered === 1) exactlyOnce++;
  }
  return exactlyOnce;
}

if (import.meta.main) await runsBench();

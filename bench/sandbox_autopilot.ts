/**
 * The sandbox autopilot (issue 39 "Measured, not asserted"), a figure only: 1,000 trips booked at
 * once on a sandbox environment with the `delivered` scenario and step_seconds 1, the manual
 * clock advanced a second at a time (each advance fires the due step timers; their outbox
 * handlers run the steps through the step flow), timed until every trip is completed. Autopilot
 * trips run to completion per second, and the steps per second that is.
 */
import type { ActorChange } from "../src/bus/bus.ts";
import { subjectPattern } from "../src/bus/bus.ts";
import { SCENARIO_STEPS } from "../src/business/rules/sandbox_steps.ts";
import { tripActor } from "../actors/business/trip/mod.ts";
import { openTestEnv, type TestEnv } from "../tests/helpers/test_env.ts";
import { recordFigure } from "./summary.ts";

const TRIPS = Number(Deno.env.get("BENCH_AUTOPILOT_TRIPS") ?? 1_000);
const log = (s: string) => Deno.env.get("BENCH_DEBUG") && console.log(s);
/** Bookings per business (within a business's booking limit a minute, spec: business 8). */
const PER_BUSINESS = 100;
/** Clock advances allowed beyond the scenario's steps before the bench gives up. */
const SPARE_ROUNDS = 20;

async function businesses(t: TestEnv): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(TRIPS / PER_BUSINESS); i++) {
    const b = await t.createBusiness();
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "100000.00", currency: "BWP", reference: `bench-autopilot-${i}` },
    });
    const r = await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "delivered", step_seconds: 1 },
    });
    if (r.status !== 200) throw new Error(`autopilot: ${r.status} ${JSON.stringify(r.body)}`);
    keys.push(b.api_key);
  }
  return keys;
}

const body = {
  type: "parcel",
  passenger_name: "Neo Kgosi",
  passenger_phone: "+26771234567",
  pickup_address: "Main Mall, Gaborone",
  pickup_lat: -24.6545,
  pickup_lng: 25.9086,
  dest_address: "Plot 9, Block 8",
  dest_lat: -24.6019,
  dest_lng: 25.935,
};

async function run(t: TestEnv): Promise<void> {
  const keys = await businesses(t);
  log("businesses");
  let completed = 0;
  const sub = t.env.bus.subscribe(
    subjectPattern(t.env.runtime.busPrefix, "*", tripActor.type),
    (m) => {
      for (const { event } of (m.payload as ActorChange).events) {
        if ((event as { kind: string }).kind === "trip_delivered") completed++;
      }
    },
  );
  const answers = await Promise.all(
    Array.from(
      { length: TRIPS },
      (_, i) => t.call("POST", "/business/book", { key: keys[i % keys.length]!, body }),
    ),
  );
  log("booked");
  const booked = answers.filter((r) => r.status === 201).length;
  const refused = answers.find((r) => r.status !== 201);
  if (refused) console.log(`autopilot: a booking refused: ${refused.status}`);
  const rounds = SCENARIO_STEPS.delivered.length + SPARE_ROUNDS;
  const t0 = performance.now();
  for (let round = 0; round < rounds && completed < booked; round++) {
    t.clock.advanceBy(1_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    log(`round ${round}: ${completed}`);
  }
  const seconds = (performance.now() - t0) / 1_000;
  sub.unsubscribe();
  const perSecond = completed / seconds;
  const steps = completed * SCENARIO_STEPS.delivered.length;
  console.log(
    `sandbox autopilot: ${completed} of ${booked} trips booked at once run the delivered ` +
      `scenario to completion (step_seconds 1, manual clock) in ${seconds.toFixed(2)} s: ` +
      `${perSecond.toFixed(0)} trips/s, ${(steps / seconds).toFixed(0)} steps/s`,
  );
  recordFigure("sandbox_autopilot_trips_per_second", Math.round(perSecond));
}

export async function sandboxAutopilotBench(): Promise<void> {
  const t = await openTestEnv({ name: "sandbox" });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

if (import.meta.main) await sandboxAutopilotBench();

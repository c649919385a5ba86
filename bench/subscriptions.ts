/**
 * Recurring deliveries (issue 40 "Measured, not asserted"), a figure only: 10,000 subscriptions
 * (100 businesses of 100 each, Tuesdays at 09:30) whose occurrences all fall due at one advance of
 * the manual clock; timed from the advance until every occurrence is booked (its timer fired, its
 * outbox item handled by the booking flow: priced, numbered, charged, created) and recorded on
 * its subscription. Occurrences booked per second.
 */
import { subscriptionActor } from "../actors/business/subscription.ts";
import { createSubscription } from "../src/business/flows/subscriptions.ts";
import { openTestEnv, type TestEnv } from "../tests/helpers/test_env.ts";
import { recordFigure } from "./summary.ts";

const SUBSCRIPTIONS = Number(Deno.env.get("BENCH_SUBSCRIPTIONS") ?? 10_000);
/** Subscriptions per business: each business's wallet takes its occurrences' charges in turn. */
const PER_BUSINESS = 100;
/** Created at once, at most: the setup is not what is measured. */
const CREATE_CONCURRENCY = 200;

const delivery = {
  type: "parcel" as const,
  passenger_name: "Neo Kgosi",
  pickup: { address: "Main Mall, Gaborone", lat: -24.6545, lng: 25.9086 },
  dest: { address: "Plot 9, Block 8", lat: -24.6019, lng: 25.935 },
};

async function setUp(t: TestEnv): Promise<{ business: string; id: string }[]> {
  const owners: string[] = [];
  for (let i = 0; i < Math.ceil(SUBSCRIPTIONS / PER_BUSINESS); i++) {
    const b = await t.createBusiness();
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000000.00", currency: "BWP", reference: `bench-subscriptions-${i}` },
    });
    owners.push(b.id);
  }
  const made: { business: string; id: string }[] = [];
  for (let from = 0; from < SUBSCRIPTIONS; from += CREATE_CONCURRENCY) {
    const batch = Array.from(
      { length: Math.min(CREATE_CONCURRENCY, SUBSCRIPTIONS - from) },
      (_, j) => owners[(from + j) % owners.length]!,
    );
    made.push(
      ...await Promise.all(batch.map(async (business) => {
        const r = await createSubscription(t.env, business, {
          segment: "parcel",
          delivery,
          days_of_week: [2],
          pickup_time: "09:30",
          body: {},
          idempotencyKey: null,
        });
        return { business, id: r.subscription.id };
      })),
    );
  }
  return made;
}

async function booked(t: TestEnv, subs: readonly { business: string; id: string }[]) {
  let n = 0;
  for (const s of subs) {
    const r = await t.env.runtime.read(subscriptionActor, s.business, s.id, { kind: "get" });
    if (r.ok && r.reply.subscription.occurrences[0]?.status === "booked") n++;
  }
  return n;
}

async function run(t: TestEnv): Promise<void> {
  const subs = await setUp(t);
  // The clock starts on Monday 08:00 UTC; Tuesday's 09:30 (UTC+2) is booked an hour ahead.
  const t0 = performance.now();
  t.clock.advanceBy((22 * 60 + 30) * 60_000);
  await t.env.runtime.fireDueTimers();
  await t.env.runtime.outboxesIdle();
  const seconds = (performance.now() - t0) / 1_000;
  const n = await booked(t, subs);
  const perSecond = n / seconds;
  console.log(
    `subscriptions: ${n} of ${subs.length} occurrences falling due at one clock advance booked ` +
      `in ${seconds.toFixed(2)} s: ${perSecond.toFixed(0)} occurrences/s`,
  );
  recordFigure("subscription_occurrences_booked_per_second", Math.round(perSecond));
}

export async function subscriptionsBench(): Promise<void> {
  const t = await openTestEnv();
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

if (import.meta.main) await subscriptionsBench();

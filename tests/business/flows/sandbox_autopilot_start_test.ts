/**
 * The autopilot's start outbox (Business API 4.4): a trip runs the scenario in force at its
 * booking. Handed over late (after a crash, or behind a busy outbox), the start must not read the
 * setting as it is then: a trip booked while the autopilot was off stays left alone. Nor does a
 * readiness landing while the start is under way leave the first step waiting for the prep time.
 */
import assert from "node:assert/strict";
import { sandboxAutopilotActor } from "../../../actors/business/sandbox_autopilot.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import {
  setAutopilot,
  startAutopilot,
  startAutopilotFrom,
} from "../../../src/business/flows/sandbox_autopilot.ts";
import {
  AUTOPILOT_START_OUTBOX,
  type AutopilotStartItem,
} from "../../../src/business/rules/sandbox_steps.ts";
import { holdAsk } from "../../helpers/faults.ts";
import { advance } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "../../routes/business/trips_fixtures.ts";

/** The start item the trip's creation handed to the outbox, as stored with its commit. */
async function startItemOf(t: TestEnv, business: string, reference: string) {
  const state = await t.env.runtime.read(tripActor, business, reference, { kind: "get" });
  assert.ok(state.ok && state.reply.phase === "booked");
  const booked = { phase: "booked" as const, trip: state.reply.trip, fingerprint: "" };
  for await (const e of t.env.runtime.events(tripActor, reference)) {
    if ((e.event as { kind: string }).kind !== "trip_created") continue;
    // deno-lint-ignore no-explicit-any
    const adds = tripActor.outbox!(e.event as any, booked);
    const starts = adds.filter((a) => a.outbox === AUTOPILOT_START_OUTBOX);
    assert.equal(starts.length, 1);
    return starts[0]!.payload as AutopilotStartItem;
  }
  throw new Error(`no trip_created for ${reference}`);
}

Deno.test("sandbox autopilot start: handed over after the setting was turned on, a trip booked while off is left alone", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const booked = await book(t, b.api_key, PARCEL);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const reference = booked.body.data.reference as string;
    const item = await startItemOf(t, b.id, reference);
    await setAutopilot(t.env, b.id, { scenario: "delivered", step_seconds: 1 });
    // The outbox hands the start over again (a crash after the booking, or a late sweep).
    await startAutopilotFrom(t.env, item);
    const started = await t.env.runtime.read(sandboxAutopilotActor, b.id, reference, {
      kind: "get",
    });
    assert.equal(started.ok, false, "booked while off: no autopilot");

    // A trip booked while it is on runs it, whatever the setting is when its start is handed over.
    const on = (await book(t, b.api_key, PARCEL)).body.data.reference as string;
    const onItem = await startItemOf(t, b.id, on);
    await setAutopilot(t.env, b.id, { scenario: "off", step_seconds: 5 });
    await startAutopilotFrom(t.env, onItem);
    const running = await t.env.runtime.read(sandboxAutopilotActor, b.id, on, { kind: "get" });
    assert.ok(running.ok);
    assert.deepEqual([running.reply.scenario, running.reply.step_seconds], ["delivered", 1]);
  }, { name: "sandbox" }));

// spec: business 3.1, 4.4: a prep order marked ready while its autopilot was being started (after
// the start read the trip's offer time, before it was stored) is still assigned a step after.
Deno.test("sandbox autopilot start: a trip marked ready while its start is under way is assigned a step after", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const booked = await book(t, b.api_key, { ...PARCEL, prep_minutes: 30 });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const reference = booked.body.data.reference as string;
    await t.env.runtime.outboxesIdle();
    const held = holdAsk(
      t.env.runtime,
      (type, c) => type === "sandbox_autopilot" && (c as { kind: string }).kind === "start",
    );
    const starting = startAutopilot(t.env, b.id, reference, {
      scenario: "delivered",
      step_seconds: 1,
      source: "booking",
    });
    await held.reached;
    const ready = await t.call("POST", `/business/trip/${reference}/ready`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    await t.env.runtime.outboxesIdle();
    held.open();
    await starting;
    await advance(t, 1);
    await t.env.runtime.outboxesIdle();
    const trip = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(trip.body.data.status, "accepted");
  }, { name: "sandbox" }));

/**
 * The autopilot's step handler (Business API 4.4 "a step the rules refuse is retried a few
 * times, then the trip is left for manual moves"): only the trip's rules refuse a step; an actor
 * too busy to answer now is no refusal, and the outbox hands the step over again.
 */
import assert from "node:assert/strict";
import {
  type AutopilotItem,
  sandboxAutopilotActor,
} from "../../../actors/business/sandbox_autopilot.ts";
import { runAutopilotStep } from "../../../src/business/flows/sandbox_autopilot.ts";
import { AUTOPILOT_TRIES_MAX } from "../../../src/business/rules/sandbox_steps.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "../../routes/business/trips_fixtures.ts";

Deno.test("sandbox autopilot step: a busy actor is handed over again, never counted as the rules' refusal", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const booked = await book(t, b.api_key, { ...PARCEL, sandbox_scenario: "delivered" });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const reference = booked.body.data.reference as string;
    const item: AutopilotItem = {
      business_id: b.id,
      reference,
      index: 0,
      step: "assign_driver",
      source: "booking",
    };
    const busy = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", "business_trip"),
      times: AUTOPILOT_TRIES_MAX,
      refuse: true,
    });
    for (let i = 0; i < AUTOPILOT_TRIES_MAX; i++) {
      await assert.rejects(() => runAutopilotStep({ ...t.env, runtime: busy.runtime }, item));
    }
    assert.equal(busy.failed(), AUTOPILOT_TRIES_MAX);
    const kept = await t.env.runtime.read(sandboxAutopilotActor, b.id, reference, { kind: "get" });
    assert.ok(kept.ok);
    assert.deepEqual([kept.reply.status, kept.reply.tries, kept.reply.next], ["moving", 0, 0]);
    // Handed over once the actor answers, the step is taken.
    await runAutopilotStep(t.env, item);
    const after = await t.env.runtime.read(sandboxAutopilotActor, b.id, reference, { kind: "get" });
    assert.ok(after.ok);
    assert.deepEqual([after.reply.status, after.reply.next], ["moving", 1]);
  }, { name: "sandbox" }));

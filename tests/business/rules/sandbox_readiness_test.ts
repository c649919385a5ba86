/**
 * Business API appendix 3: what a delivered webhook is evidence of, and the readiness report over
 * the evidence (pure rules, no store).
 */
import assert from "node:assert/strict";
import {
  READINESS_FLOWS,
  readinessReport,
  readinessStepOf,
} from "../../../src/business/rules/sandbox_readiness.ts";

const body = (event: string, data: Record<string, unknown>, test = false) =>
  JSON.stringify({ id: "e1", event, event_id: "e1", test, data: { reference: "BK-1", ...data } });

Deno.test("sandbox readiness: each trip webhook is the step it shows; others are none", () => {
  const cases: [string, Record<string, unknown>, string | null][] = [
    ["trip.completed", { delivery_outcome: "delivered" }, "delivered"],
    ["trip.completed", { delivery_outcome: "returned", returned: true }, "returned"],
    ["trip.delivery_failed", { reason: "nobody home" }, "delivery_failed"],
    ["trip.age_verification_failed", { age_verification_outcome: "refused" }, "id_refused"],
    ["trip.cancelled", { cancelled_by: "driver" }, "driver_cancelled"],
    ["trip.cancelled", { cancelled_by: "business" }, "own_cancelled"],
    ["trip.cancelled", { cancelled_by: "api_key" }, "own_cancelled"],
    ["trip.cancelled", { cancelled_by: "staff:st_1" }, "own_cancelled"],
    ["trip.cancelled", { cancelled_by: "system" }, null],
    ["trip.created", {}, null],
    ["trip.picked_up", {}, null],
  ];
  for (const [event, data, step] of cases) {
    const got = readinessStepOf(body(event, data));
    assert.deepEqual(got, step === null ? null : { step, trip_reference: "BK-1" }, event);
  }
  assert.equal(readinessStepOf(body("trip.completed", {}, true)), null, "a test sample");
  assert.equal(readinessStepOf("not json"), null);
  assert.equal(readinessStepOf(JSON.stringify({ event: "trip.completed", data: {} })), null);
});

Deno.test("sandbox readiness: ready once every required flow is done; the ID refusal is required only of age-restricted sellers", () => {
  const ev = { event_id: "e", trip_reference: "BK-1", delivered_at: 1 };
  const none = readinessReport({}, false);
  assert.equal(none.ready, false);
  assert.deepEqual(none.flows.map((f) => f.flow), [...READINESS_FLOWS]);
  assert.ok(none.flows.every((f) => !f.done && f.evidence === null && f.missing));
  const allButId = {
    delivery: ev,
    failed_delivery_and_return: ev,
    driver_cancellation: ev,
    own_cancellation: ev,
  };
  assert.equal(readinessReport(allButId, false).ready, true);
  const selling = readinessReport(allButId, true);
  assert.equal(selling.ready, false);
  const id = selling.flows.find((f) => f.flow === "id_refusal")!;
  assert.deepEqual([id.required, id.done], [true, false]);
  assert.equal(readinessReport({ ...allButId, id_refusal: ev }, true).ready, true);
  const partial = readinessReport({ delivery: ev }, false).flows[0]!;
  assert.deepEqual(partial, {
    flow: "delivery",
    required: true,
    done: true,
    evidence: ev,
    missing: null,
  });
});

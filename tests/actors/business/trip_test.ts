// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import { TRIP_STATUS_FLAGS, TRIP_STATUSES } from "../../../src/business/rules/trip_status.ts";
import { BUSINESS_WEBHOOK_OUTBOX } from "../../../src/business/rules/webhook_events.ts";
import { TRIP_REFUND_OUTBOX } from "../../../src/business/rules/booking.ts";
import { AUTOPILOT_START_OUTBOX } from "../../../src/business/rules/sandbox_steps.ts";
import { kinds } from "../../helpers/actor.ts";
import { booked, CHARGE, claimOf, DRIVER, fresh, webhooks } from "./trip_fixtures.ts";
import { FORCED, PROOF } from "./trip_fixtures.ts";

Deno.test("trip: every status of 3.1 with its cancellable and final flags", () => {
  assert.deepEqual(TRIP_STATUSES.filter((s) => TRIP_STATUS_FLAGS[s].cancellable), [
    "pending",
    "scheduled",
    "queued",
    "accepted",
    "enroute",
    "arrived",
  ]);
  assert.deepEqual(TRIP_STATUSES.filter((s) => TRIP_STATUS_FLAGS[s].final), [
    "completed",
    "cancelled",
  ]);
});

Deno.test("trip: the claim owns the reference; same details replay, others conflict, in progress waits", () => {
  const h = fresh();
  const first = h.must({ kind: "claim", claim: claimOf() });
  assert.equal(first.reply.new_claim, true);
  assert.equal(first.reply.claimed_at, 1_000);
  assert.equal(first.timers[0]?.op, "set");
  h.refused({ kind: "claim", claim: claimOf() }, "booking_in_progress");
  h.refused(
    { kind: "claim", claim: { ...claimOf(), fingerprint: "fp2" } },
    "external_reference_conflict",
  );
  h.refused(
    { kind: "claim", claim: { ...claimOf(), key_kind: "idempotency_key" } },
    "request_in_progress",
  );
  const made = h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
  assert.deepEqual(kinds(made.events), ["trip_created"]);
  assert.deepEqual(webhooks(h, made.events), ["trip.created"]);
  const again = h.must({ kind: "claim", claim: claimOf() });
  assert.equal(again.reply.replayed, true);
  assert.equal(again.reply.trip.id, 7);
  const other = h.refused(
    { kind: "claim", claim: { ...claimOf(), key_kind: "idempotency_key", fingerprint: "x" } },
    "reference_conflict",
  );
  assert.equal(other.details?.reference, "BK-0000000001");
});

Deno.test("trip: a replay answers a retry as a claim would, and claims nothing", () => {
  const h = fresh();
  const replay = { kind: "replay", fingerprint: "fp1", key_kind: "external_reference" };
  const free = h.must(replay);
  assert.equal(free.reply.phase, "free");
  assert.deepEqual([free.events, free.timers], [[], []]);
  h.must({ kind: "claim", claim: claimOf() });
  h.refused(replay, "booking_in_progress");
  h.refused({ ...replay, key_kind: "idempotency_key" }, "request_in_progress");
  h.refused({ ...replay, fingerprint: "fp2" }, "external_reference_conflict");
  h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
  const again = h.must(replay);
  assert.deepEqual(again.events, []);
  assert.equal(again.reply.replayed, true);
  assert.equal(again.reply.trip.id, 7);
  h.refused({ ...replay, key_kind: "idempotency_key", fingerprint: "x" }, "reference_conflict");
});

Deno.test("trip: a released claim leaves the reference free for the next booking", () => {
  const h = fresh();
  h.must({ kind: "claim", claim: claimOf() });
  assert.deepEqual(kinds(h.must({ kind: "release", fingerprint: "fp1" }).events), [
    "booking_released",
  ]);
  h.refused({ kind: "get" }, "not_found");
  const next = h.must({ kind: "claim", claim: { ...claimOf(), fingerprint: "fp9" } });
  assert.equal(next.reply.new_claim, true);
});

Deno.test("trip: claim_state names the fingerprint holding the reference, booking or booked", () => {
  const h = fresh();
  assert.equal(h.must({ kind: "claim_state" }).reply.phase, "free");
  h.must({ kind: "claim", claim: claimOf() });
  assert.equal(h.must({ kind: "claim_state" }).reply.claim.fingerprint, "fp1");
  h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
  const held = h.must({ kind: "claim_state" }).reply;
  assert.deepEqual([held.phase, held.fingerprint], ["booked", "fp1"]);
  // Only this read answers it: the trip's other replies stay as they were.
  assert.equal("fingerprint" in h.must({ kind: "get" }).reply, false);
});

Deno.test("trip: a stalled claim's timer hands it to the completing outbox", () => {
  const h = fresh();
  h.must({ kind: "claim", claim: claimOf() });
  const fired = h.fire("booking_stalled");
  assert.deepEqual(kinds(fired.events), ["booking_stalled"]);
  const adds = tripActor.outbox!(fired.events[0]!, h.state);
  assert.deepEqual(adds, [{
    outbox: "business_booking_stalled",
    payload: { business_id: "biz_1", reference: "BK-0000000001" },
  }]);
});

Deno.test("trip: one driver holds it; the holder's retry answers the trip, another driver is refused", () => {
  const h = booked();
  const first = h.must({ kind: "accept", driver: DRIVER });
  assert.deepEqual(kinds(first.events), ["trip_accepted"]);
  assert.deepEqual(h.state.trip.driver, DRIVER);
  assert.deepEqual(h.must({ kind: "accept", driver: DRIVER }).events, []);
  h.refused(
    { kind: "accept", driver: { ...DRIVER, id: "pdr_2" } },
    "already_accepted",
    "another driver accepted the trip: BK-0000000001",
  );
  assert.equal(h.state.trip.driver?.id, "pdr_1");
});

Deno.test("trip: a delivery goes accepted, arrived, active, completed with its webhooks", () => {
  const h = booked({ age_verification_required: true, cod_amount_minor: 10_000 });
  assert.deepEqual(webhooks(h, h.must({ kind: "accept", driver: DRIVER }).events), [
    "trip.accepted",
  ]);
  assert.deepEqual(webhooks(h, h.must({ kind: "arrive" }).events), []);
  assert.deepEqual(webhooks(h, h.must(FORCED).events), ["trip.picked_up"]);
  h.refused({ kind: "cancel", by: "api_key", reason: null }, "not_cancellable");
  const done = h.must({ ...PROOF, id_checked: true, cod_collected_amount_minor: 10_000 });
  assert.deepEqual(webhooks(h, done.events), [
    "trip.age_verified",
    "cod.collected",
    "trip.completed",
  ]);
  const t: Trip = h.state.trip;
  assert.equal(t.status, "completed");
  assert.equal(t.delivery_outcome, "delivered");
  h.refused(PROOF, "invalid_transition");
});

Deno.test("trip: a failed delivery returns, and the return completes as returned", () => {
  const h = booked();
  h.must({ kind: "accept", driver: DRIVER });
  h.must({ kind: "arrive" });
  h.must(FORCED);
  assert.deepEqual(webhooks(h, h.must({ kind: "fail", reason: "nobody home" }).events), [
    "trip.delivery_failed",
  ]);
  h.refused(PROOF, "invalid_transition");
  const back = h.must({ kind: "complete_return" });
  assert.deepEqual(webhooks(h, back.events), ["trip.completed"]);
  assert.equal(h.state.trip.delivery_outcome, "returned");
});

Deno.test("trip: handover_required waits for ready; ready twice is harmless", () => {
  const h = booked({ handover_required: true, prep_minutes: 20 });
  h.must({ kind: "accept", driver: DRIVER });
  h.must({ kind: "arrive" });
  h.refused(FORCED, "awaiting_handover");
  assert.deepEqual(kinds(h.must({ kind: "ready" }).events), ["trip_ready"]);
  assert.deepEqual(kinds(h.must({ kind: "ready" }).events), []);
  h.must(FORCED);
  assert.equal(h.state.trip.status, "active");
});

Deno.test("trip: ready on a finished trip (cancelled or completed) is refused invalid_transition and records nothing", () => {
  const cancelled = booked({ handover_required: true, prep_minutes: 20 });
  cancelled.must({ kind: "cancel", by: "api_key", reason: null });
  const completed = booked();
  completed.must({ kind: "accept", driver: DRIVER });
  completed.must({ kind: "arrive" });
  completed.must(FORCED);
  completed.must(PROOF);
  // spec: business 3.1: completed and cancelled are final: the trip changes no more.
  for (const h of [cancelled, completed]) {
    const before = h.state;
    h.refused({ kind: "ready" }, "invalid_transition");
    assert.equal(h.state, before);
    assert.equal(h.state.trip.ready_at, null);
  }
});

Deno.test("trip: a pick-up that read the shopping basket finished is ready now, and the late ready changes nothing", () => {
  const h = booked({ handover_required: true, shop_deliver: true });
  h.must({ kind: "accept", driver: DRIVER });
  h.must({ kind: "arrive" });
  const picked = h.must({ ...FORCED, basket_finished: true });
  assert.deepEqual(kinds(picked.events), ["trip_ready", "trip_collected"]);
  assert.equal(h.state.trip.status, "active");
  assert.deepEqual(kinds(h.must({ kind: "ready" }).events), []);
});

Deno.test("trip: cancel before collection owes the refund once; again answers already_cancelled", () => {
  const h = booked();
  h.must({ kind: "accept", driver: DRIVER });
  const c = h.must({ kind: "cancel", by: "partner_key:pk_1", reason: "customer changed mind" });
  assert.deepEqual(webhooks(h, c.events), ["trip.cancelled"]);
  const adds = tripActor.outbox!(c.events[0]!, h.state);
  const cancelled = adds.find((a) => a.outbox === BUSINESS_WEBHOOK_OUTBOX)!.payload as any;
  // The business is told it cancelled, not which of its keys did (kept in the event log).
  assert.equal(cancelled.data.cancelled_by, "business");
  assert.equal((c.events[0] as { by?: string }).by, "partner_key:pk_1");
  // spec: business 3.1, 6: owed, not credited yet: the wallet's credit follows the commit.
  assert.equal(cancelled.data.refund_status, "pending");
  assert.equal(cancelled.external_reference, "ORD-1");
  assert.deepEqual(adds.filter((a) => a.outbox === TRIP_REFUND_OUTBOX).length, 1);
  const again = h.must({ kind: "cancel", by: "api_key", reason: null });
  assert.equal(again.reply.already_cancelled, true);
  assert.deepEqual(again.events, []);
  const refunded = h.must({ kind: "refunded", refund: CHARGE });
  // The credit landed: trip.cancelled reports it, once, under an id of its own.
  assert.deepEqual(webhooks(h, refunded.events), ["trip.cancelled"]);
  const report = tripActor.outbox!(refunded.events[0]!, h.state)[0]!.payload as any;
  assert.equal(report.data.refund_status, "refunded");
  assert.equal(report.data.cancelled_by, "business");
  assert.equal(report.data.reason, "customer changed mind");
  assert.notEqual(report.event_id, cancelled.event_id);
  assert.deepEqual(h.must({ kind: "refunded", refund: CHARGE }).events, []);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("trip: a trip stored before trips named their driver loads with none", () => {
  const h = booked();
  const { driver: _, scan_code: _s, delivery_proof: _p, ...old } = h.state.trip;
  const loaded = tripActor.load!({ phase: "booked", trip: old, fingerprint: "f" }, 1);
  assert.equal(loaded.phase === "booked" && loaded.trip.driver, null);
  assert.equal(loaded.phase === "booked" && loaded.trip.scan_code, null);
  assert.equal(loaded.phase === "booked" && loaded.trip.delivery_proof, null);
});

Deno.test("trip: a sandbox trip's creation hands its autopilot's start to the outbox, with its own scenario; a live trip's does not", () => {
  const startsOf = (over: Record<string, unknown>) => {
    const h = fresh();
    h.must({ kind: "claim", claim: claimOf(over) });
    const step = h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
    const created = step.events.find((e: any) => e.kind === "trip_created");
    return tripActor.outbox!(created, h.state)
      .filter((a) => a.outbox === AUTOPILOT_START_OUTBOX)
      .map((a) => a.payload);
  };
  assert.deepEqual(startsOf({}), [], "live: no test trip, no autopilot");
  assert.deepEqual(startsOf({ is_test: true }), [
    { business_id: "biz_1", reference: claimOf().draft.reference, scenario: null },
  ]);
  assert.deepEqual(
    startsOf({ is_test: true, sandbox_scenario: "failed_delivery" }).map((p: any) => p.scenario),
    ["failed_delivery"],
  );
});

/** The business webhook items the outbox takes from one step's events. */
function webhookItems(h: ReturnType<typeof fresh>, events: readonly any[]): any[] {
  return events.flatMap((e) => tripActor.outbox!(e, h.state))
    .filter((a) => a.outbox === BUSINESS_WEBHOOK_OUTBOX)
    .map((a) => a.payload);
}

Deno.test("trip: its webhooks carry the link's token while the link is on, null once revoked or expired", () => {
  const h = fresh();
  h.must({ kind: "claim", claim: claimOf() });
  const created = h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
  const tokens = (events: readonly any[]) => webhookItems(h, events).map((i) => i.tracking_token);
  assert.deepEqual(tokens(created.events), ["track"]);
  assert.deepEqual(tokens(h.must({ kind: "accept", driver: DRIVER }).events), ["track"]);
  h.must({ kind: "revoke_tracking" });
  assert.deepEqual(tokens(h.must({ kind: "cancel", by: "api_key", reason: null }).events), [null]);

  const r = booked();
  r.must({ kind: "revoke_tracking" });
  r.must({ kind: "rotate_tracking", token: "track2" });
  const accepted = r.must({ kind: "accept", driver: DRIVER });
  assert.deepEqual(webhookItems(r, accepted.events).map((i) => i.tracking_token), ["track2"]);
  r.must({ kind: "arrive" });
  r.must(FORCED);
  // spec: business 2.4 rule 6: a week after the delivery was due the link has expired.
  r.now += 8 * 86_400_000;
  const late = webhookItems(r, r.must(PROOF).events);
  assert.deepEqual(late.map((i) => [i.event, i.tracking_token]), [["trip.completed", null]]);
  assert.equal("tracking_url" in late[0].data, false, "the envelope adds it, under its address");
});

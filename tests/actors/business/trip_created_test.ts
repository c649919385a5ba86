/**
 * A trip's creation event (issue 36: events carry what changed, not the whole record): it carries
 * what the creation decided, the trip is made of the claim's draft with it, and a creation stored
 * with the whole trip still evolves as it did. The trip.created webhook keeps its bytes.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { type Trip, tripActor, type TripEvent } from "../../../actors/business/trip/mod.ts";
import { businessWebhookOf } from "../../../src/business/rules/webhook_envelope.ts";
import {
  BUSINESS_WEBHOOK_OUTBOX,
  type BusinessWebhookItem,
} from "../../../src/business/rules/webhook_events.ts";
import { AUTOPILOT_START_OUTBOX } from "../../../src/business/rules/sandbox_steps.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import { booked, CHARGE, claimOf, draft, DRIVER, fresh, webhooks } from "./trip_fixtures.ts";

Deno.test("trip created: the event carries what the creation decided, the trip is the draft with it", () => {
  const h = fresh();
  h.must({ kind: "claim", claim: claimOf({ scheduled_at: 90_000 }) });
  h.now = 2_000;
  const step = h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
  assert.deepEqual(step.events, [{
    kind: "trip_created",
    id: 7,
    // spec: business 3.1: booked for later is scheduled.
    status: "scheduled",
    created_at: 2_000,
    charge: CHARGE,
    scan_code: null,
  }]);
  const t: Trip = h.state.trip;
  const made = draft({ scheduled_at: 90_000 });
  const drafted = Object.fromEntries(Object.keys(made).map((k) => [k, (t as any)[k]]));
  assert.deepEqual(drafted, made, "the claim's draft, as claimed");
  const rest = Object.fromEntries(Object.entries(t).filter(([k]) => !(k in made)));
  // Everything else: what the creation decided, and the rest empty, as a booking always made it.
  assert.deepEqual(rest, {
    id: 7,
    status: "scheduled",
    created_at: 2_000,
    charge: CHARGE,
    ready_at: null,
    accepted_at: null,
    acceptances: 0,
    started_at: null,
    positions_since: null,
    driver: null,
    offer: null,
    dispatch: {
      first_offer_at: null,
      window_ends_at: null,
      window_ms: null,
      excluded: [],
      offer_after: null,
    },
    arrived_at: null,
    collected_at: null,
    completed_at: null,
    returning: false,
    return_reason: null,
    delivery_outcome: null,
    cancelled_at: null,
    cancelled_by: null,
    cancel_reason: null,
    refund: null,
    scan_code: null,
    scanned_at: null,
    collect_override: null,
    arrived_dropoff_at: null,
    return_due_at: null,
    delivery_proof: null,
    tracking_revoked_at: null,
    retired_tracking_hashes: [],
  });
  assert.equal(h.state.fingerprint, "fp1");
  const scanned = fresh();
  scanned.must({ kind: "claim", claim: claimOf() });
  const scan = scanned.must({
    kind: "create",
    fingerprint: "fp1",
    id: 8,
    charge: null,
    scan_code: "scn_1",
  });
  assert.deepEqual(scan.events.map((e: any) => [e.status, e.charge, e.scan_code]), [
    ["pending", null, "scn_1"],
  ]);
  assert.equal(scanned.state.trip.scan_code, "scn_1");
  assert.ok(!("trip" in scan.events[0]), "the draft is the claim's event's, not repeated");
});

Deno.test("trip created: a creation stored with the whole trip evolves as before, and sends the same", () => {
  const now = booked({ is_test: true });
  const whole: TripEvent = { kind: "trip_created", trip: now.state.trip };
  const claimed = tripActor.evolve(tripActor.initial, now.log[0] as TripEvent);
  const old = tripActor.evolve(claimed, whole);
  assert.deepEqual(old, now.state);
  // Read back without its claim (a trail from a later seq): the trip, no fingerprint.
  assert.deepEqual(tripActor.evolve(tripActor.initial, whole), {
    phase: "booked",
    trip: now.state.trip,
    fingerprint: "",
  });
  const sent = (e: TripEvent) => tripActor.outbox!(e, old).map((a) => a.outbox);
  assert.deepEqual(sent(whole), sent(now.log[1] as TripEvent));
  assert.deepEqual(sent(whole), [BUSINESS_WEBHOOK_OUTBOX, AUTOPILOT_START_OUTBOX]);
  // What follows it evolves on it as on a trip made from the new shape.
  const after = new ActorHarness(tripActor, { now: 1_000, state: old });
  assert.deepEqual(kinds(after.must({ kind: "accept", driver: DRIVER }).events), [
    "trip_accepted",
  ]);
  assert.equal(after.state.phase === "booked" && after.state.trip.status, "accepted");
  // A new-shape creation without its claim has no draft: the state stays as it was.
  const bare: TripEvent = { ...(now.log[1] as TripEvent) };
  assert.equal(tripActor.evolve(tripActor.initial, bare), tripActor.initial);
});

Deno.test("trip created: the trip.created webhook keeps its bytes, with an offer in the same commit", () => {
  const h = new ActorHarness(tripActor, { now: Date.UTC(2026, 10, 29, 9, 30) });
  h.must({ kind: "claim", claim: claimOf({ is_test: true, sandbox_scenario: "failed_delivery" }) });
  h.now += 1_234;
  const step = h.must({
    kind: "create",
    fingerprint: "fp1",
    id: 7,
    charge: CHARGE,
    scan_code: "scan_x",
    offer: {
      offer: { offer_id: "ofr_1", driver_id: "pdr_1", expires_at: h.now + 30_000 },
      window_ends_at: h.now + 600_000,
    },
  });
  assert.deepEqual(kinds(step.events), ["trip_created", "trip_offered"]);
  assert.deepEqual(webhooks(h, step.events), ["trip.created"]);
  // The outbox sees the state after each event, as the runtime's commit does.
  let s = tripActor.evolve(tripActor.initial, h.log[0]!);
  s = tripActor.evolve(s, step.events[0]!);
  const item = tripActor.outbox!(step.events[0]!, s)
    .find((a) => a.outbox === BUSINESS_WEBHOOK_OUTBOX)!.payload as BusinessWebhookItem;
  const sent = businessWebhookOf("biz_1", item, { publicUrl: "https://track.example.com" });
  // The body as the creation event carrying the whole trip made it, byte for byte.
  assert.equal(
    sent.raw_body,
    '{"id":"evt_18ca822c39dd4264d6bcb976e5","event":"trip.created",' +
      '"event_id":"evt_18ca822c39dd4264d6bcb976e5","timestamp":"2026-11-29T09:30:01.234Z",' +
      '"external_reference":"ORD-1","test":false,"data":{"id":7,"reference":"BK-0000000001",' +
      '"tracking_url":"https://track.example.com/api/trip-track/track","status":"pending",' +
      '"type":"parcel","external_reference":"ORD-1","billing_amount":45,' +
      '"billing_currency":"BWP","eta_minutes":20,"is_test":true,"test":true,"returning":false,' +
      '"delivery_outcome":null}}',
  );
});

Deno.test("trip created: a booking in progress stays off the bus; the trip's own events go on it", () => {
  const h = fresh();
  const claimed = h.must({ kind: "claim", claim: claimOf({}) }).events;
  const created = h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE }).events;
  const onBus = (e: TripEvent) => tripActor.onBus!(e);
  assert.deepEqual(claimed.map((e: TripEvent) => [e.kind, onBus(e)]), [["booking_claimed", false]]);
  assert.deepEqual(created.map((e: TripEvent) => [e.kind, onBus(e)]), [["trip_created", true]]);
  // And nothing is projected before the trip exists: a claim's change is not sent at all.
  assert.equal(tripActor.project!({ phase: "free" }), undefined);
  assert.ok(tripActor.project!(h.state) !== undefined);
});

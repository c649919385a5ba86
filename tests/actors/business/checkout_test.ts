import assert from "node:assert/strict";
import fc from "fast-check";
import { checkoutActor, type CheckoutDraft } from "../../../actors/business/checkout.ts";
import { parseCatalogue } from "../../../src/business/rules/catalogue.ts";
import {
  CHECKOUT_BOOKING_STALL_MS,
  CHECKOUT_EXPIRY_TIMER,
  CHECKOUT_STALL_TIMER,
} from "../../../src/business/rules/checkout.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import { priceTrip } from "../../../src/business/rules/fare.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const parsed = parseCatalogue(DEFAULT_CATALOGUE);
assert.ok(parsed.ok);
const route = {
  pickup: { address: "Main Mall", lat: -24.6545, lng: 25.9086 },
  stops: [],
  dest: { address: "Block 8", lat: -24.6019, lng: 25.935 },
};
const priced = priceTrip(parsed.catalogue, route, { parcel_weight_kg: 3 }, "upgrade");
assert.ok(priced.ok);

const DRAFT: CheckoutDraft = {
  reference: "CO-TEST00000001",
  business_id: "biz_1",
  cart_reference: "cart-1",
  cart: null,
  ...route,
  goods: {
    segment: null,
    vehicle_type_id: null,
    parcel_size: null,
    parcel_weight_kg: 3,
    cargo_body_type: null,
    cargo_capacity_class: null,
  },
  price: priced.price,
  expires_at: 600_000,
  fingerprint: "f1",
};

/** Where the booking's trip is (the checkout's sweep looks there). */
const TRIP = { reference: "BK-TRIP", fingerprint: "body-1" };

function opened() {
  const h = new ActorHarness(checkoutActor, { now: 0 });
  const step = h.must({ kind: "open", draft: DRAFT });
  assert.deepEqual(step.timers, [{ op: "set", name: CHECKOUT_EXPIRY_TIMER, at: 600_000 }]);
  return h;
}

Deno.test("checkout actor: the price held is the price answered at booking, and it books once", () => {
  const h = opened();
  const held = h.must({ kind: "hold_for_booking", attempt: "a1", trip: TRIP });
  assert.equal(held.reply?.checkout.price.fare.amount_minor, priced.price.fare.amount_minor);
  assert.equal(held.state?.status, "booking");
  // The expiry under a booking releases nothing: the booking settles it.
  h.now = 700_000;
  assert.deepEqual(h.fire(CHECKOUT_EXPIRY_TIMER).events, []);
  assert.equal(
    h.must({ kind: "hold_for_booking", attempt: "a1", trip: TRIP }).reply?.replayed,
    true,
  );
  h.refused({ kind: "hold_for_booking", attempt: "a2", trip: TRIP }, "checkout_booked");
  h.must({ kind: "booked", attempt: "a1", trip_reference: "BK-1" });
  assert.equal(h.state?.status, "booked");
  assert.equal(h.state?.trip_reference, "BK-1");
  h.refused({ kind: "cancel", reason: null }, "checkout_booked", /cancel its trip/);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("checkout actor: expiry and cancel release; a refused booking gives the hold back", () => {
  const h = opened();
  h.must({ kind: "hold_for_booking", attempt: "a1", trip: TRIP });
  h.must({ kind: "booking_refused", attempt: "a1" });
  assert.equal(h.state?.status, "open");
  h.now = 600_000;
  h.refused({ kind: "hold_for_booking", attempt: "a3", trip: TRIP }, "checkout_expired");
  assert.deepEqual(kinds(h.fire(CHECKOUT_EXPIRY_TIMER).events), ["checkout_expired"]);
  assert.equal(h.state?.released_at, 600_000);
  assert.equal(h.must({ kind: "cancel", reason: null }).reply?.replayed, true);

  const c = opened();
  const cancelled = c.must({ kind: "cancel", reason: "cart emptied" });
  assert.deepEqual(cancelled.timers, [{ op: "cancel", name: CHECKOUT_EXPIRY_TIMER }]);
  c.refused({ kind: "hold_for_booking", attempt: "a1", trip: TRIP }, "checkout_cancelled");
});

Deno.test("checkout actor: a cancel that comes once the hold lapsed, before the expiry timer fired, finds it expired at expires_at, as a booking does; nothing is cancelled", () => {
  const h = opened();
  h.now = 600_000;
  h.refused({ kind: "hold_for_booking", attempt: "a1", trip: TRIP }, "checkout_expired");
  const late = h.must({ kind: "cancel", reason: "cart emptied" });
  assert.deepEqual(kinds(late.events), ["checkout_expired"]);
  assert.deepEqual(late.timers, [{ op: "cancel", name: CHECKOUT_EXPIRY_TIMER }]);
  assert.equal(late.reply?.replayed, true);
  assert.equal(h.state?.status, "expired");
  assert.equal(h.state?.released_at, 600_000);
  assert.equal(h.state?.cancel_reason, null);
  // One a millisecond before the lapse is cancelled.
  const c = opened();
  c.now = 599_999;
  assert.equal(c.must({ kind: "cancel", reason: null }).state?.status, "cancelled");
});

Deno.test("checkout actor: the same opening again is answered, other details are a conflict", () => {
  const h = opened();
  assert.equal(h.must({ kind: "open", draft: DRAFT }).reply?.replayed, true);
  h.refused({ kind: "open", draft: { ...DRAFT, fingerprint: "f2" } }, "reference_conflict");
  new ActorHarness(checkoutActor).refused({ kind: "get" }, "not_found");
});

Deno.test("checkout actor: whatever the order of bookings, refusals, cancels and expiry, at most one trip is recorded and a released checkout stays released", () => {
  const command = fc.oneof(
    fc.record({
      kind: fc.constant("hold_for_booking" as const),
      attempt: fc.constantFrom("a", "b"),
      trip: fc.constant(TRIP),
    }),
    fc.record({
      kind: fc.constant("booked" as const),
      attempt: fc.constantFrom("a", "b"),
      trip_reference: fc.constantFrom("BK-A", "BK-B"),
    }),
    fc.record({
      kind: fc.constant("booking_refused" as const),
      attempt: fc.constantFrom("a", "b"),
    }),
    fc.record({ kind: fc.constant("cancel" as const), reason: fc.constant(null) }),
    fc.constant({ kind: "timer" as const, name: CHECKOUT_EXPIRY_TIMER, payload: null }),
  );
  fc.assert(fc.property(fc.array(fc.tuple(command, fc.nat(200_000)), { maxLength: 20 }), (run) => {
    const h = opened();
    let released = false;
    for (const [c, dt] of run) {
      h.now += dt;
      h.send(c);
      const s = h.state!;
      if (released) assert.ok(s.status === "cancelled" || s.status === "expired");
      released = s.status === "cancelled" || s.status === "expired";
      assert.equal(s.price, DRAFT.price, "the price never changes");
    }
    const booked = h.log.filter((e) => e.kind === "checkout_booked");
    assert.ok(booked.length <= 1);
  }));
});

Deno.test("checkout actor: a stalled booking is handed to the sweep; a claim it let through is never given back, and one given back never charges", () => {
  const h = opened();
  const held = h.must({ kind: "hold_for_booking", attempt: "a1", trip: TRIP });
  assert.deepEqual(held.timers, [
    { op: "set", name: CHECKOUT_STALL_TIMER, at: CHECKOUT_BOOKING_STALL_MS },
  ]);
  h.now = CHECKOUT_BOOKING_STALL_MS;
  const stalled = h.fire(CHECKOUT_STALL_TIMER);
  assert.deepEqual(kinds(stalled.events), ["checkout_booking_stalled"]);
  assert.deepEqual(stalled.timers, [
    { op: "set", name: CHECKOUT_STALL_TIMER, at: 2 * CHECKOUT_BOOKING_STALL_MS },
  ]);
  // The trip's claim 7 was let through after the sweep looked (and saw none): it stands.
  h.must({ kind: "confirm_claim", attempt: "a1", claimed_at: 7 });
  assert.equal(
    h.must({ kind: "release_stalled", attempt: "a1", claimed_at: null }).reply?.replayed,
    true,
  );
  assert.equal(h.state?.status, "booking");
  // Its trip was released (a refused charge) and the sweep saw it: the hold is given back.
  const given = h.must({ kind: "release_stalled", attempt: "a1", claimed_at: 7 });
  assert.deepEqual(given.timers, [{ op: "cancel", name: CHECKOUT_STALL_TIMER }]);
  assert.equal(h.state?.status, "open");
  // A late claim of that booking is refused: it charges nothing.
  h.refused({ kind: "confirm_claim", attempt: "a1", claimed_at: 9 }, "checkout_released");
  h.now = 599_000;
  h.must({ kind: "hold_for_booking", attempt: "a2", trip: TRIP });
  h.now = 600_000;
  h.must({ kind: "release_stalled", attempt: "a2", claimed_at: null });
  assert.equal(h.state?.status, "expired");
  h.refused({ kind: "confirm_claim", attempt: "a2", claimed_at: 9 }, "checkout_expired");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("checkout actor: whatever the order of holds, claims let through, sweeps and outcomes, a claim is let through only while its booking holds the checkout, and the sweep never gives back a claim let through since it looked", () => {
  const attempt = fc.constantFrom("a", "b");
  const claimedAt = fc.constantFrom(1, 2);
  const command = fc.oneof(
    fc.record({ kind: fc.constant("hold_for_booking" as const), attempt, trip: fc.constant(TRIP) }),
    fc.record({ kind: fc.constant("confirm_claim" as const), attempt, claimed_at: claimedAt }),
    fc.record({
      kind: fc.constant("release_stalled" as const),
      attempt,
      claimed_at: fc.option(claimedAt, { nil: null }),
    }),
    fc.record({
      kind: fc.constant("booked" as const),
      attempt,
      trip_reference: fc.constant("BK-TRIP"),
    }),
    fc.record({ kind: fc.constant("booking_refused" as const), attempt }),
    fc.constant({ kind: "timer" as const, name: CHECKOUT_STALL_TIMER, payload: null }),
    fc.constant({ kind: "timer" as const, name: CHECKOUT_EXPIRY_TIMER, payload: null }),
  );
  fc.assert(fc.property(fc.array(fc.tuple(command, fc.nat(200_000)), { maxLength: 25 }), (run) => {
    const h = opened();
    for (const [c, dt] of run) {
      h.now += dt;
      const before = h.state!;
      const r = h.send(c);
      const s = h.state!;
      if (c.kind === "confirm_claim" && "events" in r) {
        assert.equal(s.booking_attempt, c.attempt, "let through only for the holding booking");
        assert.ok(s.status === "booking" || s.status === "booked");
      }
      if (c.kind === "release_stalled" && before.status === "booking" && s.status !== "booking") {
        assert.equal(before.booking_trip?.claimed_at ?? null, c.claimed_at);
      }
    }
    assert.ok(h.log.filter((e) => e.kind === "checkout_booked").length <= 1);
    assert.deepEqual(h.replayed(), h.state);
  }));
});

import assert from "node:assert/strict";
import fc from "fast-check";
import { checkoutActor, type CheckoutDraft } from "../../../actors/business/checkout.ts";
import { parseCatalogue } from "../../../src/business/rules/catalogue.ts";
import { CHECKOUT_EXPIRY_TIMER } from "../../../src/business/rules/checkout.ts";
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

function opened() {
  const h = new ActorHarness(checkoutActor, { now: 0 });
  const step = h.must({ kind: "open", draft: DRAFT });
  assert.deepEqual(step.timers, [{ op: "set", name: CHECKOUT_EXPIRY_TIMER, at: 600_000 }]);
  return h;
}

Deno.test("checkout actor: the price held is the price answered at booking, and it books once", () => {
  const h = opened();
  const held = h.must({ kind: "hold_for_booking", attempt: "a1" });
  assert.equal(held.reply?.checkout.price.fare.amount_minor, priced.price.fare.amount_minor);
  assert.equal(held.state?.status, "booking");
  // The expiry under a booking releases nothing: the booking settles it.
  h.now = 700_000;
  assert.deepEqual(h.fire(CHECKOUT_EXPIRY_TIMER).events, []);
  assert.equal(h.must({ kind: "hold_for_booking", attempt: "a1" }).reply?.replayed, true);
  h.refused({ kind: "hold_for_booking", attempt: "a2" }, "checkout_booked");
  h.must({ kind: "booked", attempt: "a1", trip_reference: "BK-1" });
  assert.equal(h.state?.status, "booked");
  assert.equal(h.state?.trip_reference, "BK-1");
  h.refused({ kind: "cancel", reason: null }, "checkout_booked", /cancel its trip/);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("checkout actor: expiry and cancel release; a refused booking gives the hold back", () => {
  const h = opened();
  h.must({ kind: "hold_for_booking", attempt: "a1" });
  h.must({ kind: "booking_refused", attempt: "a1" });
  assert.equal(h.state?.status, "open");
  h.now = 600_000;
  h.refused({ kind: "hold_for_booking", attempt: "a3" }, "checkout_expired");
  assert.deepEqual(kinds(h.fire(CHECKOUT_EXPIRY_TIMER).events), ["checkout_expired"]);
  assert.equal(h.state?.released_at, 600_000);
  assert.equal(h.must({ kind: "cancel", reason: null }).reply?.replayed, true);

  const c = opened();
  const cancelled = c.must({ kind: "cancel", reason: "cart emptied" });
  assert.deepEqual(cancelled.timers, [{ op: "cancel", name: CHECKOUT_EXPIRY_TIMER }]);
  c.refused({ kind: "hold_for_booking", attempt: "a1" }, "checkout_cancelled");
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

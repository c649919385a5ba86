/**
 * One client's external reference (actors/courier/reference_claim.ts; courier 4.2: with
 * `unique_external_reference` set, a second booking with the same reference answers 409
 * duplicate_order; Business API appendix 1: a refused booking leaves the reference free).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { claimId, referenceClaimActor } from "../../../actors/courier/reference_claim.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");

function claimed() {
  const h = new ActorHarness(referenceClaimActor, { now: T0 });
  h.must({ kind: "claim", waybill: "WB1", reference: "prc_1" });
  return h;
}

Deno.test("reference claim: the first booking claims the reference, with its offer and time", () => {
  const h = new ActorHarness(referenceClaimActor, { now: T0 });
  const step = h.must({ kind: "claim", waybill: "WB1", reference: "prc_1" });
  assert.deepEqual(step.events, [{ kind: "claimed", waybill: "WB1", reference: "prc_1", at: T0 }]);
  assert.deepEqual(step.reply, { waybill: "WB1", reference: "prc_1", claimed_at: T0 });
  assert.deepEqual(h.replayed(), h.state);
  assert.equal(claimId("cli_1", "ORDER-7"), "cli_1:ORDER-7");
});

Deno.test("reference claim: the same booking again keeps its claim; another is a duplicate order", () => {
  const h = claimed();
  h.now = T0 + 5_000;
  assert.deepEqual(h.must({ kind: "claim", waybill: "WB1" }).events, []);
  const refused = h.refused(
    { kind: "claim", waybill: "WB2", reference: "prc_2" },
    "duplicate_order",
    "external reference already booked: WB1",
  );
  // The holder, its offer and its age tell a booking on its way from one that stopped.
  assert.deepEqual(refused.details, { waybill: "WB1", reference: "prc_1", claimed_at: T0 });
});

Deno.test("reference claim: a claim stored before offers and times were kept is refused naming only its waybill", () => {
  const h = new ActorHarness(referenceClaimActor, { state: { waybill: "WB0" } });
  const refused = h.refused({ kind: "claim", waybill: "WB2" }, "duplicate_order");
  assert.deepEqual(refused.details, { waybill: "WB0" });
  // An old event without offer or time evolves to a claim that says neither.
  assert.deepEqual(
    referenceClaimActor.evolve(referenceClaimActor.initial, { kind: "claimed", waybill: "WB0" }),
    { waybill: "WB0", reference: null, claimed_at: null },
  );
});

Deno.test("reference claim: a release frees the reference only for the booking that holds it", () => {
  const h = claimed();
  assert.deepEqual(h.must({ kind: "release", waybill: "WB2" }).events, [], "not the holder");
  assert.equal(h.state.waybill, "WB1");
  const released = h.must({ kind: "release", waybill: "WB1" });
  assert.deepEqual(released.events, [{ kind: "released" }]);
  assert.deepEqual(h.state, { waybill: null, reference: null, claimed_at: null });
  assert.deepEqual(h.must({ kind: "release", waybill: "WB1" }).events, [], "released twice");
  h.must({ kind: "claim", waybill: "WB2" });
  assert.equal(h.state.waybill, "WB2");
  assert.deepEqual(h.fire("x").events, []);
});

Deno.test("reference claim: however claims and releases interleave, one booking at most holds it", () => {
  const op = fc.record({
    kind: fc.constantFrom("claim" as const, "release" as const),
    waybill: fc.constantFrom("WB1", "WB2", "WB3"),
  });
  fc.assert(fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
    const h = new ActorHarness(referenceClaimActor, { now: T0 });
    let holder: string | null = null;
    for (const c of ops) {
      const r = h.send(c);
      if (c.kind === "claim") {
        assert.equal("ok" in r, holder !== null && holder !== c.waybill);
        if (holder === null) holder = c.waybill;
      } else if (holder === c.waybill) {
        holder = null;
      }
      assert.equal(h.state.waybill, holder);
    }
  }));
});

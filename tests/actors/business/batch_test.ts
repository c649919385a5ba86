import assert from "node:assert/strict";
import { batchActor, type BatchDraft } from "../../../actors/business/batch.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const DRAFT = {
  id: "BT-1",
  business_id: "biz_1",
  segment: "parcel",
  external_reference: "EOD-1",
  batch_reference: null,
  vehicle: {} as BatchDraft["vehicle"],
  billing_currency: "BWP",
  billing_amount_minor: 6_000,
  stops: [],
} satisfies BatchDraft;

Deno.test("batch: a release frees only the claim it names, and only before the batch is booked", () => {
  const h = new ActorHarness(batchActor, { now: 5_000 });
  h.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  // Another body's or another claim's release leaves the claim.
  assert.deepEqual(h.must({ kind: "release", fingerprint: "f2", created_at: 5_000 }).events, []);
  assert.deepEqual(h.must({ kind: "release", fingerprint: "f1", created_at: 4_000 }).events, []);
  const released = h.must({ kind: "release", fingerprint: "f1", created_at: 5_000 });
  assert.deepEqual(kinds(released.events), ["batch_released"]);
  assert.deepEqual(h.state, { phase: "free" });
  h.refused({ kind: "get" }, "not_found");
  h.refused({ kind: "release", fingerprint: "f1", created_at: 5_000 }, "not_found");
  // spec: business 7: the reference is free again: another body claims it anew.
  h.now = 6_000;
  const again = h.must({ kind: "claim", draft: DRAFT, fingerprint: "f2" });
  assert.equal(again.reply?.replayed, false);
  h.must({ kind: "booked" });
  assert.deepEqual(h.must({ kind: "release", fingerprint: "f2", created_at: 6_000 }).events, []);
  assert.equal(h.state.phase, "claimed");
});

Deno.test("batch: a funded claim is never released; a hold for a claim released or claimed again is refused", () => {
  const h = new ActorHarness(batchActor, { now: 5_000 });
  h.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  // Another claim's hold (its created_at, its body) is not this claim's.
  h.refused({ kind: "fund", fingerprint: "f1", created_at: 4_000 }, "claim_released");
  h.refused({ kind: "fund", fingerprint: "f2", created_at: 5_000 }, "claim_released");
  const funded = h.must({ kind: "fund", fingerprint: "f1", created_at: 5_000 });
  assert.deepEqual(kinds(funded.events), ["batch_funded"]);
  assert.deepEqual(h.must({ kind: "fund", fingerprint: "f1", created_at: 5_000 }).events, []);
  // spec: business 4.2: its stops may be charged now: the refused first request cannot free it.
  assert.deepEqual(h.must({ kind: "release", fingerprint: "f1", created_at: 5_000 }).events, []);
  assert.equal(h.state.phase, "claimed");
  // A claim released before its hold refuses that hold.
  const other = new ActorHarness(batchActor, { now: 5_000 });
  other.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  other.must({ kind: "release", fingerprint: "f1", created_at: 5_000 });
  other.refused({ kind: "fund", fingerprint: "f1", created_at: 5_000 }, "claim_released");
});

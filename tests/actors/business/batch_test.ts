import assert from "node:assert/strict";
import { batchActor, type BatchDraft, type BatchState } from "../../../actors/business/batch.ts";
import {
  BATCH_BOOKING_STALL_MS,
  BATCH_STALL_TIMER,
  BATCH_STALLED_OUTBOX,
} from "../../../src/business/rules/batch.ts";
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

/** The claim `id` of the body `fingerprint` made at `created_at`, as a release or fund names it. */
const claim = (fingerprint: string, created_at: number, id: string) => ({
  fingerprint,
  created_at,
  claim_id: id,
});

Deno.test("batch: a release frees only the claim it names, and only before the batch is booked", () => {
  const h = new ActorHarness(batchActor, { now: 5_000 });
  h.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  // Another body's or another claim's release leaves the claim.
  const other = [claim("f2", 5_000, "bcl_1"), claim("f1", 4_000, "bcl_1"), claim("f1", 5_000, "x")];
  for (const c of other) assert.deepEqual(h.must({ kind: "release", ...c }).events, []);
  const released = h.must({ kind: "release", ...claim("f1", 5_000, "bcl_1") });
  assert.deepEqual(kinds(released.events), ["batch_released"]);
  assert.deepEqual(h.state, { phase: "free" });
  h.refused({ kind: "get" }, "not_found");
  h.refused({ kind: "release", ...claim("f1", 5_000, "bcl_1") }, "not_found");
  // spec: business 7: the reference is free again: another body claims it anew.
  h.now = 6_000;
  const again = h.must({ kind: "claim", draft: DRAFT, fingerprint: "f2" });
  assert.equal(again.reply?.replayed, false);
  h.must({ kind: "booked" });
  assert.deepEqual(h.must({ kind: "release", ...claim("f2", 6_000, "bcl_2") }).events, []);
  assert.equal(h.state.phase, "claimed");
});

Deno.test("batch: a funded claim is never released; a hold for a claim released or claimed again is refused", () => {
  const h = new ActorHarness(batchActor, { now: 5_000 });
  h.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  // Another claim's hold (its id, its created_at, its body) is not this claim's.
  h.refused({ kind: "fund", ...claim("f1", 4_000, "bcl_1") }, "claim_released");
  h.refused({ kind: "fund", ...claim("f2", 5_000, "bcl_1") }, "claim_released");
  const funded = h.must({ kind: "fund", ...claim("f1", 5_000, "bcl_1") });
  assert.deepEqual(kinds(funded.events), ["batch_funded"]);
  assert.deepEqual(h.must({ kind: "fund", ...claim("f1", 5_000, "bcl_1") }).events, []);
  // spec: business 4.2: its stops may be charged now: the refused first request cannot free it.
  assert.deepEqual(h.must({ kind: "release", ...claim("f1", 5_000, "bcl_1") }).events, []);
  assert.equal(h.state.phase, "claimed");
  // A claim released before its hold refuses that hold.
  const other = new ActorHarness(batchActor, { now: 5_000 });
  other.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  other.must({ kind: "release", ...claim("f1", 5_000, "bcl_1") });
  other.refused({ kind: "fund", ...claim("f1", 5_000, "bcl_1") }, "claim_released");
});

Deno.test("batch: each claim has its own id: a claim of the same body made at the same moment after a release is another claim", () => {
  const h = new ActorHarness(batchActor, { now: 5_000 });
  const first = h.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" }).reply!.batch;
  h.must({ kind: "release", ...claim("f1", 5_000, first.claim_id!) });
  const second = h.must({ kind: "claim", draft: first, fingerprint: "f1" }).reply!.batch;
  assert.notEqual(second.claim_id, first.claim_id);
  assert.equal(second.created_at, first.created_at);
  // The first claim's hold and release do not reach the second (spec: business 4.2).
  h.refused({ kind: "fund", ...claim("f1", 5_000, first.claim_id!) }, "claim_released");
  assert.deepEqual(h.must({ kind: "release", ...claim("f1", 5_000, first.claim_id!) }).events, []);
  assert.equal(h.state.phase, "claimed");
});

Deno.test("batch: a claim not booked by the bound is handed to the sweep, again each bound, until booked or the sweep refused it", () => {
  const h = new ActorHarness(batchActor, { now: 5_000 });
  const claimed = h.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  assert.deepEqual(claimed.timers, [
    { op: "set", name: BATCH_STALL_TIMER, at: 5_000 + BATCH_BOOKING_STALL_MS },
  ]);
  h.now = 5_000 + BATCH_BOOKING_STALL_MS;
  const stalled = h.fire(BATCH_STALL_TIMER);
  assert.deepEqual(kinds(stalled.events), ["batch_booking_stalled"]);
  assert.deepEqual(batchActor.outbox!(stalled.events[0]!, h.state), [{
    outbox: BATCH_STALLED_OUTBOX,
    payload: {
      business_id: "biz_1",
      id: "BT-1",
      fingerprint: "f1",
      created_at: 5_000,
      claim_id: "bcl_1",
    },
  }]);
  assert.equal(stalled.timers[0]?.op, "set");
  // The sweep's refusal of another claim changes nothing; of this one, it stops the looks.
  const other = { kind: "sweep_refused", code: "insufficient_balance", message: "m" } as const;
  assert.deepEqual(h.must({ ...other, ...claim("f1", 4_000, "bcl_1") }).events, []);
  const refused = h.must({ ...other, ...claim("f1", 5_000, "bcl_1") });
  assert.deepEqual(kinds(refused.events), ["batch_sweep_refused"]);
  assert.deepEqual(refused.timers, [{ op: "cancel", name: BATCH_STALL_TIMER }]);
  assert.deepEqual(h.fire(BATCH_STALL_TIMER).events, []);
  // Booked: the timer is cancelled, and a stray one hands nothing over.
  const b = new ActorHarness(batchActor, { now: 5_000 });
  b.must({ kind: "claim", draft: DRAFT, fingerprint: "f1" });
  assert.deepEqual(b.must({ kind: "booked" }).timers, [{ op: "cancel", name: BATCH_STALL_TIMER }]);
  assert.deepEqual(b.fire(BATCH_STALL_TIMER).events, []);
});

Deno.test("batch: a claim stored before batches kept what the sweep needs still loads and answers", () => {
  // As stored then: no claim id, no finish, no sweep fields.
  const old = JSON.parse(JSON.stringify({
    phase: "claimed",
    fingerprint: "f1",
    batch: { ...DRAFT, created_at: 5_000, booked_at: null },
  })) as BatchState;
  const h = new ActorHarness(batchActor, { now: 9_000, state: old });
  assert.equal(h.must({ kind: "get" }).reply?.batch.finish, undefined);
  // A timer (none was set then) would hand it over; the sweep leaves a batch without `finish`.
  assert.equal(h.fire(BATCH_STALL_TIMER).events.length, 1);
  assert.deepEqual(kinds(h.must({ kind: "booked" }).events), ["batch_booked"]);
});

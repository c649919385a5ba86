/**
 * A claim on a shipment (actors/courier/claim/mod.ts; courier 2.4 claim terms and liability cover,
 * 2.6 rule 5 credit notes, 4.6 `GET /client/claims`, 5 `claims:approve`): filed once per
 * shipment within its window and up to what the shipment stood for, decided once, its credit
 * settled once.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  approvedAmount,
  asClaim,
  CLAIM_CREDIT_PREFIX,
  CLAIM_TEXT_CHARS_MAX,
  claimActor,
  type ClaimBounds,
  type ClaimCommand,
  type ClaimFiling,
  claimKeyOf,
  claimLimitOf,
  claimWindowClosesAt,
  creditReferenceOf,
} from "../../../actors/courier/claim/mod.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const DAY = 86_400_000;
const FILING: ClaimFiling = {
  id: "clm_1",
  courier_id: "biz_1",
  client_id: "cli_1",
  waybill: "WB1",
  kind: "damage",
  amount_minor: 50_000,
  currency: "BWP",
  description: "Screen cracked on arrival",
  evidence: "evidence/clm_1.jpg",
  window_closes_at: T0 + 30 * DAY,
};
const BOUNDS: ClaimBounds = {
  limit_minor: 100_000,
  limit_basis: "declared_value",
  cancelled: false,
};

function fileCommand(
  claim: Partial<ClaimFiling> = {},
  bounds: Partial<ClaimBounds> = {},
): ClaimCommand {
  return {
    kind: "file",
    claim: { ...FILING, ...claim },
    bounds: { ...BOUNDS, ...bounds },
    by: "staff:usr_1",
  };
}

function decideCommand(
  outcome: "approved" | "partly_approved" | "rejected",
  approved_amount_minor: number | null = null,
  reason: string | null = null,
): ClaimCommand {
  return { kind: "decide", outcome, approved_amount_minor, reason, by: "staff:usr_2" };
}

function filed() {
  const h = new ActorHarness(claimActor, { now: T0 });
  h.must(fileCommand());
  return h;
}

Deno.test("claim: filing records the claim as filed, with who and when", () => {
  const h = new ActorHarness(claimActor, { now: T0 });
  const step = h.must(fileCommand());
  assert.deepEqual(kinds(step.events), ["claim_filed"]);
  const expected = {
    ...FILING,
    status: "filed",
    filed_at: T0,
    filed_by: "staff:usr_1",
    decision: null,
    credit: null,
  };
  assert.deepEqual(step.reply, { claim: expected, created: true });
  assert.deepEqual(asClaim(step.reply!), expected);
  assert.deepEqual(h.must({ kind: "get" }).reply, expected);
  assert.equal(claimKeyOf("biz_1", "WB1"), "biz_1:claim:WB1");
});

Deno.test("claim: one claim per shipment: the same filing again is found, other details conflict", () => {
  const h = filed();
  h.now = T0 + DAY;
  const again = h.must(fileCommand({ evidence: "another photo" }));
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply && "created" in again.reply && again.reply.created, false);
  const refused = h.refused(
    fileCommand({ amount_minor: 60_000 }),
    "claim_conflict",
    "shipment WB1 already has a claim, filed with other details: clm_1 (filed)",
  );
  assert.deepEqual(refused.details, { id: "clm_1", status: "filed" });
  for (const other of [{ kind: "loss" as const }, { currency: "ZAR" }, { description: "x" }]) {
    h.refused(fileCommand(other), "claim_conflict");
  }
});

Deno.test("claim: a filing with a bad kind, amount or description is refused, amounts as decimals", () => {
  const fresh = () => new ActorHarness(claimActor, { now: T0 });
  fresh().refused(
    fileCommand({ kind: "theft" as never }),
    "validation_failed",
    "kind is one of loss, damage, delay: theft",
  );
  fresh().refused(
    fileCommand({ amount_minor: 0 }),
    "invalid_amount",
    "a claim is for an amount above zero: 0.00 BWP",
  );
  fresh().refused(
    fileCommand({ amount_minor: -150 }),
    "invalid_amount",
    "a claim is for an amount above zero: -1.50 BWP",
  );
  fresh().refused(
    fileCommand({ amount_minor: 1.5 }),
    "invalid_amount",
    "a claim is for an amount above zero: 1.5",
  );
  for (const description of ["  ", "d".repeat(CLAIM_TEXT_CHARS_MAX + 1)]) {
    fresh().refused(
      fileCommand({ description }),
      "validation_failed",
      "a claim needs a description",
    );
  }
  fresh().must(fileCommand({ description: "d".repeat(CLAIM_TEXT_CHARS_MAX) }));
});

Deno.test("claim: a cancelled shipment has nothing to claim for", () => {
  new ActorHarness(claimActor, { now: T0 }).refused(
    fileCommand({}, { cancelled: true }),
    "shipment_cancelled",
    "shipment WB1 was cancelled: nothing was carried to claim for",
  );
});

Deno.test("claim: a claim is for at most the declared value under cover, else what was charged", () => {
  const over = new ActorHarness(claimActor, { now: T0 }).refused(
    fileCommand({ amount_minor: 100_001 }),
    "claim_above_limit",
    "a claim on WB1 is for at most 1000.00 BWP (the declared value under liability cover): 1000.01 BWP",
  );
  assert.deepEqual(over.details, { limit: "1000.00", limit_basis: "declared_value" });
  new ActorHarness(claimActor, { now: T0 }).refused(
    fileCommand({}, { limit_minor: 6_500, limit_basis: "charged" }),
    "claim_above_limit",
    "a claim on WB1 is for at most 65.00 BWP (what was charged, no liability cover bought): 500.00 BWP",
  );
  new ActorHarness(claimActor, { now: T0 }).must(fileCommand({ amount_minor: 100_000 }));

  const shipment = (declared: number | null, cover: boolean) => ({
    declared_value_minor: declared,
    liability_cover: cover,
    pricing: { total_minor: 6_500 },
  });
  assert.deepEqual(claimLimitOf(shipment(100_000, true)), {
    limit_minor: 100_000,
    limit_basis: "declared_value",
  });
  for (const [declared, cover] of [[100_000, false], [null, true], [0, true]] as const) {
    assert.deepEqual(claimLimitOf(shipment(declared, cover)), {
      limit_minor: 6_500,
      limit_basis: "charged",
    });
  }
});

Deno.test("claim: a claim after its window is refused; at the closing instant it is still taken", () => {
  const h = new ActorHarness(claimActor, { now: FILING.window_closes_at + 1 });
  const refused = h.refused(
    fileCommand(),
    "claim_window_closed",
    "the claim window of this shipment closed at 2026-12-02T08:00:00.000Z",
  );
  assert.deepEqual(refused.details, { window_closes_at: "2026-12-02T08:00:00.000Z" });
  new ActorHarness(claimActor, { now: FILING.window_closes_at }).must(fileCommand());
});

Deno.test("claim: the window runs from delivery, or from the end of the promised latest delivery day", () => {
  const calendar = { timezone: "Africa/Gaborone", working_days: [1, 2, 3, 4, 5], holidays: [] };
  const pricing = { promise: { latest_delivery: "2026-11-04" } };
  const delivered = T0 + 2 * DAY;
  assert.equal(
    claimWindowClosesAt({ delivered_at: delivered, pricing, calendar }, 30),
    delivered + 30 * DAY,
  );
  // Not delivered: from the end of 4 November in Gaborone (UTC+2), midnight local.
  assert.equal(
    claimWindowClosesAt({ delivered_at: null, pricing, calendar }, 7),
    Date.parse("2026-11-04T22:00:00Z") + 7 * DAY,
  );
});

Deno.test("claim: an approval credits the whole claim through a credit note pending until the ledger answers", () => {
  const h = filed();
  h.now = T0 + DAY;
  const step = h.must(decideCommand("approved"));
  const decision = {
    outcome: "approved",
    approved_amount_minor: 50_000,
    reason: null,
    decided_at: T0 + DAY,
    decided_by: "staff:usr_2",
  };
  const credit = { state: "pending", reference: "CLM-clm_1", amount_minor: 50_000 };
  assert.deepEqual(step.events, [{ kind: "claim_decided", decision, credit }]);
  assert.equal(asClaim(h.state!).status, "approved");
  assert.deepEqual(asClaim(h.state!).credit, credit);
  assert.equal(creditReferenceOf("clm_1"), "CLM-clm_1");
  assert.ok(creditReferenceOf("clm_9").startsWith(CLAIM_CREDIT_PREFIX));
  h.now = T0 + 2 * DAY;
  const settled = h.must({ kind: "settle_credit", result: { booked: true } });
  assert.deepEqual(settled.events, [{
    kind: "credit_settled",
    credit: { ...credit, state: "booked", at: T0 + 2 * DAY },
  }]);
  // Settling again (a retried decision) changes nothing.
  assert.deepEqual(h.must({ kind: "settle_credit", result: { booked: true } }).events, []);
  assert.deepEqual(
    h.must({ kind: "settle_credit", result: { booked: false, code: "x", message: "y" } }).events,
    [],
  );
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("claim: a credit the ledger refused is kept with its refusal, for the courier to settle", () => {
  const h = filed();
  h.must(decideCommand("partly_approved", 20_000, "only the screen"));
  h.must({
    kind: "settle_credit",
    result: { booked: false, code: "unresolved_fx", message: "the shipment's rate is unresolved" },
  });
  assert.deepEqual(asClaim(h.state!).credit, {
    state: "not_booked",
    reference: "CLM-clm_1",
    amount_minor: 20_000,
    code: "unresolved_fx",
    message: "the shipment's rate is unresolved",
    at: T0,
  });
});

Deno.test("claim: a partial approval needs an amount between zero and the claim, and a reason", () => {
  const h = filed();
  for (const given of [null, 0, 50_000, 60_000]) {
    h.refused(
      decideCommand("partly_approved", given, "some"),
      "invalid_amount",
      `partly_approved needs an approved_amount above zero and below the claim (500.00 BWP): ${
        given === null ? "none" : `${(given / 100).toFixed(2)} BWP`
      }`,
    );
  }
  h.refused(
    decideCommand("partly_approved", 20_000),
    "reason_required",
    "a partial approval needs a reason",
  );
  h.refused(decideCommand("partly_approved", 20_000, " "), "reason_required");
  h.must(decideCommand("partly_approved", 20_000, "only the screen"));
  assert.equal(asClaim(h.state!).status, "partly_approved");
  assert.equal(asClaim(h.state!).decision?.approved_amount_minor, 20_000);
});

Deno.test("claim: a rejection approves nothing, books no credit and needs a reason", () => {
  const h = filed();
  h.refused(
    decideCommand("rejected", 100, "no"),
    "invalid_amount",
    "a rejected claim approves nothing: 1.00 BWP",
  );
  h.refused(decideCommand("rejected"), "reason_required", "a rejection needs a reason");
  const step = h.must(decideCommand("rejected", 0, "packed badly"));
  assert.equal(asClaim(h.state!).status, "rejected");
  assert.equal(asClaim(h.state!).credit, null);
  assert.equal(step.events.length, 1);
  assert.deepEqual(h.must({ kind: "settle_credit", result: { booked: true } }).events, []);
});

Deno.test("claim: approved means the whole claim; negative or fractional amounts are refused", () => {
  const h = filed();
  h.refused(
    decideCommand("approved", 40_000),
    "invalid_amount",
    "approved means the whole claim (500.00 BWP); use partly_approved: 400.00 BWP",
  );
  h.refused(
    decideCommand("approved", -1),
    "invalid_amount",
    "approved_amount is zero or more: -0.01 BWP",
  );
  h.refused(
    decideCommand("approved", 0.5),
    "invalid_amount",
    "approved_amount is zero or more: 0.5",
  );
  h.refused(
    decideCommand("rejected", null, "r".repeat(CLAIM_TEXT_CHARS_MAX + 1)),
    "validation_failed",
    `a reason has at most ${CLAIM_TEXT_CHARS_MAX} characters`,
  );
  h.must(decideCommand("approved", 50_000));
});

Deno.test("claim: decided once; the same decision again is answered, another is refused", () => {
  const h = filed();
  h.must(decideCommand("partly_approved", 20_000, "only the screen"));
  assert.deepEqual(h.must(decideCommand("partly_approved", 20_000, "only the screen")).events, []);
  const refused = h.refused(
    decideCommand("approved"),
    "claim_already_decided",
    "the claim was already decided: partly_approved",
  );
  assert.deepEqual(refused.details, { status: "partly_approved" });
  h.refused(decideCommand("partly_approved", 20_000, "another reason"), "claim_already_decided");
  h.refused(decideCommand("partly_approved", 30_000, "only the screen"), "claim_already_decided");
  // Filing it again once decided still names the claim, not a new one.
  assert.equal(asClaim(h.must(fileCommand()).reply!).status, "partly_approved");
  const approved = filed();
  approved.must(decideCommand("approved"));
  assert.deepEqual(
    approved.must(decideCommand("approved", 50_000)).events,
    [],
    "the amount restated",
  );
});

Deno.test("claim: before filing every command but file is not_found", () => {
  const h = new ActorHarness(claimActor);
  for (
    const c of [{ kind: "get" }, decideCommand("approved"), {
      kind: "settle_credit",
      result: { booked: true },
    }] as ClaimCommand[]
  ) {
    h.refused(c, "not_found", "claim not found");
  }
  assert.throws(() =>
    claimActor.evolve(null, {
      kind: "credit_settled",
      credit: { state: "pending", reference: "x", amount_minor: 1 },
    })
  );
});

Deno.test("claim: the approved amount is never above the claim and zero only when rejected", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 10_000_000 }),
    fc.constantFrom("approved" as const, "partly_approved" as const, "rejected" as const),
    fc.option(fc.integer({ min: -10, max: 10_000_010 })),
    fc.option(fc.constantFrom("why", " ")),
    (claimed, outcome, given, reason) => {
      const r = approvedAmount({ claimed, currency: "BWP", outcome, given, reason });
      if (!r.ok) return;
      assert.ok(r.amount >= 0 && r.amount <= claimed);
      assert.equal(r.amount === 0, outcome === "rejected");
      if (outcome === "partly_approved") assert.ok(r.amount < claimed && reason === "why");
    },
  ));
});

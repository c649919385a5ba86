/**
 * The claims flow (courier 2.4, 2.6 rules 2 and 5), called without HTTP: one claim per shipment,
 * amounts in the shipment's currency, and what a decision does with its credit note when the
 * ledger takes it, refuses it for good, or cannot take it now.
 */
import assert from "node:assert/strict";
import type { Claim } from "../../../actors/courier/claim/mod.ts";
import {
  type BookClaimNote,
  type ClaimNote,
  decideClaim,
  fileClaim,
} from "../../../src/courier/flows/claims.ts";
import { storeEvidence } from "../../../src/courier/flows/evidence.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Courier, newClient, newCourier, topUp } from "../../helpers/courier.ts";

async function ready(t: TestEnv): Promise<{ courier: Courier; waybill: string }> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return { courier, waybill: await bookWaybill(t, client) };
}

const DAMAGE = { kind: "damage", description: "Crushed box", evidence: null, by: "ops" } as const;

/** The code of a refusal a flow threw. */
async function refusal(work: () => Promise<unknown>): Promise<Refused["rejection"]> {
  try {
    await work();
  } catch (e) {
    if (e instanceof Refused) return e.rejection;
    throw e;
  }
  throw new Error("expected a refusal");
}

Deno.test("claims flow: a shipment has one claim: filed again it answers the first, created once", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const tenant = courier.business.id;
    const first = await fileClaim(t.env.runtime, tenant, { ...DAMAGE, waybill, amount: "25.00" });
    const again = await fileClaim(t.env.runtime, tenant, { ...DAMAGE, waybill, amount: 25 });
    assert.equal(first.created, true);
    assert.equal(again.created, false);
    assert.equal(again.claim.id, first.claim.id);
    assert.equal(first.claim.amount_minor, 2500);
    assert.equal(first.claim.currency, "BWP");
  }));

Deno.test("claims flow: another currency, a bad amount and another courier's shipment are refused", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const other = await newCourier(t);
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    const usd = await refusal(() =>
      fileClaim(runtime, tenant, { ...DAMAGE, waybill, amount: "25", currency: "USD" })
    );
    assert.equal(usd.code, "currency_mismatch");
    assert.equal(usd.message, "a claim is in the shipment's currency BWP: USD");
    const bad = await refusal(() =>
      fileClaim(runtime, tenant, { ...DAMAGE, waybill, amount: "25.123" })
    );
    assert.equal(bad.code, "validation_failed");
    assert.deepEqual((bad.details?.errors as { path: string }[]).map((e) => e.path), ["amount"]);
    const elsewhere = await refusal(() =>
      fileClaim(runtime, other.business.id, { ...DAMAGE, waybill, amount: "25" })
    );
    assert.equal(elsewhere.code, "not_found");
  }));

/** A note booker standing in for billing's, answering `answers` in turn and keeping the notes. */
function booker(answers: (() => Promise<{ ok: true } | Refused["rejection"]>)[]) {
  const notes: ClaimNote[] = [];
  const book: BookClaimNote = (_claim, note) => {
    notes.push(note);
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    return next();
  };
  return { book, notes };
}

/** A claim's credit note: reference, amount, state. */
function creditOf(claim: Claim): [string, number, string] | null {
  const c = claim.credit;
  return c === null ? null : [c.reference, c.amount_minor, c.state];
}

function decide(t: TestEnv, courier: Courier, claim: Claim, bookNote: BookClaimNote) {
  return decideClaim(t.env, { courier: courier.business.id, id: claim.id, bookNote }, {
    outcome: "partly_approved",
    approved_amount: "10.50",
    reason: "one bottle",
    by: "claims@example.com",
  });
}

Deno.test("claims flow: a ledger that cannot take the note now leaves it pending; the decision sent again books it once", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const { claim } = await fileClaim(t.env.runtime, courier.business.id, {
      ...DAMAGE,
      waybill,
      amount: "25",
    });
    const busy = { ok: false as const, code: "ledger_catching_up", message: "catching up" };
    const ledger = booker([() => Promise.resolve(busy), () => Promise.resolve({ ok: true })]);
    const first = await refusal(() => decide(t, courier, claim, ledger.book));
    assert.equal(first.code, "ledger_catching_up");
    const decided = await decide(t, courier, claim, ledger.book);
    assert.equal(decided.status, "partly_approved");
    assert.deepEqual(creditOf(decided), [`CLM-${claim.id}`, 1050, "booked"]);
    // Both tries asked for the same note: a credit of the approved amount, as compensation.
    assert.equal(ledger.notes.length, 2);
    assert.deepEqual(ledger.notes[0], ledger.notes[1]);
    assert.equal(ledger.notes[0]!.amount_minor, -1050);
    assert.equal(ledger.notes[0]!.reference, `CLM-${claim.id}`);
    assert.equal(ledger.notes[0]!.compensation, true);
    // Settled: sent again, the decision books nothing more.
    const settled = await decide(t, courier, claim, booker([]).book);
    assert.equal(settled.credit?.state, "booked");
  }));

Deno.test("claims flow: a ledger refusal for good is kept on the claim as not booked; the decision stands", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const { claim } = await fileClaim(t.env.runtime, courier.business.id, {
      ...DAMAGE,
      waybill,
      amount: "25",
    });
    const ledger = booker([
      () => Promise.reject(new Refused({ ok: false, code: "not_found", message: "no such entry" })),
    ]);
    const decided = await decide(t, courier, claim, ledger.book);
    assert.equal(decided.status, "partly_approved");
    assert.deepEqual(creditOf(decided), [`CLM-${claim.id}`, 1050, "not_booked"]);
    assert.ok(decided.credit?.state === "not_booked");
    assert.equal(decided.credit.code, "not_found");
    assert.equal(decided.credit.message, "no such entry");
  }));

Deno.test("claims flow: evidence written as a file reference (file:sha256:<hex>) must name a file the courier holds", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const other = await newCourier(t);
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    const photo = new TextEncoder().encode("a photo of the crushed box");
    const theirs = await storeEvidence(
      runtime,
      other.business.id,
      { name: "box.jpg", content_type: "image/jpeg", bytes: photo },
      "ops",
    );
    assert.ok(theirs.ok);
    for (const hex of ["ab".repeat(32), theirs.value.sha256]) {
      const r = await refusal(() =>
        fileClaim(runtime, tenant, {
          ...DAMAGE,
          waybill,
          amount: "25",
          evidence: `file:sha256:${hex}`,
        })
      );
      assert.equal(r.code, "validation_failed", hex);
      assert.deepEqual((r.details?.errors as { path: string }[]).map((e) => e.path), ["evidence"]);
    }
    const mine = await storeEvidence(
      runtime,
      tenant,
      { name: "box.jpg", content_type: "image/jpeg", bytes: photo },
      "ops",
    );
    assert.ok(mine.ok);
    const evidence = `file:sha256:${mine.value.sha256}`;
    const filed = await fileClaim(runtime, tenant, { ...DAMAGE, waybill, amount: "25", evidence });
    assert.equal(filed.created, true, "nothing was filed by the refused ones");
    assert.equal(filed.claim.evidence, evidence);
  }));

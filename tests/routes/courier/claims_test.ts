import assert from "node:assert/strict";
import fc from "fast-check";
import { approvedAmount, CLAIM_OUTCOMES, claimActor } from "../../../actors/courier/claim/mod.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

const DAY = 24 * 60 * 60 * 1000;
const SCOPES = ["billing:administer", "billing:view-own", "runs:override"];

async function ready(t: TestEnv, card: Record<string, unknown> = {}) {
  const courier = await newCourier(t, { claim_window_days: 5, ...card });
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "1000.00");
  const booked = await bookShipment(t, client);
  return { courier, client, waybill: booked.waybill };
}

async function grantApprove(t: TestEnv, courier: Courier) {
  const r = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
    operator: true,
    body: { api_key_scopes: [...SCOPES, "claims:approve"] },
  });
  assert.equal(r.status, 200);
}

function file(t: TestEnv, courier: Courier, body: Record<string, unknown>) {
  return t.call("POST", "/business/courier/claims", {
    key: courier.business.api_key,
    body: { kind: "damage", amount: "25.00", description: "Crushed box, bottles broken", ...body },
  });
}

function clientClaims(t: TestEnv, client: Client) {
  return t.call("GET", "/client/claims", { headers: clientKey(client) });
}

Deno.test("claims: deciding needs claims:approve; once decided, deciding again is refused", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill } = await ready(t);
    const filed = await file(t, courier, { waybill, evidence: "photos/box-1.jpg" });
    assert.equal(filed.status, 201, JSON.stringify(filed.body));
    const id = filed.body.data.id;
    assert.equal(filed.body.data.status, "filed");
    assert.equal(filed.body.data.amount, 25);
    assert.equal(filed.body.data.client_id, client.id);

    const decision = { outcome: "partly_approved", approved_amount: "10.50", reason: "one bottle" };
    const denied = await t.call("POST", `/business/courier/claims/${id}/decide`, {
      key: courier.business.api_key,
      body: decision,
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
    assert.match(denied.body.message, /claims:approve/);

    await grantApprove(t, courier);
    const decided = await t.call("POST", `/business/courier/claims/${id}/decide`, {
      key: courier.business.api_key,
      body: decision,
    });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.data.status, "partly_approved");
    assert.equal(decided.body.data.outcome.approved_amount, 10.5);
    // spec: courier 2.6 rule 5: the approved amount is a credit note on the booked price.
    assert.deepEqual(decided.body.data.credit_note, {
      reference: `CLM-${id}`,
      amount: 10.5,
      state: "booked",
    });
    await t.settle();
    const note = await t.env.db.selectFrom("ledger_entries").selectAll()
      .where("reference", "=", `CLM-${id}`).executeTakeFirstOrThrow();
    assert.equal(note.kind, "credit_note");
    assert.equal(note.amount_minor, -1050);
    assert.equal(note.corrects, waybill);

    const again = await t.call("POST", `/business/courier/claims/${id}/decide`, {
      key: courier.business.api_key,
      body: { outcome: "rejected", reason: "changed my mind" },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "claim_already_decided");
    const one = await t.call("GET", `/business/courier/claims/${id}`, {
      key: courier.business.api_key,
    });
    assert.equal(one.body.data.status, "partly_approved");
    await t.settle();
    const notes = await t.env.db.selectFrom("ledger_entries").select("reference")
      .where("corrects", "=", waybill).execute();
    assert.equal(notes.length, 1);
  }));

Deno.test("claims: the same decision sent again after a crash answers the decision and books its note once", () =>
  withTestEnv(async (t) => {
    const { courier, client } = await ready(t);
    await grantApprove(t, courier);
    const decide = (id: string, body: Record<string, unknown>) =>
      t.call("POST", `/business/courier/claims/${id}/decide`, {
        key: courier.business.api_key,
        body,
      });
    const decision = { outcome: "partly_approved", approved_amount: "10.50", reason: "one bottle" };
    const notes = async () => {
      await t.settle();
      return await t.env.db.selectFrom("ledger_entries").select(["reference", "amount_minor"])
        .where("reference", "like", "CLM-%").where("kind", "=", "credit_note").execute();
    };
    // The process dies after the claim recorded the decision, before its credit note was booked
    // (and, for the second claim, after the note was booked, before the claim heard of it).
    const crashes = [
      (type: string, command: unknown) =>
        type === "courier_client" && (command as { kind: string }).kind === "correct",
      (type: string, command: unknown) =>
        type === "claim" && (command as { kind: string }).kind === "settle_credit",
    ];
    for (const [n, fails] of crashes.entries()) {
      // A shipment has one claim: each claim here is on a shipment of its own.
      const waybill = (await bookShipment(t, client)).waybill;
      const id = (await file(t, courier, { waybill, description: `claim ${n}` })).body.data.id;
      const failed = await whileFlaky(t.env, { fails }, async () => {
        const lost = await decide(id, decision);
        assert.equal(lost.status, 500, JSON.stringify(lost.body));
      });
      assert.equal(failed, 1);
      // product rule: a crash between two steps leaves state a retry completes; the same
      // decision sent again is answered as the decision recorded (courier 2.6 rule 2).
      for (let i = 0; i < 2; i++) {
        const again = await decide(id, decision);
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(again.body.data.status, "partly_approved");
        assert.equal(again.body.data.outcome.approved_amount, 10.5);
        assert.deepEqual(again.body.data.credit_note, {
          reference: `CLM-${id}`,
          amount: 10.5,
          state: "booked",
        });
      }
      // Another decision is still refused, and books nothing.
      const other = await decide(id, { outcome: "approved" });
      assert.equal(other.status, 409);
      assert.equal(other.body.code, "claim_already_decided");
      const changedReason = await decide(id, { ...decision, reason: "two bottles" });
      assert.equal(changedReason.status, 409);
      assert.equal(changedReason.body.code, "claim_already_decided");
      const booked = (await notes()).filter((e) => e.reference === `CLM-${id}`);
      assert.deepEqual(booked.map((e) => Number(e.amount_minor)), [-1050]);
    }
    // A rejection sent again is the rejection recorded too.
    const waybill = (await bookShipment(t, client)).waybill;
    const id = (await file(t, courier, { waybill, description: "claim 3" })).body.data.id;
    const reject = { outcome: "rejected", reason: "packed without padding" };
    assert.equal((await decide(id, reject)).status, 200);
    const replay = await decide(id, reject);
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    assert.equal(replay.body.data.credit_note, null);
    assert.equal((await notes()).length, 2);
  }));

Deno.test("claims: a credit note the ledger could not take for the moment stays pending, and the decision's retry books it", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    await grantApprove(t, courier);
    const id = (await file(t, courier, { waybill })).body.data.id;
    const decision = { outcome: "approved" };
    const decide = () =>
      t.call("POST", `/business/courier/claims/${id}/decide`, {
        key: courier.business.api_key,
        body: decision,
      });
    // The client's account is busy (its mailbox full): the note is not refused, only not yet.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "correct",
      refuse: true,
    }, async () => {
      const busy = await decide();
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
      assert.equal(busy.body.code, "actor_busy");
    });
    const held = await t.call("GET", `/business/courier/claims/${id}`, {
      key: courier.business.api_key,
    });
    assert.equal(held.body.data.status, "approved");
    assert.equal(held.body.data.credit_note.state, "pending");
    // product rule: a retry completes what was left undone (courier 2.6 rule 5: the note).
    const again = await decide();
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.data.credit_note, {
      reference: `CLM-${id}`,
      amount: 25,
      state: "booked",
    });
    await t.settle();
    const notes = await t.env.db.selectFrom("ledger_entries").select("amount_minor")
      .where("reference", "=", `CLM-${id}`).execute();
    assert.deepEqual(notes.map((n) => Number(n.amount_minor)), [-2500]);
  }));

Deno.test("claims: outcomes need their amounts and reasons; bad input changes nothing", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    await grantApprove(t, courier);
    const id = (await file(t, courier, { waybill })).body.data.id;
    const decide = (body: Record<string, unknown>) =>
      t.call("POST", `/business/courier/claims/${id}/decide`, {
        key: courier.business.api_key,
        body,
      });
    const noReason = await decide({ outcome: "rejected" });
    assert.equal(noReason.status, 422);
    assert.equal(noReason.body.code, "validation_failed");
    assert.equal(noReason.body.rule, "reason_required");
    const tooMuch = await decide({ outcome: "partly_approved", approved_amount: 25, reason: "x" });
    assert.equal(tooMuch.body.code, "invalid_amount");
    const notWhole = await decide({ outcome: "approved", approved_amount: 5 });
    assert.equal(notWhole.body.code, "invalid_amount");
    const badOutcome = await decide({ outcome: "maybe" });
    assert.equal(badOutcome.body.code, "validation_failed");
    const fractions = await decide({ outcome: "approved", approved_amount: "25.001" });
    assert.equal(fractions.body.code, "validation_failed");
    const still = await t.call("GET", `/business/courier/claims/${id}`, {
      key: courier.business.api_key,
    });
    assert.equal(still.body.data.status, "filed");
    const rejected = await decide({ outcome: "rejected", reason: "packed without padding" });
    assert.equal(rejected.status, 200);
    assert.equal(rejected.body.data.credit_note, null);
    assert.equal(rejected.body.data.outcome.approved_amount, 0);
  }));

Deno.test("claims: a refused decision states its amounts as decimals in the claim's currency", () =>
  withTestEnv(async (t) => {
    const { courier, client } = await ready(t, { liability_cover_pct: 1 });
    // Covered on its declared value, the claim may be for more than the price (courier 2.4).
    const { waybill } = await bookShipment(t, client, {
      declared_value: "2000.00",
      liability_cover: true,
    });
    await grantApprove(t, courier);
    const id = (await file(t, courier, { waybill, amount: "1234.56" })).body.data.id;
    const refusal = async (body: Record<string, unknown>) => {
      const r = await t.call("POST", `/business/courier/claims/${id}/decide`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "invalid_amount");
      return r.body.message;
    };
    // spec: courier 2.2, 9.4: amounts are decimals in the stated currency, never minor units.
    assert.equal(
      await refusal({ outcome: "approved", approved_amount: "1300.00" }),
      "approved means the whole claim (1234.56 BWP); use partly_approved: 1300.00 BWP",
    );
    assert.equal(
      await refusal({ outcome: "partly_approved", approved_amount: 0, reason: "x" }),
      "partly_approved needs an approved_amount above zero and below the claim (1234.56 BWP): " +
        "0.00 BWP",
    );
    assert.equal(
      await refusal({ outcome: "partly_approved", reason: "x" }),
      "partly_approved needs an approved_amount above zero and below the claim (1234.56 BWP): none",
    );
    assert.equal(
      await refusal({ outcome: "rejected", approved_amount: "3", reason: "x" }),
      "a rejected claim approves nothing: 3.00 BWP",
    );
  }));

Deno.test("claims: a claim after the rate card's claim window is refused", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill } = await ready(t);
    const second = (await bookShipment(t, client)).waybill;
    // Express booked Monday 2 Nov: latest delivery Wed 4 Nov, window 5 days from its end.
    t.clock.advanceBy(7 * DAY);
    const inTime = await file(t, courier, { waybill, kind: "delay" });
    assert.equal(inTime.status, 201, JSON.stringify(inTime.body));
    assert.equal(inTime.body.data.window_closes_at, "2026-11-09T22:00:00.000Z");
    t.clock.advanceBy(2 * DAY);
    const late = await file(t, courier, { waybill: second, kind: "loss" });
    assert.equal(late.status, 422);
    assert.equal(late.body.code, "claim_window_closed");
    assert.match(late.body.message, /2026-11-09T22:00:00.000Z/);
  }));

Deno.test("claims: filing checks the shipment, the currency and the idempotency key", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const other = await newCourier(t);
    const foreign = await file(t, other, { waybill });
    assert.equal(foreign.status, 404);
    const currency = await file(t, courier, { waybill, currency: "ZAR" });
    assert.equal(currency.body.code, "currency_mismatch");
    const first = await file(t, courier, { waybill, idempotency_key: "claim-77" });
    assert.equal(first.status, 201);
    const replay = await file(t, courier, { waybill, idempotency_key: "claim-77" });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.data.id, first.body.data.id);
    const conflict = await file(t, courier, { waybill, idempotency_key: "claim-77", amount: 9 });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.code, "claim_conflict");
    // A waybill as typed, in any case, as every waybill route reads it: the same claim.
    const typed = await file(t, courier, { waybill: waybill.toLowerCase() });
    assert.equal(typed.status, 200, JSON.stringify(typed.body));
    assert.equal(typed.body.data.id, first.body.data.id);
    await t.settle();
    const listed = await t.call(
      "GET",
      `/business/courier/claims?waybill=${waybill.toLowerCase()}`,
      { key: courier.business.api_key },
    );
    assert.equal(listed.body.data.length, 1, JSON.stringify(listed.body));
  }));

Deno.test("claims: evidence a claim's credit note keeps is refused 422 with a control character", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    // spec: courier 2.6: the evidence becomes the credit note's evidence_path, sent in its event.
    for (const evidence of ["photo\u0001.jpg", "photo\n2.jpg"]) {
      const r = await file(t, courier, { waybill, evidence });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["evidence"]);
    }
    await t.settle();
    const listed = await t.call("GET", `/business/courier/claims?waybill=${waybill}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(listed.body.data, [], "no claim filed");
  }));

Deno.test("claims: a client sees only its own claims and their outcome", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill } = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "500.00");
    const otherWaybill = (await bookShipment(t, other)).waybill;
    await grantApprove(t, courier);
    const mine = (await file(t, courier, { waybill })).body.data.id;
    const theirs = (await file(t, courier, { waybill: otherWaybill })).body.data.id;
    await t.call("POST", `/business/courier/claims/${mine}/decide`, {
      key: courier.business.api_key,
      body: { outcome: "approved" },
    });
    await t.settle();
    const list = await clientClaims(t, client);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((c: { id: string }) => c.id), [mine]);
    const claim = list.body.data[0];
    assert.equal(claim.outcome.outcome, "approved");
    assert.equal(claim.outcome.approved_amount, 25);
    assert.equal(claim.credit_note.state, "booked");
    assert.equal(claim.filed_by, undefined);
    assert.equal(claim.outcome.decided_by, undefined);
    const theirList = await clientClaims(t, other);
    assert.deepEqual(theirList.body.data.map((c: { id: string }) => c.id), [theirs]);
    assert.equal(theirList.body.data[0].outcome, null);
    // A client's query cannot widen the filter.
    const widened = await t.call("GET", `/client/claims?client_id=${other.id}`, {
      headers: clientKey(client),
    });
    assert.deepEqual(widened.body.data.map((c: { id: string }) => c.id), [mine]);
    const courierList = await t.call("GET", "/business/courier/claims", {
      key: courier.business.api_key,
    });
    assert.equal(courierList.body.data.length, 2);
    const filtered = await t.call("GET", `/business/courier/claims?status=filed`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(filtered.body.data.map((c: { id: string }) => c.id), [theirs]);

    await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    const off = await clientClaims(t, client);
    assert.equal(off.status, 403);
    assert.equal(off.body.code, "courier_platform_disabled");
  }));

Deno.test("claims: a second claim for the same shipment names the first; it is never paid twice", () =>
  withTestEnv(async (t) => {
    // spec: courier 2.6 rule 2 (booked once); product rule: a claim is never paid twice. Filed
    // twice for the same loss, with or without keys, it is one claim and one credit note.
    const { courier, waybill } = await ready(t);
    await grantApprove(t, courier);
    const first = await file(t, courier, { waybill, kind: "loss" });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const again = await file(t, courier, { waybill, kind: "loss" });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.id, first.body.data.id);
    const keyed = await file(t, courier, { waybill, kind: "loss", idempotency_key: "other-key" });
    assert.equal(keyed.body.data.id, first.body.data.id, JSON.stringify(keyed.body));
    const other = await file(t, courier, { waybill, kind: "damage", amount: "20.00" });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "claim_conflict");
    assert.match(other.body.message, new RegExp(first.body.data.id));
    const decided = await t.call("POST", `/business/courier/claims/${first.body.data.id}/decide`, {
      key: courier.business.api_key,
      body: { outcome: "approved" },
    });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    await t.settle();
    const notes = await t.env.db.selectFrom("ledger_entries").selectAll()
      .where("kind", "=", "credit_note").where("corrects", "=", waybill).execute();
    assert.deepEqual(notes.map((n) => Number(n.amount_minor)), [-2500]);
  }));

Deno.test("claims: a claim is for at most the declared value under liability cover, else what was charged", () =>
  withTestEnv(async (t) => {
    // spec: courier 2.4: liability cover is a percentage of the declared value; without it the
    // courier refunds what it charged. Above the limit: 422 naming the limit, nothing filed.
    const courier = await newCourier(t, { claim_window_days: 5, liability_cover_pct: 1 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "1000.00");
    const covered = await bookShipment(t, client, {
      declared_value: "500.00",
      liability_cover: true,
    });
    const above = await file(t, courier, { waybill: covered.waybill, amount: "500.01" });
    assert.equal(above.status, 422, JSON.stringify(above.body));
    assert.equal(above.body.code, "claim_above_limit");
    assert.match(above.body.message, /500\.00 BWP/);
    const at = await file(t, courier, { waybill: covered.waybill, amount: "500.00" });
    assert.equal(at.status, 201, JSON.stringify(at.body));

    const uncovered = await bookShipment(t, client, { declared_value: "500.00" });
    const charged = `${uncovered.total.toFixed(2)} BWP`;
    const over = await file(t, courier, { waybill: uncovered.waybill, amount: "400.00" });
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.equal(over.body.code, "claim_above_limit");
    assert.ok(over.body.message.includes(charged), over.body.message);
    await t.settle();
    const listed = await t.call("GET", `/business/courier/claims?waybill=${uncovered.waybill}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(listed.body.data, [], "nothing filed");
    const refund = await file(t, courier, {
      waybill: uncovered.waybill,
      amount: uncovered.total.toFixed(2),
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
  }));

Deno.test("claims: a cancelled shipment carried nothing to claim for", () =>
  withTestEnv(async (t) => {
    const { courier, waybill } = await ready(t);
    const cancel = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
      key: courier.business.api_key,
      body: { event: "cancelled", reason: "order withdrawn" },
    });
    assert.equal(cancel.status, 201, JSON.stringify(cancel.body));
    const r = await file(t, courier, { waybill, kind: "loss" });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "shipment_cancelled");
    assert.match(r.body.message, new RegExp(waybill));
  }));

Deno.test("claim: an outcome's approved amount is whole, part (0 < x < claim) or nothing", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 1_000_000 }),
    fc.constantFrom(...CLAIM_OUTCOMES),
    fc.option(fc.integer({ min: -10, max: 1_000_010 }), { nil: null }),
    (claimed, outcome, given) => {
      const r = approvedAmount({ claimed, currency: "BWP", outcome, given, reason: "reason" });
      if (!r.ok) return;
      if (outcome === "approved") assert.equal(r.amount, claimed);
      if (outcome === "rejected") assert.equal(r.amount, 0);
      if (outcome === "partly_approved") assert.ok(r.amount > 0 && r.amount < claimed);
    },
  ));
  assert.equal(claimActor.type, "claim");
});

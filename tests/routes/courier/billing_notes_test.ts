/** Courier billing (courier 2.6 rule 5, 4.2 `correct`): debit and credit notes over HTTP. */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  bookWaybill,
  newClient,
  newCourier,
  postCharge as charge,
  topUp,
} from "../../helpers/courier.ts";

import { book, ready, rows, settle, view } from "./billing_fixtures.ts";

Deno.test("billing: correct issues debit and credit notes pointing at the entry in Postgres", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 5_000,
    });
    await settle(t);
    const missing = await act(t, courier, client, "correct", {
      entry_reference: "W-404",
      amount: "-1.00",
      reason: "x",
    });
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /^entry_reference: /);
    const credit = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: "-20.00",
      reason: "waiting was 20 minutes, not 50",
    });
    assert.equal(credit.status, 201, JSON.stringify(credit.body));
    assert.equal(credit.body.data.entry.kind, "credit_note");
    assert.equal(credit.body.data.entry.corrects, "W-1");
    assert.equal(credit.body.data.entry.amount, -20);
    await settle(t);
    const tooMuch = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: -30.01,
      reason: "x",
    });
    assert.equal(tooMuch.body.code, "correction_exceeds_entry");
    // Amounts in the refusal as sent, in the currency's decimals (not minor units), with the field.
    assert.equal(
      tooMuch.body.message,
      "amount: a credit note cannot take the entry below zero: net 30.00, note -30.01 BWP",
    );
    const debit = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: 10,
      reason: "second wait",
      reference: "DN-1",
    });
    assert.equal(debit.status, 201);
    assert.equal(debit.body.data.entry.kind, "debit_note");
    const again = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: 10,
      reason: "second wait",
      reference: "DN-1",
    });
    assert.equal(again.status, 200);
    const stored = await rows(t, client);
    assert.deepEqual(stored.map((r) => [r.kind, r.amount_minor, r.corrects]), [
      ["waiting", 5_000, null],
      ["credit_note", -2_000, "W-1"],
      ["debit_note", 1_000, "W-1"],
    ]);
    assert.equal(stored[1]!.source_event, `credit_note.issued:${stored[1]!.reference}`);
    assert.equal((await view(t, courier, client)).balances.receivable, 40);
    await act(t, courier, client, "payment", { amount: 1, currency: "BWP", reference: "P-1" });
    await settle(t);
    const payment = await act(t, courier, client, "correct", {
      entry_reference: "P-1",
      amount: 1,
      reason: "x",
    });
    assert.equal(payment.body.code, "not_correctable");
  }));

Deno.test("billing: a credit note is judged against an earlier note still parked on the query side", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 5_000,
    });
    await settle(t);
    // The first note cannot be written to Postgres for a while (parked_changes.ts); the
    // account's later entries are, and move its watermark on.
    await sql`alter table ledger_entries add constraint poison
      check (reference not in ('CN-A', 'W-9'))`.execute(t.env.db);
    const body = { entry_reference: "W-1", amount: "-40.00", reason: "refund" };
    const first = await act(t, courier, client, "correct", { ...body, reference: "CN-A" });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    await settle(t);
    await charge(t, courier, client, { reference: "W-2", entry_kind: "waiting" });
    await settle(t);
    assert.deepEqual((await rows(t, client)).map((r) => r.reference), ["W-1", "W-2"]);
    // spec: courier 2.6 rule 5: a credit note may not take the entry below zero: 50.00 - 40.00
    // leaves 10.00, whether or not the statement shows the first note yet.
    const second = await act(t, courier, client, "correct", { ...body, reference: "CN-B" });
    assert.equal(second.body.code, "correction_exceeds_entry", JSON.stringify(second.body));
    const rest = await act(t, courier, client, "correct", {
      ...body,
      amount: "-10.00",
      reference: "CN-C",
    });
    assert.equal(rest.status, 201, JSON.stringify(rest.body));

    // A note on an entry the statement still parks is judged on what the account booked (its
    // charged entry), never on the statement: booked, not "not yet".
    await charge(t, courier, client, { reference: "W-9", entry_kind: "waiting" });
    const early = await act(t, courier, client, "correct", { ...body, entry_reference: "W-9" });
    assert.equal(early.status, 201, JSON.stringify(early.body));
    assert.equal(early.body.data.entry.corrects, "W-9");
    assert.equal(
      (await act(t, courier, client, "correct", { ...body, entry_reference: "W-8" }))
        .status,
      404,
    );

    await sql`alter table ledger_entries drop constraint poison`.execute(t.env.db);
    assert.equal(await t.projections["ledger"]!.retryParked(), 2);
    const onNine = await act(t, courier, client, "correct", {
      ...body,
      amount: "-1.00",
      entry_reference: "W-9",
    });
    assert.equal(onNine.status, 201, JSON.stringify(onNine.body));
    const none = await act(t, courier, client, "correct", { ...body, amount: "-0.01" });
    assert.equal(none.body.code, "correction_exceeds_entry", JSON.stringify(none.body));
  }));

Deno.test("billing: credit notes sent together are judged against each other, never below zero", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 5_000,
    });
    await settle(t);
    const body = { entry_reference: "W-1", amount: "-40.00", reason: "refund" };
    const answers = await Promise.all([
      act(t, courier, client, "correct", { ...body, reference: "CN-A" }),
      act(t, courier, client, "correct", { ...body, reference: "CN-B" }),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], JSON.stringify(answers));
    const refused = answers.find((a) => a.status === 422)!;
    assert.equal(refused.body.code, "correction_exceeds_entry");
    const stored = await rows(t, client);
    assert.equal(stored.reduce((n, r) => n + r.amount_minor, 0), 1_000);

    // Sequential notes, Postgres not caught up in between: still judged on the account.
    const ten = await act(t, courier, client, "correct", { ...body, amount: "-6.00" });
    assert.equal(ten.status, 201, JSON.stringify(ten.body));
    const over = await act(t, courier, client, "correct", { ...body, amount: "-4.01" });
    assert.equal(over.body.code, "correction_exceeds_entry", JSON.stringify(over.body));
    const last = await act(t, courier, client, "correct", {
      ...body,
      amount: "-4.00",
      reference: "CN-C",
    });
    assert.equal(last.status, 201, JSON.stringify(last.body));
    // The same note sent again (a lost answer) books once, even with the entry at zero.
    await settle(t);
    const again = await act(t, courier, client, "correct", {
      ...body,
      amount: "-4.00",
      reference: "CN-C",
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.entry.reference, "CN-C");
    const after = await rows(t, client);
    assert.equal(after.length, 4);
    assert.equal(after.reduce((n, r) => n + r.amount_minor, 0), 0);
  }));

Deno.test("billing: a note sent again under its Idempotency-Key is issued once; the key with other figures is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 10_000,
    });
    await settle(t);
    const send = (amount: string, key: string) =>
      t.call("POST", `/business/courier/clients/${client.id}/billing/correct`, {
        key: courier.business.api_key,
        headers: { "Idempotency-Key": key },
        body: { entry_reference: "W-1", amount, reason: "waiting overcharged" },
      });
    const first = await send("-30.00", "retry-me");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // A retry after a lost answer books nothing more: the note it made answers again.
    const again = await send("-30.00", "retry-me");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.entry.reference, first.body.data.entry.reference);
    const other = await send("-40.00", "retry-me");
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    // A reference of the form the key is kept under is refused: it would answer that note.
    const lookalike = await t.call(
      "POST",
      `/business/courier/clients/${client.id}/billing/correct`,
      {
        key: courier.business.api_key,
        body: {
          entry_reference: "W-1",
          amount: "-30.00",
          reason: "again",
          reference: "key:retry-me",
        },
      },
    );
    assert.equal(lookalike.status, 422, JSON.stringify(lookalike.body));
    assert.equal(lookalike.body.code, "validation_failed");
    assert.match(lookalike.body.message, /reference: must not begin "key:"/);
    const notes = (await rows(t, client)).filter((r) => r.kind === "credit_note");
    assert.equal(notes.length, 1);
    assert.equal(notes[0]!.amount_minor, -3_000);
  }));

Deno.test("billing: a note's reference never takes the one a claim's credit note is booked under, so the claim's credit is never answered by it", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { claim_window_days: 5 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "1000.00");
    const waybill = await bookWaybill(t, client);
    const granted = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer", "billing:view-own", "claims:approve"] },
    });
    assert.equal(granted.status, 200);
    const filed = await t.call("POST", "/business/courier/claims", {
      key: courier.business.api_key,
      body: { waybill, kind: "damage", amount: "25.00", description: "Crushed box" },
    });
    assert.equal(filed.status, 201, JSON.stringify(filed.body));
    const id = filed.body.data.id;
    await settle(t);
    // A goodwill note named after the claim, sent before the claim is decided.
    const goodwill = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-5.00",
      reason: "goodwill while the claim is open",
      reference: `CLM-${id}`,
    });
    assert.equal(goodwill.status, 422, JSON.stringify(goodwill.body));
    assert.equal(goodwill.body.code, "validation_failed");
    const decided = await t.call("POST", `/business/courier/claims/${id}/decide`, {
      key: courier.business.api_key,
      body: { outcome: "approved" },
    });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.data.credit_note.state, "booked");
    // spec: courier 2.6 rule 2, 5: the claim's credit note is its own entry, for the amount
    // approved; nothing else was booked under its reference.
    const notes = (await rows(t, client)).filter((r) => r.kind === "credit_note");
    assert.deepEqual(notes.map((n) => [n.reference, Number(n.amount_minor)]), [
      [`CLM-${id}`, -2_500],
    ]);
  }));

Deno.test("billing: a note on a note is refused; the client is never credited past what it was charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 5_000,
    });
    await settle(t);
    const debit = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: "10.00",
      reason: "second wait",
      reference: "DN-1",
    });
    assert.equal(debit.status, 201, JSON.stringify(debit.body));
    await settle(t);
    // spec: courier 2.6 rule 5: a note points at the original entry, never at another note.
    const onNote = await act(t, courier, client, "correct", {
      entry_reference: "DN-1",
      amount: "-10.00",
      reason: "second wait was not charged",
    });
    assert.equal(onNote.status, 422, JSON.stringify(onNote.body));
    assert.equal(onNote.body.code, "not_correctable");
    // A note that takes the reference of the charge still lets the charge be corrected by name.
    const same = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: "-10.00",
      reason: "second wait was not charged",
      reference: "W-1",
    });
    assert.equal(same.status, 201, JSON.stringify(same.body));
    await settle(t);
    const all = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: "-50.00",
      reason: "no wait at all",
    });
    assert.equal(all.status, 201, JSON.stringify(all.body));
    await settle(t);
    const over = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: "-0.01",
      reason: "x",
    });
    assert.equal(over.body.code, "correction_exceeds_entry");
    const v = await view(t, courier, client);
    assert.equal(v.balances.receivable, 0);
    assert.equal(v.balances.owed, 0);
  }));

Deno.test("billing: a note on an entry booked a moment before finds it, never 404 while the statement catches up", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    // spec: courier 2.6 rule 5, 4.2 correct: the entry exists once its posting answered; the
    // note is not refused as if it did not while the query side is still writing it.
    for (let i = 0; i < 8; i++) {
      await charge(t, courier, client, { reference: `LAG-${i}`, amount_minor: 10_000 });
      const r = await act(t, courier, client, "correct", {
        entry_reference: `LAG-${i}`,
        amount: "-1.00",
        reason: "goodwill",
      });
      assert.equal(r.status, 201, `note ${i}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.data.entry.corrects, `LAG-${i}`);
    }
    const waybill = await book(t, client);
    const note = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-1.00",
      reason: "goodwill",
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
  }));

/**
 * Debit and credit notes as a flow (courier 2.6 rule 5, 4.2 `correct`), called without HTTP: the
 * entry a note points at, once per reference or Idempotency-Key, its amount in the entry's
 * currency.
 */
import assert from "node:assert/strict";
import { asPosting } from "../../../actors/courier/courier_client.ts";
import { bookNote, correctEntry } from "../../../src/courier/flows/billing/notes.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { account, charge, fieldOf, must, refused } from "./billing_helpers.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";

Deno.test("billing flows: a note points at the one entry holding its reference; a payment is no target, several kinds need entry_kind", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    await charge(t, a, "W-1", 2_000, { kind: "redelivery" });
    await must(t, a.caller.courier, a.client, {
      kind: "payment",
      amount_minor: 100,
      currency: "BWP",
      reference: "W-2",
      by: "test",
    }, entryAsk("payment:W-2"));
    await charge(t, a, "W-2", 3_000);
    const note = { amount: "-1.00", reason: "overcharged" };
    const missing = await refused(
      correctEntry(t.env, a.caller, a.client, { ...note, entry_reference: "W-9" }, null),
      "not_found",
    );
    assert.equal(missing.message, "entry_reference: ledger entry not found: W-9");
    const both = await refused(
      correctEntry(t.env, a.caller, a.client, { ...note, entry_reference: "W-1" }, null),
      "reference_conflict",
    );
    assert.equal(
      both.message,
      "entries of several kinds hold reference W-1 (redelivery, waiting): name one with entry_kind",
    );
    const named = await correctEntry(t.env, a.caller, a.client, {
      ...note,
      entry_reference: "W-1",
      entry_kind: "redelivery",
    }, null);
    assert.equal(asPosting(named.reply).entry.corrects_kind, "redelivery");
    // The payment quoting W-2 is money received: the charge is the note's target.
    const onCharge = await correctEntry(t.env, a.caller, a.client, {
      ...note,
      entry_reference: "W-2",
    }, null);
    assert.equal(asPosting(onCharge.reply).entry.corrects_kind, "waiting");
  }));

Deno.test("billing flows: a note without a reference books once per key; the key with other figures is refused naming it", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    const input = { entry_reference: "W-1", amount: "-5.00", reason: "waited less" };
    const first = await correctEntry(t.env, a.caller, a.client, input, "key-1");
    assert.equal(first.replayed, false);
    const entry = asPosting(first.reply).entry;
    assert.equal(entry.kind, "credit_note");
    assert.equal(entry.amount_minor, -500);
    const again = await correctEntry(t.env, a.caller, a.client, input, "key-1");
    assert.equal(again.replayed, true);
    assert.equal(asPosting(again.reply).entry.reference, entry.reference);
    const other = await refused(
      correctEntry(t.env, a.caller, a.client, { ...input, amount: "-6.00" }, "key-1"),
      "reference_conflict",
    );
    assert.equal(
      other.message,
      "Idempotency-Key already booked another credit_note entry (-5.00 BWP on W-1): key-1",
    );
    // Without a reference or a key every call issues a note.
    const plain = await correctEntry(t.env, a.caller, a.client, input, null);
    assert.notEqual(asPosting(plain.reply).entry.reference, entry.reference);
    // A reference of its own books once by it, whatever the key.
    const named = { ...input, amount: "1.00", reference: "DN-1" };
    await correctEntry(t.env, a.caller, a.client, named, "key-2");
    const conflict = await refused(
      correctEntry(t.env, a.caller, a.client, { ...named, amount: "2.00" }, null),
      "reference_conflict",
    );
    assert.match(conflict.message, /^reference already booked another debit_note entry /);
  }));

Deno.test("billing flows: a note's amount is a non-zero decimal of the entry's currency, refused naming the field", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    for (const amount of ["0", "-0.00", "1.005"]) {
      const r = await refused(
        correctEntry(t.env, a.caller, a.client, {
          entry_reference: "W-1",
          amount,
          reason: "x",
        }, null),
        "validation_failed",
      );
      assert.equal(fieldOf(r), "amount");
    }
    // The account judges the rest: no credit past what the entry holds.
    await refused(
      correctEntry(t.env, a.caller, a.client, {
        entry_reference: "W-1",
        amount: "-50.01",
        reason: "x",
      }, null),
      "correction_exceeds_entry",
    );
  }));

Deno.test("billing flows: bookNote answers the account's refusal for its caller to judge, and books a claim's compensation past the price", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "WB1", 5_000, { kind: "redelivery", shipment: "WB1" });
    const note = (amount: number, compensation: boolean) => () => ({
      amount_minor: amount,
      reason: "claim clm_1 (loss) approved",
      reference: `CLM-${compensation}`,
      evidence_path: null,
      compensation,
      by: "claims",
    });
    const target = { reference: "WB1", kind: "redelivery" as const };
    const over = await bookNote(t.env, a.caller.courier, a.client, target, note(-9_000, false), {});
    assert.ok(!over.ok && over.code === "correction_exceeds_entry", JSON.stringify(over));
    const paid = await bookNote(
      t.env,
      a.caller.courier,
      a.client,
      target,
      note(-9_000, true),
      entryAsk("note:CLM-true"),
    );
    assert.ok(paid.ok, JSON.stringify(paid));
    // The note clears the entry (courier 2.6 rule 5); the rest is the claim's compensation (2.4).
    assert.deepEqual(
      [asPosting(paid.reply).entry.kind, asPosting(paid.reply).entry.amount_minor],
      ["credit_note", -5_000],
    );
    await t.settle();
    const booked = await t.env.db.selectFrom("ledger_entries").select(["kind", "amount_minor"])
      .where("reference", "=", "CLM-true").orderBy("seq").execute();
    assert.deepEqual(booked.map((e) => [e.kind, Number(e.amount_minor)]), [
      ["credit_note", -5_000],
      ["compensation", -4_000],
    ]);
  }));

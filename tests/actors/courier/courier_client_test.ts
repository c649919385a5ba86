/** The client account's charges, conversions and notes, through its pure decide and evolve (courier 6). */
import assert from "node:assert/strict";
import {
  accountBalances,
  balancesOf,
  type OriginalEntry,
} from "../../../actors/courier/client_ledger.ts";
import {
  NOTES_IN_FLIGHT_MAX,
  owedMinor,
  uninvoicedMinor,
  UNRESOLVED_FX_MAX,
} from "../../../src/courier/rules/ledger.ts";
import { NOTE_ADJUSTMENTS_MAX, STATE_BYTES_MAX } from "../../../src/limits.ts";
import { Account, DAY, original, postedEntries, sumOf, T0 } from "./courier_client_fixtures.ts";

Deno.test("client account: a later charge posts as its own entry with payer, reason and source event", () => {
  const a = new Account();
  const r = a.charge({ reference: "CUS-1", evidence_path: "s3://evidence/cus-1.pdf" });
  assert.ok(r.ok);
  const e = a.entry("CUS-1");
  assert.equal(e.kind, "customs_admin");
  assert.equal(e.payer, "client");
  assert.equal(e.status, "posted");
  assert.equal(e.source_event, "customs.cleared:CUS-1");
  assert.equal(e.reason, "customs administration");
  assert.equal(e.period, "2026-10");
  assert.equal(e.seq, 1);
  assert.equal(a.client.money.receivable_minor, 7_500);
  assert.equal(
    a.refused({
      kind: "post_charge",
      reference: "X",
      entry_kind: "waiting",
      amount_minor: 0,
      currency: "BWP",
      reason: "waiting",
      evidence_path: null,
      source_event: "run.waiting:1",
      shipment: null,
      recoverable: false,
      by: "test",
    }),
    "invalid_amount",
  );
});

Deno.test("client account: duties are recoverable, kept apart from the receivable and need evidence", () => {
  const a = new Account();
  a.charge({ reference: "CUS-1" });
  assert.equal(
    a.charge({ reference: "DUT-1", entry_kind: "duties", recoverable: true }).ok,
    false,
    "duties without evidence are refused",
  );
  assert.ok(
    a.charge({
      reference: "DUT-1",
      entry_kind: "duties",
      recoverable: true,
      amount_minor: 20_000,
      evidence_path: "s3://evidence/duties-1.pdf",
    }).ok,
  );
  const b = accountBalances(a.client);
  assert.equal(b.receivable_minor, 7_500, "duties are not revenue");
  assert.equal(b.recoverable_minor, 20_000);
  assert.equal(b.available_minor, 500_000 - 27_500, "yet owed: they use credit");
  assert.equal(b.owed_minor, 27_500);
  assert.equal(a.entry("DUT-1").recoverable, true);
});

Deno.test("client account: a charge in another currency with a rate records the conversion", () => {
  const a = new Account();
  a.charge({
    reference: "DUT-ZA",
    entry_kind: "duties",
    recoverable: true,
    evidence_path: "s3://e.pdf",
    amount_minor: 123_456, // 1,234.56 ZAR
    currency: "ZAR",
    fx: { rate: "0.75250000", source: "Bank of Botswana 2026-10-12" },
  });
  const e = a.entry("DUT-ZA");
  assert.equal(e.currency, "BWP");
  assert.equal(e.amount_minor, 92_901); // 1,234.56 x 0.7525 = 929.0064 -> 929.01
  assert.equal(e.original_amount_minor, 123_456);
  assert.equal(e.original_currency, "ZAR");
  assert.equal(e.fx_rate, "0.7525");
  assert.equal(e.fx_source, "Bank of Botswana 2026-10-12");
  assert.equal(a.client.ledger.recoverable_minor, 92_901);
});

Deno.test("client account: a charge whose rate converts it to nothing is refused, never posted as 0.00", () => {
  const a = new Account();
  const sent = a.send({
    kind: "post_charge",
    reference: "CUS-ZA",
    entry_kind: "customs_admin",
    amount_minor: 10_000, // 100.00 ZAR at 0.0000001: 0.00001 BWP
    currency: "ZAR",
    reason: "customs administration",
    evidence_path: null,
    source_event: "customs.cleared:CUS-ZA",
    shipment: null,
    recoverable: false,
    fx: { rate: "0.0000001", source: "Bank of Botswana" },
    by: "t",
  });
  assert.equal(sent.ok ? "" : sent.code, "invalid_fx_rate");
  assert.match(sent.ok ? "" : sent.message, /^fx\.rate: /);
  assert.equal(a.client.ledger.seq, 0, "nothing booked");
});

Deno.test("client account: without a rate a charge is unresolved_fx, out of balances, then resolved", () => {
  const a = new Account();
  a.charge({ reference: "CUS-ZA", amount_minor: 10_000, currency: "ZAR" });
  const e = a.entry("CUS-ZA");
  assert.equal(e.status, "unresolved_fx");
  assert.equal(e.currency, "ZAR");
  assert.equal(e.amount_minor, 10_000, "kept in its own currency, never one-to-one");
  assert.equal(a.client.money.receivable_minor, 0);
  assert.equal(owedMinor(balancesOf(a.client)), 0);
  assert.deepEqual(a.client.ledger.unresolved.map((u) => u.reference), ["CUS-ZA"]);
  assert.equal(uninvoicedMinor(a.client.ledger, "BWP"), 0);
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "nothing_to_invoice",
  );

  assert.equal(
    a.refused({
      kind: "resolve_fx",
      reference: "CUS-ZA",
      rate: "0.1234567891",
      source: "x",
      by: "t",
    }),
    "invalid_fx_rate",
  );
  assert.equal(
    a.refused({ kind: "resolve_fx", reference: "NOPE", rate: "0.75", source: "x", by: "t" }),
    "not_found",
  );
  a.now += 40 * DAY; // resolved in November: booked in November, arose in October
  a.must({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.7525", source: "BoB", by: "t" });
  const resolved = a.entry("CUS-ZA");
  assert.equal(resolved.status, "posted");
  assert.equal(resolved.amount_minor, 7_525);
  assert.equal(resolved.currency, "BWP");
  assert.equal(resolved.original_amount_minor, 10_000);
  assert.equal(resolved.period, "2026-11");
  assert.equal(resolved.created_at, a.now);
  assert.equal(resolved.charged_at, T0);
  assert.equal(a.client.money.receivable_minor, 7_525);
  assert.deepEqual(a.client.ledger.unresolved, []);
  assert.equal(a.client.ledger.periods["2026-11|BWP"]?.uninvoiced_minor, 7_525);
  assert.equal(a.client.ledger.periods["2026-10|BWP"], undefined, "October is left as it was");
  assert.equal(
    a.refused({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.75", source: "x", by: "t" }),
    "not_found",
    "a conversion resolves once",
  );
});

Deno.test("client account: charges awaiting a rate are bounded and refused beyond with a clear code", () => {
  const a = new Account();
  for (let i = 0; i < UNRESOLVED_FX_MAX; i++) {
    assert.ok(a.charge({ reference: `U-${i}`, currency: "USD" }).ok);
  }
  const r = a.charge({ reference: "U-over", currency: "USD" });
  assert.equal(r.ok ? "" : r.code, "unresolved_fx_limit");
  // A charge with its rate still posts.
  assert.ok(
    a.charge({ reference: "U-rated", currency: "USD", fx: { rate: "13.6", source: "x" } }).ok,
  );
});

Deno.test("client account: a correction is a debit or credit note pointing at the original", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  const credit = a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: -2_000,
    reason: "waiting time was 20 minutes, not 50",
    by: "t",
  });
  assert.ok(credit && "entry" in credit);
  assert.equal(credit.entry.kind, "credit_note");
  assert.equal(credit.entry.corrects, "W-1");
  assert.equal(credit.entry.amount_minor, -2_000);
  assert.equal(credit.entry.source_event, `credit_note.issued:${credit.entry.reference}`);
  assert.equal(a.client.money.receivable_minor, 3_000);
  assert.equal(
    a.refused({
      kind: "correct",
      original: original(a, "W-1"),
      seen_seq: a.client.ledger.seq,
      amount_minor: -3_001,
      reason: "too much",
      by: "t",
    }),
    "correction_exceeds_entry",
  );
  const debit = a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: 1_000,
    reason: "second wait",
    reference: "DN-7",
    by: "t",
  });
  assert.ok(debit && "entry" in debit);
  assert.equal(debit.entry.kind, "debit_note");
  assert.equal(debit.entry.reference, "DN-7");
  assert.equal(a.client.money.receivable_minor, 4_000);
  // The original entry is untouched: still 50.00.
  assert.equal(a.entry("W-1").amount_minor, 5_000);
});

Deno.test("client account: a note is judged with the notes Postgres had not seen when it was read", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  // Postgres held the charge (seq 1) and no note when both notes were read.
  const stale = { ...original(a, "W-1"), net_minor: 5_000 };
  const note = (amount: number, seen: number) =>
    a.send({
      kind: "correct",
      original: stale,
      seen_seq: seen,
      amount_minor: amount,
      reason: "refund",
      by: "t",
    });
  assert.ok(note(-4_000, 1).ok);
  const second = note(-4_000, 1);
  assert.equal(second.ok ? "" : second.code, "correction_exceeds_entry");
  assert.ok(note(-1_000, 1).ok, "up to zero");
  assert.equal(a.client.ledger.notes?.pending.length, 2);
  // A read that saw both notes (seq 3) lets the account drop them; an older read is read again.
  const seen = a.send({
    kind: "correct",
    original: { ...stale, net_minor: 0 },
    seen_seq: 3,
    amount_minor: 500,
    reason: "debit",
    by: "t",
  });
  assert.ok(seen.ok);
  assert.deepEqual(a.client.ledger.notes, {
    seen_seq: 3,
    pending: [
      { corrects: "W-1", corrects_kind: "waiting", seq: 4, amount_minor: 500, shipment: "WB1" },
    ],
  });
  const old = note(-100, 2);
  assert.equal(old.ok ? "" : old.code, "ledger_catching_up");
});

Deno.test("client account: a note joins fewer than NOTE_ADJUSTMENTS_MAX adjustments of its shipment, those in flight counted", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000, shipment: "WB1" });
  a.charge({ reference: "W-2", entry_kind: "waiting", amount_minor: 5_000, shipment: "WB2" });
  // spec: courier 2.7: Postgres held one short of the bound on WB1 when the entry was read.
  const full = { ...original(a, "W-1"), shipment_adjustments: NOTE_ADJUSTMENTS_MAX - 1 };
  const note = (o: OriginalEntry) =>
    a.send({ kind: "correct", original: o, seen_seq: 2, amount_minor: 1, reason: "d", by: "t" });
  assert.ok(note(full).ok);
  const refused = note(full);
  assert.equal(refused.ok ? "" : refused.code, "adjustments_limit");
  assert.ok(note({ ...original(a, "W-2"), shipment_adjustments: 1 }).ok, "another shipment's");
});

Deno.test("client account: notes awaiting Postgres are bounded; a later read makes room", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  const o = original(a, "W-1");
  const debit = (seen: number) =>
    a.send({ kind: "correct", original: o, seen_seq: seen, amount_minor: 1, reason: "d", by: "t" });
  for (let i = 0; i < NOTES_IN_FLIGHT_MAX; i++) assert.ok(debit(1).ok);
  const full = debit(1);
  assert.equal(full.ok ? "" : full.code, "ledger_catching_up");
  assert.ok(debit(1 + NOTES_IN_FLIGHT_MAX).ok, "Postgres caught up: the old notes are let go");
  assert.equal(a.client.ledger.notes?.pending.length, 1);
  assert.ok(JSON.stringify(a.client).length < STATE_BYTES_MAX);
});

Deno.test("client account: a note on a note is refused: a correction points at the original entry", () => {
  // spec: courier 2.6 rule 5. Chained, a credit note on a debit note and a credit note on the
  // charge each stayed within "their" entry, yet credited the client more than it was charged.
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: 1_000,
    reason: "second wait",
    reference: "DN-1",
    by: "t",
  });
  assert.equal(
    a.refused({
      kind: "correct",
      original: original(a, "DN-1"),
      seen_seq: a.client.ledger.seq,
      amount_minor: -1_000,
      reason: "second wait was not charged",
      by: "t",
    }),
    "not_correctable",
  );
  a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: -6_000,
    reason: "no wait at all",
    by: "t",
  });
  assert.equal(a.client.money.receivable_minor, 0, "never below what was charged");
  assert.equal(sumOf(postedEntries(a.events)), 0);
});

Deno.test("client users: a password change checked under a session epoch that has moved is refused unauthenticated and changes nothing", () => {
  const a = new Account();
  a.must({
    kind: "add_user",
    user: {
      id: "cus_1",
      email: "dispatch@example.com",
      name: "Dispatch",
      role: "client_admin",
      password_hash: "hash-0",
      must_change_password: true,
      session_epoch: 0,
    },
    by: "test",
  });
  const change = (password_hash: string) =>
    a.send({ kind: "change_password", user_id: "cus_1", password_hash, session_epoch: 0, by: "t" });
  assert.equal(change("hash-1").ok, true);
  // spec: courier 5: the first change signed the other sessions (epoch 0) out.
  const late = change("hash-2");
  assert.equal(late.ok, false);
  assert.equal(!late.ok && late.code, "unauthenticated");
  const user = a.client.users.find((u) => u.id === "cus_1");
  assert.equal(user?.password_hash, "hash-1");
  assert.equal(user?.session_epoch, 1);
});

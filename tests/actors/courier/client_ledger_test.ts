/**
 * The money part of the client account (actors/courier/client_ledger.ts, decided and evolved by
 * the client actor; courier 2.6 ledger entries and rules 1 to 6, 4.2 settlement modes and billing
 * actions). courier_client_test.ts walks the ledger's flows; this file holds each refusal with its
 * message, and the property that what the client owes is the sum of its posted entries.
 */
import assert from "node:assert/strict";
import {
  accountBalances,
  balancesOf,
  NOT_CORRECTABLE,
} from "../../../actors/courier/client_ledger.ts";
import { REFERENCE_CHARS_MAX, TEXT_CHARS_MAX } from "../../../src/courier/rules/ledger.ts";
import { AMOUNT_MINOR_MAX } from "../../../src/domain/money.ts";
import {
  account,
  charge,
  correct,
  DAY,
  entriesOf,
  original,
  pay,
  T0,
} from "./client_ledger_fixtures.ts";

Deno.test("client ledger: a later charge out of bounds is refused, naming what is wrong", () => {
  const h = account();
  for (const amount_minor of [0, -100, 1.5]) {
    h.refused(charge({ amount_minor }), "invalid_amount", "a charge must be above zero");
  }
  for (const reference of ["  ", "R".repeat(REFERENCE_CHARS_MAX + 1)]) {
    h.refused(
      charge({ reference, source_event: "x" }),
      "invalid_reference",
      `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`,
    );
  }
  const needs = "a later charge needs a reason and its source event";
  h.refused(charge({ reason: " " }), "reason_required", needs);
  h.refused(charge({ reason: "r".repeat(TEXT_CHARS_MAX + 1) }), "reason_required", needs);
  h.refused(charge({ source_event: "" }), "reason_required", needs);
  // spec: courier 7: duties need evidence.
  h.refused(
    charge({ entry_kind: "duties", recoverable: true }),
    "evidence_required",
    "duties need evidence: CH-1",
  );
});

Deno.test("client ledger: a conversion states a valid rate and its source, and never overflows", () => {
  const h = account();
  const usd = (fx: { rate: string; source: string }, amount_minor = 1_000) =>
    charge({ currency: "USD", amount_minor, fx });
  h.refused(
    usd({ rate: "abc", source: "bank" }),
    "invalid_fx_rate",
    "fx.rate: an FX rate is a decimal with up to 7 integer digits and 8 places: abc",
  );
  h.refused(usd({ rate: "0.000000001", source: "bank" }), "invalid_fx_rate");
  h.refused(
    usd({ rate: "0", source: "bank" }),
    "invalid_fx_rate",
    "fx.rate: an FX rate must be above zero: 0",
  );
  h.refused(
    usd({ rate: "13.5", source: "  " }),
    "fx_source_required",
    "fx.source: a conversion records the source of its rate",
  );
  h.refused(
    usd({ rate: "9999999", source: "bank" }, AMOUNT_MINOR_MAX),
    "amount_too_large",
    `fx.rate: ${"9999999999999.99"} USD at 9999999 would pass 9999999999999.99 BWP: nothing was booked`,
  );
  const step = h.must(usd({ rate: "13.50000000", source: "Bank of Botswana" }));
  const entry = entriesOf(step.events)[0]!;
  assert.deepEqual(
    [
      entry.amount_minor,
      entry.currency,
      entry.original_amount_minor,
      entry.original_currency,
      entry.fx_rate,
    ],
    [13_500, "BWP", 1_000, "USD", "13.5"],
  );
});

Deno.test("client ledger: resolving a rate needs a charge awaiting one, a valid rate and its source", () => {
  const h = account();
  h.must(charge({ currency: "USD", amount_minor: 2_000 }));
  h.refused(
    { kind: "resolve_fx", reference: "NOPE", rate: "13.5", source: "bank", by: "test" },
    "not_found",
    "entry_reference: no charge awaits an FX rate: NOPE",
  );
  h.refused(
    { kind: "resolve_fx", reference: "CH-1", rate: "-1", source: "bank", by: "test" },
    "invalid_fx_rate",
    "rate: an FX rate is a decimal with up to 7 integer digits and 8 places: -1",
  );
  h.refused(
    { kind: "resolve_fx", reference: "CH-1", rate: "13.5", source: "", by: "test" },
    "fx_source_required",
    "source: a conversion records the source of its rate",
  );
  h.refused(
    { kind: "resolve_fx", reference: "CH-1", rate: "0.00000001", source: "bank", by: "test" },
    "invalid_fx_rate",
    "rate: 20.00 USD at 0.00000001 converts to 0.00 BWP: a charge is never booked as nothing; " +
      "check the rate",
  );
  // spec: courier 2.6 rule 4: booked when it gets its rate, in that period, keeping when it arose.
  h.now = T0 + 40 * DAY;
  const step = h.must({
    kind: "resolve_fx",
    reference: "CH-1",
    rate: "13.5",
    source: "bank",
    by: "test",
  });
  const resolved = step.events[0];
  assert.ok(resolved?.kind === "fx_resolved");
  assert.deepEqual(
    [resolved.resolution.period, resolved.resolution.charged_at, resolved.resolution.amount_minor],
    ["2026-11", T0, 27_000],
  );
  assert.equal(accountBalances(h.state!).owed_minor, 27_000);
  h.refused(
    { kind: "resolve_fx", reference: "CH-1", rate: "13.5", source: "bank", by: "test" },
    "not_found",
  );
});

Deno.test("client ledger: payments are for credit accounts, in the billing currency, above zero", () => {
  account({ settlement_mode: "prepaid" }).refused(
    pay(100),
    "not_credit",
    "payment is for credit accounts; a prepaid account is topped up: settles prepaid",
  );
  account({ settlement_mode: "external" }).refused(
    pay(100),
    "external_settlement",
    "the courier settles this client in its own accounting system: no payment here",
  );
  const h = account();
  h.refused(pay(0), "invalid_amount", "a payment must be above zero");
  h.refused(
    pay(100, { currency: "ZAR" }),
    "currency_mismatch",
    "currency: the account bills in BWP and owes nothing in another currency: ZAR",
  );
  h.refused(
    pay(100, { reference: " " }),
    "invalid_reference",
    `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`,
  );
  h.refused(
    pay(100, { allocations: [{ invoice_id: "inv_x", amount_minor: 0 }] }),
    "invalid_amount",
    "an allocation must be above zero",
  );
  // A payment before anything is owed is credit on account.
  const step = h.must(pay(5_000));
  assert.equal(accountBalances(h.state!).unallocated_minor, 5_000);
  assert.equal(accountBalances(h.state!).owed_minor, -5_000);
  assert.deepEqual(entriesOf(step.events)[0]?.amount_minor, -5_000);
});

Deno.test("client ledger: allocations name open invoices of the currency, once, within balance and payment", () => {
  const h = account();
  h.must(charge({ amount_minor: 10_000 }));
  const issued = h.must({ kind: "issue_invoice", period: "2026-10", by: "test" });
  const invoice = h.state!.ledger.invoices[0]!;
  assert.ok(issued.events.length === 1 && invoice.amount_minor === 10_000);
  // An invoice the client does not hold (another client's too) is one nobody holds.
  h.refused(
    pay(100, { allocations: [{ invoice_id: "inv_none", amount_minor: 100 }] }),
    "not_found",
    "allocations.0.invoice_id: no such invoice: inv_none",
  );
  h.refused(
    pay(200, {
      allocations: [{ invoice_id: invoice.id, amount_minor: 100 }, {
        invoice_id: invoice.id,
        amount_minor: 100,
      }],
    }),
    "duplicate_allocation",
    `allocations.1.invoice_id: invoice allocated twice: ${invoice.id}`,
  );
  h.refused(
    pay(20_000, { allocations: [{ invoice_id: invoice.id, amount_minor: 10_001 }] }),
    "allocation_exceeds_invoice",
    `allocations.0.amount: above the invoice balance: invoice ${invoice.id}, balance 100.00, ` +
      "allocated 100.01 BWP",
  );
  h.refused(
    pay(50, { allocations: [{ invoice_id: invoice.id, amount_minor: 100 }] }),
    "allocations_exceed_payment",
    "allocations: add up to more than the payment: 1.00 > 0.50 BWP",
  );
  const paid = h.must(
    pay(4_000, { allocations: [{ invoice_id: invoice.id, amount_minor: 4_000 }] }),
  );
  assert.ok(paid.reply && "requested" in paid.reply);
  assert.deepEqual(paid.reply.requested, [{ invoice_id: invoice.id, amount_minor: 4_000 }]);
});

Deno.test("client ledger: a correction is a reasoned non-zero note on an entry that can take it", () => {
  const h = account();
  h.must(charge({ amount_minor: 10_000 }));
  h.refused(correct(h, "CH-1", 0), "invalid_amount", "a correction is a non-zero amount");
  h.refused(correct(h, "CH-1", 500, { reason: " " }), "reason_required", "a note needs a reason");
  h.refused(
    correct(h, "CH-1", 500, { compensation: true }),
    "invalid_amount",
    "compensation is a credit note: a negative amount",
  );
  h.refused(
    correct(h, "CH-1", -10_001),
    "correction_exceeds_entry",
    "amount: a credit note cannot take the entry below zero: net 100.00, note -100.01 BWP",
  );
  // spec: courier 2.4: a claim's compensation may exceed what the entry still holds: a credit
  // note takes the entry to zero (2.6 rule 5), the rest is compensation, in one commit.
  const comp = h.must(correct(h, "CH-1", -25_000, { compensation: true, reference: "CLM-clm_1" }));
  assert.deepEqual(
    entriesOf(comp.events).map((e) => [e.kind, e.reference, e.corrects, e.amount_minor, e.seq]),
    [["credit_note", "CLM-clm_1", "CH-1", -10_000, 2], [
      "compensation",
      "CLM-clm_1",
      null,
      -15_000,
      3,
    ]],
  );
  assert.equal(original(h, "CH-1").net_minor, 0);
  // Nothing left on the entry: a second claim's credit is compensation alone.
  const more = h.must(correct(h, "CH-1", -500, { compensation: true, reference: "CLM-clm_2" }));
  assert.deepEqual(entriesOf(more.events).map((e) => [e.kind, e.amount_minor]), [
    ["compensation", -500],
  ]);
  h.must(pay(1_000, { reference: "PAY-X" }));
  h.refused(
    correct(h, "PAY-X", 100),
    "not_correctable",
    "a payment entry is not corrected by a note: PAY-X",
  );
  const onNote = { ...original(h, "CH-1"), reference: "CLM-clm_1", kind: "credit_note" as const };
  h.refused(
    { ...correct(h, "CH-1", 100), original: onNote },
    "not_correctable",
    "a credit_note entry is not corrected by a note; correct the entry it points at: CLM-clm_1",
  );
  assert.deepEqual(NOT_CORRECTABLE, [
    "top_up",
    "payment",
    "cod_remitted",
    "debit_note",
    "credit_note",
    "compensation",
  ]);
});

Deno.test("client ledger: a note names itself by a generated reference and its issue event", () => {
  const h = account();
  h.must(charge({ amount_minor: 10_000 }));
  const debit = entriesOf(h.must(correct(h, "CH-1", 1_500)).events)[0]!;
  assert.match(debit.reference, /^dn_\d+$/);
  assert.equal(debit.source_event, `debit_note.issued:${debit.reference}`);
  const credit = entriesOf(h.must(correct(h, "CH-1", -500)).events)[0]!;
  assert.match(credit.reference, /^cn_\d+$/);
  assert.equal(accountBalances(h.state!).owed_minor, 11_000);
  h.refused(
    correct(h, "CH-1", 100, { reference: "R".repeat(REFERENCE_CHARS_MAX + 1) }),
    "invalid_reference",
  );
});

Deno.test("client ledger: an entry awaiting its rate is resolved before it is corrected", () => {
  const h = account();
  h.must(charge({ currency: "USD", amount_minor: 2_000 }));
  h.refused(
    correct(h, "CH-1", -100),
    "fx_unresolved",
    "resolve the FX rate of the entry first: CH-1",
  );
});

Deno.test("client ledger: a note on an external entry stays external and posts nothing", () => {
  const h = account({ settlement_mode: "external" });
  h.must(charge({ amount_minor: 10_000 }));
  const note = entriesOf(h.must(correct(h, "CH-1", -2_000)).events)[0]!;
  assert.equal(note.status, "external");
  assert.deepEqual(balancesOf(h.state!), {
    prepaid_minor: 0,
    receivable_minor: 0,
    recoverable_minor: 0,
  });
  h.refused(
    { kind: "issue_invoice", period: "2026-10", by: "test" },
    "external_settlement",
    "the courier settles this client in its own accounting system: no invoice here",
  );
});

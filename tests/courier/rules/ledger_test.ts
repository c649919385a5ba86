import assert from "node:assert/strict";
import {
  ageing,
  allocate,
  bookInvoices,
  bucketOf,
  chargeEffect,
  convertMinor,
  daysPastDue,
  dueOn,
  dutiesAllocated,
  EMPTY_BOOK,
  type Invoice,
  INVOICES_RECENT_MAX,
  isPeriod,
  type LedgerBook,
  otherBalancesOf,
  owedMinor,
  parseRate,
  periodOf,
  pruneInvoices,
  receiptEffect,
  withOtherEffect,
} from "../../../src/courier/rules/ledger.ts";

function invoice(id: string, fields: Partial<Invoice> = {}): Invoice {
  return {
    id,
    period: "2026-10",
    currency: "BWP",
    amount_minor: 10_000,
    paid_minor: 0,
    supplementary: false,
    issued_at: Date.parse("2026-11-01T00:00:00Z"),
    due_on: "2026-12-01",
    watermark: 1,
    entries: 1,
    ...fields,
  };
}

Deno.test("parseRate() reads exact decimals into 10^-8 units and a canonical text", () => {
  assert.deepEqual(parseRate("0.07340000"), { ok: true, units: 7_340_000, text: "0.0734" });
  assert.deepEqual(parseRate("0010.5"), { ok: true, units: 1_050_000_000, text: "10.5" });
  assert.deepEqual(parseRate("1"), { ok: true, units: 100_000_000, text: "1" });
  assert.deepEqual(parseRate("9999999.99999999"), {
    ok: true,
    units: 999_999_999_999_999,
    text: "9999999.99999999",
  });
  for (const bad of ["0", "0.000000000", "-1.2", "1.123456789", "1e-7", "12345678", "", "1,5"]) {
    assert.equal(parseRate(bad).ok, false, bad);
  }
});

Deno.test("parseRate() bounds the rate's value, not how it is written: leading and trailing zeros say nothing", () => {
  // A bank feed's fixed 10 places, or a padded integer part, state a rate within 8 places exactly.
  assert.deepEqual(parseRate("0.0752500000"), { ok: true, units: 7_525_000, text: "0.07525" });
  assert.deepEqual(parseRate("1.000000000"), { ok: true, units: 100_000_000, text: "1" });
  assert.deepEqual(parseRate("00000001.5"), { ok: true, units: 150_000_000, text: "1.5" });
  // Past the bounds in value: still refused, never rounded.
  for (const bad of ["1.1234567891", "0.000000001", "12345678.0", "000012345678"]) {
    assert.equal(parseRate(bad).ok, false, bad);
  }
});

Deno.test("convertMinor() converts exactly across 0, 2 and 3 decimal currencies", () => {
  const rate = (r: string) => {
    const p = parseRate(r);
    if (!p.ok) throw new Error(p.message);
    return p.units;
  };
  // 100.00 BWP at 10.75 JPY per BWP: 1,075 yen (JPY has no minor unit).
  assert.equal(convertMinor(10_000, "BWP", "JPY", rate("10.75")), 1_075);
  // 1,234 JPY at 0.0921: 113.6514 BWP -> 113.65.
  assert.equal(convertMinor(1_234, "JPY", "BWP", rate("0.0921")), 11_365);
  // 12.345 KWD at 44.12345678: 544.7040739491 BWP -> 544.70.
  assert.equal(convertMinor(12_345, "KWD", "BWP", rate("44.12345678")), 54_470);
  // 100.00 BWP at 0.02266: 2.266 KWD, three places kept.
  assert.equal(convertMinor(10_000, "BWP", "KWD", rate("0.02266")), 2_266);
  // 1.000 KWD at 475.12345678 JPY: 475.12... -> 475 yen.
  assert.equal(convertMinor(1_000, "KWD", "JPY", rate("475.12345678")), 475);
  // Half a minor unit rounds away from zero, both signs.
  assert.equal(convertMinor(1, "JPY", "BWP", rate("0.005")), 1);
  assert.equal(convertMinor(-1, "JPY", "BWP", rate("0.005")), -1);
  assert.equal(convertMinor(1, "JPY", "BWP", rate("0.00499999")), 0);
});

Deno.test("periodOf() is the UTC month of an instant; isPeriod() checks YYYY-MM", () => {
  assert.equal(periodOf(Date.parse("2026-10-31T23:59:59.999Z")), "2026-10");
  assert.equal(periodOf(Date.parse("2026-11-01T00:00:00Z")), "2026-11");
  // 23:30 in Gaborone (UTC+2) on 1 November is still 31 October in UTC.
  assert.equal(periodOf(Date.parse("2026-11-01T01:30:00+02:00")), "2026-10");
  assert.ok(isPeriod("2026-01") && isPeriod("2026-12"));
  for (const bad of ["2026-00", "2026-13", "2026-1", "26-10", "2026-10-01"]) {
    assert.equal(isPeriod(bad), false, bad);
  }
});

Deno.test("dueOn() adds payment days (default 30); daysPastDue() counts whole UTC days", () => {
  const issued = Date.parse("2026-10-31T22:00:00Z");
  assert.equal(dueOn(issued, 14), "2026-11-14");
  assert.equal(dueOn(issued, null), "2026-11-30");
  assert.equal(dueOn(issued, 0), "2026-10-31");
  assert.equal(daysPastDue("2026-11-14", Date.parse("2026-11-14T23:59:00Z")), 0);
  assert.equal(daysPastDue("2026-11-14", Date.parse("2026-11-15T00:00:00Z")), 1);
  assert.equal(daysPastDue("2026-11-14", Date.parse("2026-11-01T12:00:00Z")), -13);
});

Deno.test("bucketOf() splits days past due into current, 1-30, 31-60, 61-90 and 90+", () => {
  const cases: [number, string][] = [
    [-5, "current"],
    [0, "current"],
    [1, "1-30"],
    [30, "1-30"],
    [31, "31-60"],
    [60, "31-60"],
    [61, "61-90"],
    [90, "61-90"],
    [91, "90+"],
    [400, "90+"],
  ];
  for (const [days, bucket] of cases) assert.equal(bucketOf(days), bucket, String(days));
});

Deno.test("ageing() puts open invoice balances by days past due and uninvoiced charges current", () => {
  const book: LedgerBook = {
    ...EMPTY_BOOK,
    periods: {
      "2026-12|BWP": { uninvoiced_minor: 500, count: 2, watermark: 9, invoices: 0 },
      "2026-12|ZAR": { uninvoiced_minor: 7_000, count: 1, watermark: 10, invoices: 0 },
    },
    invoices: [
      invoice("a", { due_on: "2026-12-20", amount_minor: 1_000 }), // not yet due
      invoice("b", { due_on: "2026-12-01", amount_minor: 2_000, paid_minor: 500 }), // 14 days
      invoice("c", { due_on: "2026-10-01", amount_minor: 3_000 }), // 75 days
      invoice("d", { due_on: "2026-08-01", amount_minor: 4_000 }), // 136 days
      invoice("e", { due_on: "2026-08-01", amount_minor: 9_000, paid_minor: 9_000 }), // settled
      invoice("f", { due_on: "2026-11-01", amount_minor: 6_000, currency: "ZAR" }),
    ],
  };
  assert.deepEqual(ageing(book, "BWP", Date.parse("2026-12-15T10:00:00Z")), {
    current: 1_500,
    "1-30": 1_500,
    "31-60": 0,
    "61-90": 3_000,
    "90+": 4_000,
  });
});

Deno.test("ageing() takes credit on account and uninvoiced credit off the oldest first", () => {
  const now = Date.parse("2026-12-15T10:00:00Z");
  const zero = { current: 0, "1-30": 0, "31-60": 0, "61-90": 0, "90+": 0 };
  // Paid ahead of any invoice: nothing is owed, nothing ages (courier 4.2).
  const ahead: LedgerBook = {
    ...EMPTY_BOOK,
    periods: { "2026-12|BWP": { uninvoiced_minor: 10_000, count: 1, watermark: 1, invoices: 0 } },
    unallocated: { BWP: 10_000 },
  };
  assert.deepEqual(ageing(ahead, "BWP", now), zero);
  const book: LedgerBook = {
    ...EMPTY_BOOK,
    periods: { "2026-12|BWP": { uninvoiced_minor: -1_000, count: 1, watermark: 9, invoices: 1 } },
    invoices: [
      invoice("a", { due_on: "2026-12-20", amount_minor: 1_000 }), // not yet due
      invoice("c", { due_on: "2026-10-01", amount_minor: 3_000 }), // 75 days
      invoice("d", { due_on: "2026-08-01", amount_minor: 4_000 }), // 136 days
    ],
    unallocated: { BWP: 3_500 },
  };
  // 4,500 of credit: all of 90+, then 500 of 61-90; never a negative bucket.
  assert.deepEqual(ageing(book, "BWP", now), { ...zero, current: 1_000, "61-90": 2_500 });
  // More credit than owed: every bucket is zero, not negative.
  assert.deepEqual(ageing({ ...book, unallocated: { BWP: 90_000 } }, "BWP", now), zero);
});

Deno.test("ageing() shows prepaid funds taken below zero by later charges as owed now", () => {
  const now = Date.parse("2026-12-15T10:00:00Z");
  const zero = { current: 0, "1-30": 0, "31-60": 0, "61-90": 0, "90+": 0 };
  // Prepaid charges go on no invoice: the book holds nothing, the funds say what is owed.
  assert.deepEqual(ageing(EMPTY_BOOK, "BWP", now, -2_750), { ...zero, current: 2_750 });
  // Funds still above zero owe nothing.
  assert.deepEqual(ageing(EMPTY_BOOK, "BWP", now, 10_000), zero);
  // An invoice left open from before a switch to prepaid still ages by its due date.
  const book: LedgerBook = {
    ...EMPTY_BOOK,
    invoices: [invoice("c", { due_on: "2026-10-01", amount_minor: 3_000 })],
  };
  assert.deepEqual(ageing(book, "BWP", now, -500), { ...zero, current: 500, "61-90": 3_000 });
});

Deno.test("bookInvoices() spends the credit on account its allocations apply to earlier invoices", () => {
  const book: LedgerBook = {
    ...EMPTY_BOOK,
    periods: { "2026-10|BWP": { uninvoiced_minor: -3_000, count: 1, watermark: 2, invoices: 1 } },
    invoices: [invoice("first", { amount_minor: 10_000 })],
  };
  const credit = invoice("credit", {
    amount_minor: -3_000,
    paid_minor: -3_000,
    supplementary: true,
    watermark: 2,
  });
  const after = bookInvoices(book, [credit], [
    { invoice_id: "first", amount_minor: 3_000, paid_minor: 3_000 },
  ]);
  assert.deepEqual(after.invoices.map((i) => [i.id, i.amount_minor, i.paid_minor]), [
    ["first", 10_000, 3_000],
    ["credit", -3_000, -3_000],
  ]);
  assert.deepEqual(after.unallocated, {}, "the credit invoice's credit went to the first");
  // Events written before allocations were recorded: the credit waits on account.
  assert.deepEqual(bookInvoices(book, [credit]).unallocated, { BWP: 3_000 });
});

Deno.test("allocate() applies requested amounts within each balance, then oldest due first", () => {
  const open = [
    invoice("old", { due_on: "2026-10-01", amount_minor: 3_000 }),
    invoice("mid", { due_on: "2026-11-01", amount_minor: 2_000, paid_minor: 500 }),
    invoice("new", { due_on: "2026-12-01", amount_minor: 4_000 }),
    invoice("zar", { due_on: "2026-09-01", amount_minor: 9_000, currency: "ZAR" }),
  ];
  const r = allocate(open, "BWP", 5_000, [{ invoice_id: "new", amount_minor: 1_000 }]);
  assert.deepEqual(r, {
    ok: true,
    allocations: [
      { invoice_id: "new", amount_minor: 1_000, paid_minor: 1_000 },
      { invoice_id: "old", amount_minor: 3_000, paid_minor: 3_000 },
      { invoice_id: "mid", amount_minor: 1_000, paid_minor: 1_500 },
    ],
    rest: 0,
  });
  const more = allocate(open, "BWP", 20_000, []);
  assert.ok(more.ok);
  assert.equal(more.rest, 20_000 - 3_000 - 1_500 - 4_000);

  const over = allocate(open, "BWP", 5_000, [{ invoice_id: "mid", amount_minor: 1_501 }]);
  assert.equal(over.ok ? "ok" : over.code, "allocation_exceeds_invoice");
  assert.match(
    over.ok ? "ok" : over.message,
    /^allocations\.0\.amount: .*balance 15\.00, allocated 15\.01 BWP$/,
  );
  const beyond = allocate(open, "BWP", 2_000, [
    { invoice_id: "old", amount_minor: 1_500 },
    { invoice_id: "new", amount_minor: 1_000 },
  ]);
  assert.equal(beyond.ok ? "ok" : beyond.code, "allocations_exceed_payment");
  const other = allocate(open, "BWP", 2_000, [{ invoice_id: "zar", amount_minor: 100 }]);
  assert.equal(other.ok ? "ok" : other.code, "invoice_not_open");
  assert.match(other.ok ? "ok" : other.message, /^allocations\.0\.invoice_id: no open BWP invoice/);
  const twice = allocate(open, "BWP", 2_000, [
    { invoice_id: "old", amount_minor: 100 },
    { invoice_id: "old", amount_minor: 100 },
  ]);
  assert.equal(twice.ok ? "ok" : twice.code, "duplicate_allocation");
});

Deno.test("receiptEffect() clears the receivable, then duties, and keeps the rest as credit", () => {
  const b = { prepaid_minor: 0, receivable_minor: 1_000, recoverable_minor: 300 };
  assert.deepEqual(receiptEffect("credit", b, 800), {
    prepaid_minor: 0,
    receivable_minor: -800,
    recoverable_minor: 0,
  });
  assert.deepEqual(receiptEffect("credit", b, 1_200), {
    prepaid_minor: 0,
    receivable_minor: -1_000,
    recoverable_minor: -200,
  });
  const over = receiptEffect("credit", b, 2_000);
  assert.deepEqual(over, { prepaid_minor: 0, receivable_minor: -1_700, recoverable_minor: -300 });
  // Every receipt reduces what is owed by exactly its amount.
  for (const amount of [1, 800, 1_300, 2_000]) {
    const e = receiptEffect("credit", b, amount);
    assert.equal(owedMinor(e), -amount);
  }
  // Credit on account (what no invoice took) stays in the receivable: the duties it pays are
  // recovered when the invoice it pays is issued (dutiesRecoveredEffect), not now as well.
  assert.deepEqual(receiptEffect("credit", b, 1_200, 0, 1_200), {
    prepaid_minor: 0,
    receivable_minor: -1_200,
    recoverable_minor: 0,
  });
  assert.equal(owedMinor(receiptEffect("credit", b, 1_200, 0, 1_200)), -1_200);
  assert.deepEqual(receiptEffect("prepaid", b, 500), {
    prepaid_minor: 500,
    receivable_minor: 0,
    recoverable_minor: 0,
  });
});

Deno.test("dutiesAllocated() pays an invoice's charges first, then its duties", () => {
  // spec: courier 2.6: duties recoverable, kept apart from charges. 80.00 charges, 20.00 duties.
  const mixed = invoice("mixed", { amount_minor: 10_000, recoverable_minor: 2_000 });
  const paid = (amount: number, before = 0) => [
    { invoice_id: "mixed", amount_minor: amount, paid_minor: before + amount },
  ];
  assert.equal(dutiesAllocated([mixed], paid(5_000)), 0);
  assert.equal(dutiesAllocated([mixed], paid(9_000)), 1_000);
  assert.equal(dutiesAllocated([mixed], paid(5_000, 5_000)), 2_000);
  assert.equal(dutiesAllocated([mixed], paid(10_000)), 2_000);
  // Invoices issued before their duties were kept, and unknown ids, count none.
  assert.equal(dutiesAllocated([invoice("mixed")], paid(10_000)), 0);
  assert.equal(dutiesAllocated([], paid(10_000)), 0);
});

Deno.test("receiptEffect() clears the duties a payment's invoices hold, then the receivable", () => {
  const b = { prepaid_minor: 0, receivable_minor: 8_892, recoverable_minor: 2_000 };
  // An invoice of 20.00 duties paid in full recovers them; the charges after it stay owed.
  assert.deepEqual(receiptEffect("credit", b, 2_000, 2_000), {
    prepaid_minor: 0,
    receivable_minor: 0,
    recoverable_minor: -2_000,
  });
  // Never more duties than are owed; the rest clears the receivable as before.
  assert.deepEqual(receiptEffect("credit", b, 3_000, 5_000), {
    prepaid_minor: 0,
    receivable_minor: -1_000,
    recoverable_minor: -2_000,
  });
  for (const amount of [1, 2_000, 9_000, 20_000]) {
    assert.equal(owedMinor(receiptEffect("credit", b, amount, 2_000)), -amount);
  }
});

Deno.test("pruneInvoices() keeps every open invoice and the latest settled ones", () => {
  const settled = Array.from(
    { length: INVOICES_RECENT_MAX + 5 },
    (_, i) => invoice(`s${i}`, { paid_minor: 10_000, issued_at: i }),
  );
  const open = invoice("open", { issued_at: -1 });
  const kept = pruneInvoices([open, ...settled]);
  assert.equal(kept.length, INVOICES_RECENT_MAX + 1);
  assert.equal(kept[0]!.id, "open");
  assert.equal(kept[1]!.id, "s5");
  assert.equal(kept.at(-1)!.id, `s${INVOICES_RECENT_MAX + 4}`);
});

Deno.test("ledger: balances in another currency are kept per currency and gone once back at zero (courier 2.6 rule 4)", () => {
  let book = withOtherEffect(EMPTY_BOOK, "BWP", chargeEffect("credit", -1_000, false));
  book = withOtherEffect(book, "USD", chargeEffect("credit", 500, true));
  assert.deepEqual(otherBalancesOf(book, "BWP"), {
    prepaid_minor: 0,
    receivable_minor: -1_000,
    recoverable_minor: 0,
  });
  assert.equal(owedMinor(otherBalancesOf(book, "USD")), 500);
  book = withOtherEffect(book, "BWP", chargeEffect("credit", 1_000, false));
  assert.deepEqual(Object.keys(book.other_currencies ?? {}), ["USD"]);
  assert.equal(owedMinor(otherBalancesOf(book, "BWP")), 0);
});

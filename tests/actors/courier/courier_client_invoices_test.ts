/** The client account's invoices, payments, COD and settlement modes (courier 6). */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { balancesOf } from "../../../actors/courier/client_ledger.ts";
import { isOpen, OPEN_INVOICES_MAX, owedMinor } from "../../../src/courier/rules/ledger.ts";
import {
  Account,
  DAY,
  invoices,
  original,
  postedEntries,
  sumOf,
} from "./courier_client_fixtures.ts";

Deno.test("client account: entries after an invoice go on a supplementary invoice of the period", () => {
  const a = new Account({ payment_days: 14 });
  a.charge({ reference: "A", amount_minor: 1_000 });
  a.charge({ reference: "B", amount_minor: 2_000 });
  const [first, ...others] = invoices(
    a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }),
  );
  assert.equal(others.length, 0);
  assert.equal(first!.amount_minor, 3_000);
  assert.equal(first!.supplementary, false);
  assert.equal(first!.watermark, 2);
  assert.equal(first!.entries, 2);
  assert.equal(first!.due_on, "2026-10-26");
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "nothing_to_invoice",
  );

  a.now += 3 * DAY;
  a.charge({ reference: "LATE", amount_minor: 500 });
  const [late] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.equal(late!.supplementary, true);
  assert.equal(late!.amount_minor, 500);
  assert.equal(late!.watermark, 3);
  // The first invoice was not rewritten.
  assert.equal(a.client.ledger.invoices.find((i) => i.id === first!.id)?.amount_minor, 3_000);
  assert.equal(a.refused({ kind: "issue_invoice", period: "2026-13", by: "t" }), "invalid_period");
});

Deno.test("client account: payments pay invoices; what is left is credit on account for the next one", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  const [inv] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  const pay = (amount_minor: number, reference: string, allocations = [{
    invoice_id: inv!.id,
    amount_minor,
  }]) => ({
    kind: "payment" as const,
    amount_minor,
    currency: "BWP",
    reference,
    allocations,
    by: "t",
  });
  assert.equal(a.refused(pay(10_001, "P0")), "allocation_exceeds_invoice");
  assert.equal(
    a.refused({ ...pay(5_000, "P0"), allocations: [{ invoice_id: inv!.id, amount_minor: 6_000 }] }),
    "allocations_exceed_payment",
  );
  assert.equal(a.refused({ ...pay(1_000, "P0"), currency: "ZAR" }), "currency_mismatch");
  a.must(pay(4_000, "P1"));
  assert.equal(a.client.ledger.invoices[0]!.paid_minor, 4_000);
  assert.equal(a.client.money.receivable_minor, 6_000);
  a.must({ ...pay(9_000, "P2"), allocations: [] });
  assert.equal(isOpen(a.client.ledger.invoices[0]!), false);
  assert.equal(a.client.ledger.unallocated.BWP, 3_000);
  assert.equal(a.client.money.receivable_minor, -3_000, "credit on account");
  a.charge({ reference: "B", amount_minor: 2_000 });
  const [next] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.equal(next!.paid_minor, 2_000, "the credit paid the next invoice");
  assert.equal(a.client.ledger.unallocated.BWP, 1_000);
});

Deno.test("client account: a credit invoice's credit pays the open invoices at issue, oldest first", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  const [first] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  a.now += DAY;
  a.must({
    kind: "correct",
    original: original(a, "A"),
    seen_seq: 0,
    amount_minor: -3_000,
    reason: "overcharged",
    by: "t",
  });
  const [credit] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.deepEqual([credit!.amount_minor, credit!.paid_minor, isOpen(credit!)], [
    -3_000,
    -3_000,
    false,
  ]);
  const issued = a.events.at(-1)!;
  assert.ok(issued.kind === "invoices_issued");
  assert.deepEqual(issued.allocations, [
    { invoice_id: first!.id, amount_minor: 3_000, paid_minor: 3_000 },
  ]);
  // spec: courier 2.6 rule 5: the first invoice's amount is not rewritten, it is paid.
  const inv = a.client.ledger.invoices.find((i) => i.id === first!.id)!;
  assert.deepEqual([inv.amount_minor, inv.paid_minor], [10_000, 3_000]);
  assert.deepEqual(a.client.ledger.unallocated, {});
  a.must({ kind: "payment", amount_minor: 7_000, currency: "BWP", reference: "P1", by: "t" });
  assert.equal(a.client.ledger.invoices.some(isOpen), false, "paid in full: nothing open");
  assert.equal(owedMinor(balancesOf(a.client)), 0);
});

Deno.test("client account: at the open-invoice bound a credit invoice is still issued and pays the oldest", () => {
  const a = new Account();
  for (let n = 0; n < OPEN_INVOICES_MAX; n++) {
    a.charge({ reference: `C${n}`, amount_minor: 1_000 });
    a.must({ kind: "issue_invoice", period: "2026-10", by: "t" });
  }
  a.charge({ reference: "MORE", amount_minor: 1_000 });
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "open_invoices_limit",
    "another open invoice is refused",
  );
  a.must({
    kind: "correct",
    original: original(a, "C0"),
    seen_seq: 0,
    amount_minor: -1_000,
    reason: "not owed",
    by: "t",
  });
  a.must({
    kind: "correct",
    original: original(a, "C1"),
    seen_seq: 0,
    amount_minor: -1_000,
    reason: "not owed",
    by: "t",
  });
  // spec: courier 2.6 rule 5: the notes go on a supplementary (credit) invoice; it opens nothing,
  // so the bound on open invoices does not hold it back.
  const [credit] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.deepEqual([credit!.amount_minor, isOpen(credit!)], [-1_000, false]);
  assert.equal(a.client.ledger.invoices.filter(isOpen).length, OPEN_INVOICES_MAX - 1);
  assert.equal(a.client.ledger.invoices[0]!.paid_minor, 1_000, "the oldest is paid");
});

Deno.test("client account: credit left on account beside an open invoice (older events) pays it at the next issue", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  const [first] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  a.must({
    kind: "correct",
    original: original(a, "A"),
    seen_seq: 0,
    amount_minor: -3_000,
    reason: "overcharged",
    by: "t",
  });
  // A credit invoice booked by an event written before allocations were recorded.
  a.state = courierClientActor.evolve(a.state, {
    kind: "invoices_issued",
    invoices: [{ ...first!, id: "inv_old", amount_minor: -3_000, paid_minor: -3_000, entries: 1 }],
    by: "t",
  });
  assert.equal(a.client.ledger.unallocated.BWP, 3_000);
  a.now += DAY;
  a.charge({ reference: "B", amount_minor: 2_000 });
  const [next] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.equal(next!.paid_minor, 0, "the older invoice is paid first");
  assert.equal(a.client.ledger.invoices.find((i) => i.id === first!.id)!.paid_minor, 3_000);
  assert.deepEqual(a.client.ledger.unallocated, {});
});

Deno.test("client account: COD reduces what the client owes only once it is remitted", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  a.must({ kind: "cod_collected", waybill: "WB1", amount_minor: 25_000, currency: "BWP", by: "d" });
  assert.equal(a.client.money.receivable_minor, 10_000, "collected is not yet remitted");
  assert.equal(a.client.ledger.cod.length, 1);
  assert.equal(
    a.refused({ kind: "cod_remitted", waybill: "WB2", evidence_path: "x", by: "t" }),
    "cod_not_collected",
  );
  a.must({ kind: "cod_remitted", waybill: "WB1", evidence_path: "s3://slip.pdf", by: "t" });
  const e = a.entry("cod:WB1");
  assert.equal(e.kind, "cod_remitted");
  assert.equal(e.amount_minor, -25_000);
  assert.equal(e.evidence_path, "s3://slip.pdf");
  assert.equal(a.client.money.receivable_minor, -15_000);
  assert.deepEqual(a.client.ledger.cod, []);
});

Deno.test("client account: COD remitted ahead of the invoice recovers only the duties that invoice's payment covers", () => {
  // spec: courier 2.6: duties are recoverable, kept apart from charges; rule 6: COD reduces what
  // is owed once remitted. 100.00 charges and 50.00 duties, 120.00 COD remitted before invoicing:
  // the invoice's charges are paid, then 20.00 of its duties; 30.00 duties stay unrecovered.
  for (const received of ["cod", "payment"] as const) {
    const a = new Account();
    a.charge({ reference: "A", amount_minor: 10_000 });
    a.charge({
      reference: "DUT-1",
      entry_kind: "duties",
      amount_minor: 5_000,
      recoverable: true,
      evidence_path: "s3://duty.pdf",
      source_event: "customs.duties:xing_1",
    });
    if (received === "cod") {
      a.must({
        kind: "cod_collected",
        waybill: "WB1",
        amount_minor: 12_000,
        currency: "BWP",
        by: "d",
      });
      a.must({ kind: "cod_remitted", waybill: "WB1", evidence_path: "s3://slip.pdf", by: "t" });
    } else {
      a.must({ kind: "payment", amount_minor: 12_000, currency: "BWP", reference: "P1", by: "t" });
    }
    assert.equal(owedMinor(balancesOf(a.client)), 3_000, received);
    const [inv] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
    assert.deepEqual([inv!.amount_minor, inv!.paid_minor, inv!.recoverable_minor], [
      15_000,
      12_000,
      5_000,
    ]);
    // What the invoice still owes is duties only: none of it is a charge.
    assert.deepEqual(balancesOf(a.client), {
      prepaid_minor: 0,
      receivable_minor: 0,
      recoverable_minor: 3_000,
    }, received);
  }
});

Deno.test("client account: external settlement records entries but posts no receivable", () => {
  const a = new Account({ settlement_mode: "external" });
  a.must({ kind: "charge_booking", waybill: "WB1", amount_minor: 8_892, currency: "BWP", by: "t" });
  a.charge({ reference: "CUS-1" });
  assert.equal(a.entry("WB1").status, "external");
  assert.equal(a.entry("CUS-1").status, "external");
  assert.deepEqual(balancesOf(a.client), {
    prepaid_minor: 0,
    receivable_minor: 0,
    recoverable_minor: 0,
  });
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "external_settlement",
  );
  assert.equal(
    a.refused({ kind: "payment", amount_minor: 1, currency: "BWP", reference: "P", by: "t" }),
    "external_settlement",
  );
  assert.deepEqual(a.client.ledger.periods, {});
});

Deno.test("client account: prepaid spends funds on later charges, past zero; payments are refused", () => {
  const a = new Account({ settlement_mode: "prepaid" });
  a.must({ kind: "top_up", amount_minor: 10_000, currency: "BWP", reference: "T1", by: "t" });
  assert.equal(a.entry("T1").amount_minor, -10_000);
  a.must({ kind: "charge_booking", waybill: "WB1", amount_minor: 8_892, currency: "BWP", by: "t" });
  a.charge({ reference: "R-1", entry_kind: "redelivery", amount_minor: 3_000 });
  assert.equal(a.client.money.prepaid_minor, -1_892);
  assert.equal(owedMinor(balancesOf(a.client)), sumOf(postedEntries(a.events)));
  assert.equal(
    a.refused({ kind: "payment", amount_minor: 1, currency: "BWP", reference: "P", by: "t" }),
    "not_credit",
  );
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "nothing_to_invoice",
  );
  assert.equal(
    a.refused({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" }),
    "balance_not_settled",
  );
});

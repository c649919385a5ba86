/** The client ledger's COD, invoices, the bounds of what an answer states, and what every settlement mode owes (courier 2.5, 2.6, 4.2); its charges, conversions, payments and notes are in client_ledger_test.ts. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type CourierClientCommand } from "../../../actors/courier/courier_client.ts";
import {
  accountBalances,
  balanceOutOfRange,
  balancesOf,
  hasBalances,
  type LedgerCommand,
  otherCurrencies,
} from "../../../actors/courier/client_ledger.ts";
import {
  COD_AWAITING_MAX,
  owedMinor,
  REFERENCE_CHARS_MAX,
} from "../../../src/courier/rules/ledger.ts";
import { AMOUNT_MINOR_MAX } from "../../../src/domain/money.ts";
import {
  Account,
  account,
  charge,
  correct,
  DAY,
  entriesOf,
  pay,
  T0,
} from "./client_ledger_fixtures.ts";

Deno.test("client ledger: COD is collected once per waybill in the billing currency and remitted with evidence", () => {
  const h = account();
  const cod = (fields: Partial<Extract<LedgerCommand, { kind: "cod_collected" }>> = {}) =>
    ({
      kind: "cod_collected",
      waybill: "WB9",
      amount_minor: 3_000,
      currency: "BWP",
      by: "drv",
      ...fields,
    }) as const;
  h.refused(cod({ amount_minor: 0 }), "invalid_amount", "COD must be above zero");
  h.refused(
    cod({ currency: "ZAR" }),
    "currency_mismatch",
    "currency: the account bills in BWP: ZAR",
  );
  h.refused(
    cod({ waybill: " " }),
    "invalid_reference",
    `a waybill has 1 to ${REFERENCE_CHARS_MAX} characters`,
  );
  const step = h.must(cod());
  assert.deepEqual(step.reply, {
    cod: { waybill: "WB9", amount_minor: 3_000, currency: "BWP", collected_at: T0 },
  });
  // spec: courier 2.6 rule 6: collected is not yet remitted: nothing owed changes.
  assert.equal(accountBalances(h.state!).owed_minor, 0);
  assert.equal(hasBalances(h.state!), true, "COD awaiting counts as the account in use");
  h.refused(cod(), "cod_already_collected", "COD already awaits remittance: WB9");
  h.refused(
    { kind: "cod_remitted", waybill: "WB9", evidence_path: "  ", by: "test" },
    "evidence_required",
    "remitted COD needs evidence: WB9",
  );
  h.refused(
    { kind: "cod_remitted", waybill: "WB0", evidence_path: "slip.pdf", by: "test" },
    "cod_not_collected",
    "waybill: no COD awaits remittance: WB0",
  );
  const remitted = h.must({
    kind: "cod_remitted",
    waybill: "WB9",
    evidence_path: "slip.pdf",
    by: "test",
  });
  const entry = entriesOf(remitted.events)[0]!;
  assert.deepEqual([entry.reference, entry.amount_minor, entry.source_event], [
    "cod:WB9",
    -3_000,
    "cod.remitted:WB9",
  ]);
  assert.equal(accountBalances(h.state!).owed_minor, -3_000);
  assert.deepEqual(h.state!.ledger.cod, []);
});

Deno.test("client ledger: COD awaiting remittance is bounded", () => {
  const h = account();
  for (let i = 0; i < COD_AWAITING_MAX; i++) {
    h.must({
      kind: "cod_collected",
      waybill: `WB${i}`,
      amount_minor: 100,
      currency: "BWP",
      by: "drv",
    });
  }
  h.refused(
    { kind: "cod_collected", waybill: "WB_MORE", amount_minor: 100, currency: "BWP", by: "drv" },
    "cod_awaiting_limit",
    `too much COD awaits remittance; confirm some first: ${COD_AWAITING_MAX}`,
  );
});

Deno.test("client ledger: invoices are for a YYYY-MM period with uninvoiced entries, due after the payment days", () => {
  const h = account({ payment_days: 14 });
  h.refused(
    { kind: "issue_invoice", period: "2026-13", by: "test" },
    "invalid_period",
    "a period is YYYY-MM: 2026-13",
  );
  h.refused(
    { kind: "issue_invoice", period: "2026-10", by: "test" },
    "nothing_to_invoice",
    "no uninvoiced entries in 2026-10",
  );
  account({ settlement_mode: "prepaid" }).refused(
    { kind: "issue_invoice", period: "2026-10", by: "test" },
    "nothing_to_invoice",
    "no uninvoiced entries in 2026-10 (a prepaid account settles from its funds)",
  );
  h.must(charge({ amount_minor: 10_000 }));
  h.must(
    charge({
      reference: "CH-2",
      amount_minor: 2_500,
      entry_kind: "duties",
      recoverable: true,
      evidence_path: "r.pdf",
    }),
  );
  const step = h.must({ kind: "issue_invoice", period: "2026-10", by: "test" });
  assert.ok(step.reply && "invoices" in step.reply);
  const [invoice] = step.reply.invoices;
  assert.deepEqual(
    [
      invoice?.amount_minor,
      invoice?.currency,
      invoice?.due_on,
      invoice?.supplementary,
      invoice?.recoverable_minor,
    ],
    [12_500, "BWP", "2026-10-26", false, 2_500],
  );
  h.refused({ kind: "issue_invoice", period: "2026-10", by: "test" }, "nothing_to_invoice");
});

Deno.test("client ledger: a command that would take a balance past the most an answer states is refused whole", () => {
  const h = account({ credit_limit_minor: AMOUNT_MINOR_MAX });
  h.must(charge({ amount_minor: AMOUNT_MINOR_MAX - 10 }));
  h.refused(
    charge({ reference: "CH-2", amount_minor: 11 }),
    "amount_too_large",
    "the receivable would pass 9999999999999.99: nothing was booked",
  );
  assert.equal(balanceOutOfRange(h.state!), null);
  // Brought back into range is always taken.
  h.must(pay(1_000));
});

type Step =
  | { readonly op: "charge"; readonly amount: number; readonly duties: boolean }
  | { readonly op: "booking"; readonly amount: number }
  | { readonly op: "pay"; readonly amount: number }
  | { readonly op: "top_up"; readonly amount: number }
  | { readonly op: "note"; readonly pick: number; readonly amount: number }
  | { readonly op: "cod"; readonly amount: number }
  | { readonly op: "invoice" }
  | { readonly op: "days"; readonly days: number };

const STEP = fc.oneof(
  fc.record({
    op: fc.constant("charge" as const),
    amount: fc.integer({ min: 1, max: 50_000 }),
    duties: fc.boolean(),
  }),
  fc.record({ op: fc.constant("booking" as const), amount: fc.integer({ min: 1, max: 50_000 }) }),
  fc.record({ op: fc.constant("pay" as const), amount: fc.integer({ min: 1, max: 80_000 }) }),
  fc.record({ op: fc.constant("top_up" as const), amount: fc.integer({ min: 1, max: 80_000 }) }),
  fc.record({
    op: fc.constant("note" as const),
    pick: fc.nat(),
    amount: fc.integer({ min: -50_000, max: 50_000 }).filter((n) => n !== 0),
  }),
  fc.record({ op: fc.constant("cod" as const), amount: fc.integer({ min: 1, max: 20_000 }) }),
  fc.record({ op: fc.constant("invoice" as const) }),
  fc.record({ op: fc.constant("days" as const), days: fc.integer({ min: 1, max: 40 }) }),
);

/** The commands a step stands for on the account as it is (none: only time passes). */
function commandOf(h: Account, step: Step, n: number): CourierClientCommand[] {
  switch (step.op) {
    case "charge":
      return [charge({
        reference: `CH-${n}`,
        amount_minor: step.amount,
        ...(step.duties ? { entry_kind: "duties", recoverable: true, evidence_path: "r.pdf" } : {}),
      })];
    case "booking":
      return [{
        kind: "charge_booking",
        waybill: `WB-${n}`,
        amount_minor: step.amount,
        currency: "BWP",
        by: "test",
      }];
    case "pay":
      return [pay(step.amount, { reference: `PAY-${n}` })];
    case "top_up":
      return [{
        kind: "top_up",
        amount_minor: step.amount,
        currency: "BWP",
        reference: `TOP-${n}`,
        by: "test",
      }];
    case "note": {
      const charges = entriesOf(h.log).filter((e) =>
        e.kind === "waiting" || e.kind === "duties" || e.kind === "shipment"
      );
      const target = charges[step.pick % Math.max(charges.length, 1)];
      return target ? [correct(h, target.reference, step.amount, { reference: `NOTE-${n}` })] : [];
    }
    case "cod":
      return [
        {
          kind: "cod_collected",
          waybill: `COD-${n}`,
          amount_minor: step.amount,
          currency: "BWP",
          by: "drv",
        },
        { kind: "cod_remitted", waybill: `COD-${n}`, evidence_path: "slip.pdf", by: "test" },
      ];
    case "invoice":
      return [{
        kind: "issue_invoice",
        period: new Date(h.now).toISOString().slice(0, 7),
        by: "test",
      }];
    case "days":
      h.now += step.days * DAY;
      return [];
  }
}

Deno.test("client ledger: in every settlement mode, what the client owes is the sum of its posted entries", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("credit" as const, "prepaid" as const, "external" as const),
      fc.array(STEP, { maxLength: 40, size: "medium" }),
      (mode, steps) => {
        const h = account({ settlement_mode: mode, credit_limit_minor: 1_000_000 });
        steps.forEach((step, n) => {
          for (const c of commandOf(h, step, n)) h.send(c);
          const entries = entriesOf(h.log);
          const posted = entries.filter((e) => e.status === "posted" && e.currency === "BWP");
          const sum = posted.reduce((total, e) => total + e.amount_minor, 0);
          const b = accountBalances(h.state!);
          // spec: courier 2.6, 4.2: the balances are the posted entries; external posts none.
          assert.equal(owedMinor(balancesOf(h.state!)), sum);
          assert.equal(b.owed_minor, sum);
          if (mode === "external") assert.equal(sum, 0);
          // Entries are numbered one after another as they reach the account.
          assert.deepEqual(entries.map((e) => e.seq), entries.map((_, i) => i + 1));
          assert.deepEqual(otherCurrencies(h.state!), []);
        });
        assert.deepEqual(h.replayed(), h.state);
      },
    ),
    { numRuns: 40 },
  );
});

/** The client account's settings, its state bound and its stored versions. */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import {
  COD_AWAITING_MAX,
  isOpen,
  OPEN_INVOICES_MAX,
  PERIODS_KEPT_MAX,
  REFERENCE_CHARS_MAX,
  UNRESOLVED_FX_MAX,
} from "../../../src/courier/rules/ledger.ts";
import { STATE_BYTES_MAX } from "../../../src/limits.ts";
import { Account, newClient } from "./courier_client_fixtures.ts";

Deno.test("client settings: a new billing currency needs the credit limit again, in that currency", () => {
  const a = new Account(); // credit, 5,000.00 BWP, nothing owed
  const bare = a.send({ kind: "change_settings", changes: { billing_currency: "JPY" }, by: "t" });
  assert.equal(bare.ok, false);
  assert.equal(!bare.ok && bare.code, "validation_failed");
  assert.deepEqual(
    !bare.ok && (bare.details?.errors as { path: string }[]).map((e) => e.path),
    ["credit_limit"],
  );
  assert.deepEqual(a.client.settings, newClient("cli_1", "biz_1", {}).settings);
  a.must({
    kind: "change_settings",
    changes: { billing_currency: "JPY", credit_limit_minor: 5_000 },
    by: "t",
  });
  assert.equal(a.client.settings.billing_currency, "JPY");
  assert.equal(a.client.settings.credit_limit_minor, 5_000);
  // Without a credit limit there is no amount to name again.
  const none = new Account({ credit_limit_minor: 0 });
  none.must({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" });
  assert.equal(none.client.settings.billing_currency, "ZAR");
});

Deno.test("client settings: a change checked against a currency or rate card that moved since is refused", () => {
  const a = new Account({ rate_card_id: "rc_1" });
  const basis = { billing_currency: "BWP", rate_card_id: "rc_1" };
  a.must({ kind: "change_settings", changes: { rate_card_id: "rc_2" }, basis, by: "t" });
  assert.equal(
    a.refused({ kind: "change_settings", changes: { payment_days: 10 }, basis, by: "t" }),
    "settings_changed",
  );
  assert.equal(a.client.settings.payment_days, 30);
  a.must({
    kind: "change_settings",
    changes: { payment_days: 10 },
    basis: { ...basis, rate_card_id: "rc_2" },
    by: "t",
  });
  assert.equal(a.client.settings.payment_days, 10);
});

Deno.test("client account: at every bound the state stays under STATE_BYTES_MAX", () => {
  const a = new Account();
  const long = (p: string, i: number) => `${p}${i}`.padEnd(REFERENCE_CHARS_MAX, "x");
  // Invoices: one per month for long enough that settled ones and periods are pruned.
  const months = OPEN_INVOICES_MAX + PERIODS_KEPT_MAX + 6;
  for (let m = 0; m < months; m++) {
    a.now = Date.UTC(2020, m, 3);
    assert.ok(a.charge({ reference: long("M", m), amount_minor: 100_000_000 }).ok);
    a.must({ kind: "issue_invoice", period: new Date(a.now).toISOString().slice(0, 7), by: "t" });
    if (m < months - OPEN_INVOICES_MAX) {
      a.must({
        kind: "payment",
        amount_minor: 100_000_000,
        currency: "BWP",
        reference: long("P", m),
        by: "t",
      });
    }
  }
  assert.equal(a.client.ledger.invoices.filter(isOpen).length, OPEN_INVOICES_MAX);
  a.charge({ reference: "ONE-MORE", amount_minor: 1 });
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2024-06", by: "t" }),
    "open_invoices_limit",
  );
  for (let i = 0; i < UNRESOLVED_FX_MAX; i++) {
    assert.ok(
      a.charge({ reference: long("U", i), entry_kind: "failed_collection", currency: "USD" }).ok,
    );
  }
  for (let i = 0; i < COD_AWAITING_MAX; i++) {
    a.must({
      kind: "cod_collected",
      waybill: long("W", i),
      amount_minor: 99_999_999,
      currency: "BWP",
      by: "t",
    });
  }
  assert.equal(
    a.refused({
      kind: "cod_collected",
      waybill: "W-over",
      amount_minor: 1,
      currency: "BWP",
      by: "t",
    }),
    "cod_awaiting_limit",
  );
  assert.ok(Object.keys(a.client.ledger.periods).length <= PERIODS_KEPT_MAX + 1);
  const bytes = JSON.stringify({ v: 2, tenant: "biz_1", state: a.client, seq: 99_999 }).length;
  assert.ok(bytes < STATE_BYTES_MAX * 0.85, `state at its bounds: ${bytes} bytes`);
});

Deno.test("client account: a stored version-1 client loads with an empty ledger", () => {
  const a = new Account();
  const { ledger: _, ...v1 } = a.client;
  const loaded = courierClientActor.load!(v1, 1);
  assert.ok(loaded);
  assert.deepEqual(loaded.ledger.invoices, []);
  assert.equal(loaded.ledger.seq, 0);
});

Deno.test("client settings: the settlement mode changes only with the balances settled", () => {
  // Credit with an unpaid receivable: as prepaid or external it could never be paid.
  const credit = new Account();
  credit.charge({ reference: "A", amount_minor: 10_000 });
  for (const mode of ["prepaid", "external"] as const) {
    assert.equal(
      credit.refused({ kind: "change_settings", changes: { settlement_mode: mode }, by: "t" }),
      "balance_not_settled",
    );
  }
  assert.equal(credit.client.settings.settlement_mode, "credit");
  credit.must({ kind: "issue_invoice", period: "2026-10", by: "t" });
  credit.must({ kind: "payment", amount_minor: 10_000, currency: "BWP", reference: "P", by: "t" });
  credit.must({ kind: "change_settings", changes: { settlement_mode: "prepaid" }, by: "t" });
  assert.equal(credit.client.settings.settlement_mode, "prepaid");
  // Prepaid funds would be stranded: neither spendable on credit nor refundable.
  const prepaid = new Account({ settlement_mode: "prepaid" });
  prepaid.must({ kind: "top_up", amount_minor: 5_000, currency: "BWP", reference: "T", by: "t" });
  assert.equal(
    prepaid.refused({ kind: "change_settings", changes: { settlement_mode: "credit" }, by: "t" }),
    "balance_not_settled",
  );
  assert.equal(prepaid.client.money.prepaid_minor, 5_000);
  // The same mode again, or other settings, change nothing owed: allowed.
  prepaid.must({ kind: "change_settings", changes: { settlement_mode: "prepaid" }, by: "t" });
  prepaid.must({ kind: "change_settings", changes: { payment_days: 14 }, by: "t" });
});

Deno.test("client settings: the settlement mode stays while a conversion awaits its rate", () => {
  // Charged under external settlement, it would post as a receivable once resolved under credit.
  const a = new Account({ settlement_mode: "external" });
  a.charge({ reference: "CUS-ZA", currency: "ZAR" });
  assert.equal(a.client.ledger.unresolved.length, 1);
  assert.equal(
    a.refused({ kind: "change_settings", changes: { settlement_mode: "credit" }, by: "t" }),
    "balance_not_settled",
  );
  a.must({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.74", source: "BoB", by: "t" });
  assert.equal(a.entry("CUS-ZA").status, "external");
  a.must({ kind: "change_settings", changes: { settlement_mode: "credit" }, by: "t" });
  assert.equal(a.client.money.receivable_minor, 0);
});

Deno.test("client settings: the billing currency stays while a conversion awaits its rate", () => {
  // Moved to the charge's own currency, a "conversion" ZAR to ZAR at 0.5 booked half the charge.
  const a = new Account({ credit_limit_minor: 0 });
  a.charge({ reference: "CUS-ZA", currency: "ZAR", amount_minor: 10_000 });
  assert.equal(
    a.refused({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" }),
    "balance_not_settled",
  );
  assert.equal(a.client.settings.billing_currency, "BWP");
  a.must({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.74", source: "BoB", by: "t" });
  assert.equal(a.entry("CUS-ZA").amount_minor, 7_400);
  a.must({ kind: "issue_invoice", period: "2026-10", by: "t" });
  a.must({ kind: "payment", amount_minor: 7_400, currency: "BWP", reference: "P", by: "t" });
  a.must({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" });
  assert.equal(a.client.settings.billing_currency, "ZAR");
});

/**
 * The billing flows of money received and booked (courier 2.6, 4.2), called without HTTP:
 * top-ups and payments, FX resolution, invoices once per key, COD remittance. The rules that
 * live in the flows, not the account: a reference or key books once and other figures sent
 * under it are refused; amounts are read in the currency's minor units, naming the field.
 */
import assert from "node:assert/strict";
import { asClient, courierClientActor } from "../../../actors/courier/courier_client.ts";
import { asPosting } from "../../../actors/courier/courier_client.ts";
import { periodOf } from "../../../src/courier/rules/ledger.ts";
import {
  assertSameAllocations,
  recordPayment,
  topUp,
} from "../../../src/courier/flows/billing/receipts.ts";
import { resolveFx } from "../../../src/courier/flows/billing/fx.ts";
import { issueInvoices } from "../../../src/courier/flows/billing/invoices.ts";
import { remitCod } from "../../../src/courier/flows/billing/cod.ts";
import { readEvidence } from "../../../src/courier/flows/evidence.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { account, charge, fieldOf, must, refused } from "./billing_helpers.ts";

Deno.test("billing flows: a top-up sent again is the replay; with other figures it is refused naming the entry", () =>
  withTestEnv(async (t) => {
    const a = await account(t, { settlement_mode: "prepaid", credit_limit_minor: 0 });
    const sent = { amount: "10.00", currency: "BWP", reference: "T-1" };
    const first = await topUp(t.env, a.caller, a.client, sent);
    assert.equal(first.replayed, false);
    assert.equal(first.posting.entry.amount_minor, -1_000);
    const again = await topUp(t.env, a.caller, a.client, { ...sent, amount: 10 });
    assert.equal(again.replayed, true);
    assert.equal(again.posting.entry.seq, first.posting.entry.seq);
    const other = await refused(
      topUp(t.env, a.caller, a.client, { ...sent, amount: "12.00" }),
      "reference_conflict",
    );
    assert.equal(
      other.message,
      "reference already booked another top_up entry (-10.00 BWP): T-1",
    );
    const got = await t.env.runtime.read(courierClientActor, a.caller.courier, a.client, {
      kind: "get",
    });
    assert.ok(got.ok);
    assert.equal(asClient(got.reply).money.prepaid_minor, 1_000, "credited once");
  }));

Deno.test("billing flows: an amount that is no positive decimal of its currency is refused naming the field, and nothing is booked", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    for (const amount of ["0", "0.00", "1.234"]) {
      const r = await refused(
        recordPayment(t.env, a.caller, a.client, { amount, currency: "BWP", reference: "P-1" }),
        "validation_failed",
      );
      assert.equal(fieldOf(r), "amount");
    }
    const allocation = await refused(
      recordPayment(t.env, a.caller, a.client, {
        amount: "5.00",
        currency: "BWP",
        reference: "P-1",
        allocations: [{ invoice_id: "inv_1", amount: "1.00" }, { invoice_id: "inv_2", amount: 0 }],
      }),
      "validation_failed",
    );
    assert.equal(fieldOf(allocation), "allocations.1.amount");
    const got = await t.env.runtime.read(courierClientActor, a.caller.courier, a.client, {
      kind: "get",
    });
    assert.ok(got.ok);
    assert.equal(asClient(got.reply).ledger.seq, 0, "nothing booked");
  }));

Deno.test("billing flows: a payment's allocations as first sent are its replay, whatever its rest went to; others are a conflict", () => {
  const posting = (
    allocations: { invoice_id: string; amount_minor: number }[],
    requested?: { invoice_id: string; amount_minor: number }[],
  ) =>
    ({
      entry: { currency: "BWP" },
      allocations,
      ...(requested ? { requested } : {}),
    }) as unknown as Parameters<typeof assertSameAllocations>[0];
  const made = [{ invoice_id: "inv_2", amount_minor: 500 }, {
    invoice_id: "inv_1",
    amount_minor: 300,
  }];
  // Sent as made, in any order: the replay.
  assertSameAllocations(posting(made), "P-1", [...made].reverse());
  // The rest went to the oldest invoice: the request as first sent is its replay too.
  const sent = [{ invoice_id: "inv_2", amount_minor: 500 }];
  assertSameAllocations(posting(made, sent), "P-1", sent);
  // Kept before what was sent was recorded: what was sent must have been made.
  assertSameAllocations(posting(made), "P-1", sent);
  assert.throws(
    () =>
      assertSameAllocations(posting(made, sent), "P-1", [{
        invoice_id: "inv_1",
        amount_minor: 300,
      }]),
    (e) =>
      e instanceof Refused && e.rejection.code === "reference_conflict" &&
      e.rejection.message ===
        "reference already paid with other allocations (inv_2 5.00, inv_1 3.00): P-1",
  );
  assert.throws(
    () => assertSameAllocations(posting([]), "P-1", sent),
    (e) => e instanceof Refused && e.rejection.message.includes("(none)"),
  );
});

Deno.test("billing flows: a conversion resolved again at its rate is the replay; at another rate it is refused", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "CUS-ZA", 10_000, { kind: "customs_admin", currency: "ZAR" });
    const input = { entry_reference: "CUS-ZA", rate: "0.75", source: "Bank of Botswana" };
    const first = await resolveFx(t.env, a.caller, a.client, input);
    assert.equal(first.replayed, false);
    assert.deepEqual([first.resolved.amount_minor, first.resolved.currency], [7_500, "BWP"]);
    // The same rate written otherwise is the same rate.
    const again = await resolveFx(t.env, a.caller, a.client, { ...input, rate: "0.7500" });
    assert.equal(again.replayed, true);
    const other = await refused(
      resolveFx(t.env, a.caller, a.client, { ...input, rate: "0.8" }),
      "reference_conflict",
    );
    assert.equal(other.message, "rate: the entry was already resolved at 0.75: 0.8");
  }));

Deno.test("billing flows: invoices issued under a key answer that key again; the key for another period is refused", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    const period = periodOf(t.clock.now());
    const first = await issueInvoices(t.env, a.caller, a.client, period, "k-1");
    assert.equal(first.replayed, false);
    assert.equal(first.invoices.length, 1);
    // A retry after a lost answer: the same invoices, not "nothing to invoice".
    const again = await issueInvoices(t.env, a.caller, a.client, period, "k-1");
    assert.equal(again.replayed, true);
    assert.deepEqual(again.invoices.map((i) => i.id), first.invoices.map((i) => i.id));
    const other = await refused(
      issueInvoices(t.env, a.caller, a.client, "2020-01", "k-1"),
      "reference_conflict",
    );
    assert.equal(
      other.message,
      `Idempotency-Key already invoiced period ${period}, not 2020-01: k-1`,
    );
    // Without a key every call invoices what is left.
    await refused(issueInvoices(t.env, a.caller, a.client, period, null), "nothing_to_invoice");
  }));

Deno.test("billing flows: remitted COD needs evidence; a slip for COD that awaits none is refused and never kept", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    const bytes = new TextEncoder().encode("remittance slip 42");
    const file = { name: "slip.txt", content_type: "text/plain", bytes };
    // WB1 is no shipment of the client's: it answers as one nobody holds (courier 5 rule 4).
    await refused(
      remitCod(t.env, a.caller, a.client, { waybill: "WB1", file }),
      "not_found",
    );
    assert.equal(await readEvidence(t.env.runtime, a.caller.courier, sha256Hex(bytes)), null);
    await must(t, a.caller.courier, a.client, {
      kind: "cod_collected",
      waybill: "WB1",
      amount_minor: 2_500,
      currency: "BWP",
      by: "driver",
    });
    const bare = await refused(
      remitCod(t.env, a.caller, a.client, { waybill: "WB1" }),
      "validation_failed",
    );
    assert.equal(fieldOf(bare), "evidence");
    const remitted = await remitCod(t.env, a.caller, a.client, { waybill: "WB1", file });
    assert.equal(remitted.replayed, false);
    const entry = asPosting(remitted.reply).entry;
    assert.equal(entry.evidence_path, `file:sha256:${sha256Hex(bytes)}`);
    assert.equal(entry.amount_minor, -2_500);
    assert.notEqual(await readEvidence(t.env.runtime, a.caller.courier, sha256Hex(bytes)), null);
    // Sent again (a lost answer): the remittance made, once.
    const again = await remitCod(t.env, a.caller, a.client, { waybill: "WB1", file });
    assert.equal(again.replayed, true);
    assert.equal(asPosting(again.reply).entry.seq, entry.seq);
  }));

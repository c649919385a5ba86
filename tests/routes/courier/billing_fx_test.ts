/** Courier billing conversions (courier 2.6): a charge in another currency awaits its rate, resolve-fx books it. */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { periodOf, PERIODS_KEPT_MAX } from "../../../src/courier/rules/ledger.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  billingCsv,
  billingCsvRows,
  postCharge as charge,
} from "../../helpers/courier.ts";

import { DAY, invoice, ready, resolveFx, rows, settle, view } from "./billing_fixtures.ts";

Deno.test("billing: a conversion resolved long after its period was invoiced and let go goes on the resolution's period, never reopening the old one", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const first = periodOf(t.clock.now());
    // A conversion waits for its rate; the rest of the period is invoiced meanwhile.
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    await charge(t, courier, client, { reference: "M-0", amount_minor: 1_000 });
    const issued = await invoice(t, courier, client, first);
    assert.equal(issued.body.data.invoices[0].supplementary, false);
    await act(t, courier, client, "payment", { amount: 10, currency: "BWP", reference: "P-0" });
    // More invoiced periods than the account keeps (each paid, so none stays open).
    for (let m = 1; m <= PERIODS_KEPT_MAX + 1; m++) {
      t.clock.advanceBy(31 * DAY);
      await charge(t, courier, client, { reference: `M-${m}`, amount_minor: 1_000 });
      const r = await invoice(t, courier, client, periodOf(t.clock.now()));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      await act(t, courier, client, "payment", {
        amount: 10,
        currency: "BWP",
        reference: `P-${m}`,
      });
    }
    await settle(t);
    const resolved = await resolveFx(t, courier, client, "CUS-ZA", "0.75");
    assert.equal(resolved.status, 201, JSON.stringify(resolved.body));
    // spec: courier 2.6 rules 4, 5: booked at its resolution; the old period stays as invoiced.
    const old = await invoice(t, courier, client, first);
    assert.equal(old.status, 422, JSON.stringify(old.body));
    assert.equal(old.body.code, "nothing_to_invoice");
    // This period had its invoice already: the conversion goes on a supplementary one.
    const late = await invoice(t, courier, client, periodOf(t.clock.now()));
    assert.equal(late.status, 201, JSON.stringify(late.body));
    assert.deepEqual(
      late.body.data.invoices.map((i: { amount: number; supplementary: boolean }) => [
        i.amount,
        i.supplementary,
      ]),
      [[75, true]],
    );
  }));

Deno.test("billing: a conversion whose rate takes it past what an answer states exactly is refused, and it still awaits a rate", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "DUT-BIG",
      entry_kind: "duties",
      amount_minor: 99_999_999_999_999,
      currency: "USD",
      recoverable: true,
      evidence_path: "customs receipt",
      source_event: "customs.duties:BIG",
    });
    // 999999999999.99 USD at 99 is past 15 digits of BWP minor units (and past 2^53).
    for (const rate of ["99", "9999999"]) {
      const r = await resolveFx(t, courier, client, "DUT-BIG", rate);
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "amount_too_large");
    }
    const v = await view(t, courier, client);
    assert.deepEqual(
      v.unresolved_conversions.map((u: { reference: string }) => u.reference),
      ["DUT-BIG"],
    );
    assert.equal(v.balances.owed, 0);
    // A rate it can be held at still resolves it.
    const ok = await resolveFx(t, courier, client, "DUT-BIG", "0.01");
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.amount, 10000000000);
  }));

Deno.test("billing: resolve-fx posts a conversion with its rate; cod-remitted reduces what is owed", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    const bad = await resolveFx(t, courier, client, "CUS-ZA", "0.123456789", "x");
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "invalid_fx_rate");
    assert.match(bad.body.message, /^rate: /);
    const r = await resolveFx(
      t,
      courier,
      client,
      "CUS-ZA",
      "0.7525",
      "Bank of Botswana 2026-11-02",
    );
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.amount, 75.25);
    assert.equal(r.body.data.original_amount, 100);
    assert.equal(r.body.data.original_currency, "ZAR");
    assert.equal(r.body.data.balances.balances.receivable, 75.25);
    const unknown = await resolveFx(t, courier, client, "NOPE", "1", "x");
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /^entry_reference: /);
    const [row] = await rows(t, client);
    assert.equal(row!.status, "posted");
    assert.equal(row!.amount_minor, 7_525);
    assert.equal(row!.currency, "BWP");
    assert.equal(row!.fx_rate, "0.7525");
    assert.equal(row!.fx_source, "Bank of Botswana 2026-11-02");
    assert.equal(row!.original_amount_minor, 10_000);
    assert.equal(row!.reason, "customs administration", "the rest of the entry is kept");

    await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
      kind: "cod_collected",
      waybill: "WB-COD-1",
      amount_minor: 5_000,
      currency: "BWP",
      by: "driver:1",
    });
    assert.equal(
      (await view(t, courier, client)).balances.owed,
      75.25,
      "collected is not remitted",
    );
    const missing = await act(t, courier, client, "cod-remitted", {
      waybill: "WB-OTHER",
      evidence: "s3://slips/2.pdf",
    });
    // No shipment of the client's: answered as a waybill nobody holds (courier 5 rule 4).
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    assert.equal(missing.body.code, "not_found");
    assert.match(missing.body.message, /WB-OTHER/);
    // Typed in lower case, as people type waybills: the same waybill.
    const remitted = await act(t, courier, client, "cod-remitted", {
      waybill: " wb-cod-1 ",
      evidence: "s3://slips/1.pdf",
    });
    assert.equal(remitted.status, 201, JSON.stringify(remitted.body));
    assert.equal(remitted.body.data.entry.kind, "cod_remitted");
    assert.equal(remitted.body.data.entry.evidence_path, "s3://slips/1.pdf");
    const twice = await act(t, courier, client, "cod-remitted", {
      waybill: "WB-COD-1",
      evidence: "s3://slips/1.pdf",
    });
    assert.equal(twice.status, 200);
    const v = await view(t, courier, client);
    assert.equal(v.balances.owed, 25.25);
    assert.deepEqual(v.cod_awaiting_remittance, []);
  }));

Deno.test("billing: resolve-fx reads a rate sent as a JSON number exactly, however small", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "CUS-VN",
      amount_minor: 100_000_000,
      currency: "ZAR",
    });
    const r = await resolveFx(t, courier, client, "CUS-VN", 0.0000005);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.fx_rate, "0.0000005");
    assert.equal(r.body.data.amount, 0.5);
  }));

Deno.test("billing: a rate that converts a charge to nothing is refused naming the rate, and it still awaits a rate", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "CUS-TINY",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    const before = await view(t, courier, client);
    // 100.00 ZAR at 0.0000001 is 0.00001 BWP: rounded, nothing; the charge would vanish.
    for (const rate of ["0.0000001", 0.0000001, "0.00004999", 1e-8, "0.00000001"]) {
      const r = await resolveFx(t, courier, client, "CUS-TINY", rate);
      assert.equal(r.status, 422, `${rate}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "invalid_fx_rate", String(rate));
      assert.match(r.body.message, /^rate: /, String(rate));
    }
    // Bad rates of every form are refused, never a 500 and never a wrong amount.
    for (const rate of [0, -1, "0", "-0.5", "1e-7", 1e300, "99999999", "0.123456789", true]) {
      const r = await resolveFx(t, courier, client, "CUS-TINY", rate);
      assert.equal(r.status, 422, `${rate}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.code, /^(invalid_fx_rate|validation_failed)$/, String(rate));
      assert.match(r.body.message, /rate/, String(rate));
    }
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
    assert.deepEqual(await rows(t, client).then((r) => r.map((e) => e.status)), ["unresolved_fx"]);
    // The least rate that books something books it: 100.00 at 0.00005 is 0.005, rounded 0.01.
    const ok = await resolveFx(t, courier, client, "CUS-TINY", "0.00005");
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.amount, 0.01);
  }));

Deno.test("billing export: an entry awaiting its rate stays pending until resolved, then goes out converted", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    const exported = async () => {
      await settle(t);
      await billingCsv(t, courier, "POST", `client_id=${client.id}`);
      const [row] = await rows(t, client);
      return row!;
    };
    // spec: courier 2.6 rule 4, 3.1: without a rate the entry has no amount the courier's system
    // can book; marked exported, its converted amount would never come up as pending.
    const waiting = await exported();
    assert.equal(waiting.status, "unresolved_fx");
    assert.equal(waiting.export_state, "pending");
    const r = await resolveFx(
      t,
      courier,
      client,
      "CUS-ZA",
      "0.7525",
      "Bank of Botswana 2026-11-02",
    );
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const resolved = await exported();
    assert.equal(resolved.status, "posted");
    assert.equal(resolved.amount_minor, 7_525);
    assert.equal(resolved.export_state, "exported");
  }));

Deno.test("billing: a conversion resolved in a later month is booked in that month's statement, invoice and export, and still tells when it arose", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const arose = t.clock.now(); // 2026-11-02
    await charge(t, courier, client, { reference: "CUS-1", amount_minor: 7_500 });
    await charge(t, courier, client, {
      reference: "FX-1",
      amount_minor: 10_000,
      currency: "ZAR",
      source_event: "customs.cleared:xing_1",
    });
    const month = async (method: "GET" | "POST", from: string, to: string) => {
      await settle(t);
      const q = `client_id=${client.id}&from=${from}&to=${to}`;
      return billingCsvRows(await billingCsv(t, courier, method, q));
    };
    // November's export: the conversion has no amount yet, so it stays pending (2.6 rule 4).
    const nov = await month("POST", "2026-11-01", "2026-11-30");
    assert.deepEqual(nov.map((r) => [r["reference"], r["status"], r["export state"]]), [
      ["CUS-1", "posted", "exported"],
      ["FX-1", "unresolved_fx", "pending"],
    ]);
    assert.equal((await invoice(t, courier, client, "2026-11")).status, 201);

    t.clock.advanceBy(33 * DAY); // 2026-12-05
    const r = await resolveFx(t, courier, client, "FX-1", "0.7525", "Bank of Botswana 2026-12-05");
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.period, "2026-12");
    assert.equal(r.body.data.charged_at, new Date(arose).toISOString());

    // December's export carries it, dated the resolution, with what it arose from.
    const dec = await month("POST", "2026-12-01", "2026-12-31");
    assert.deepEqual(
      dec.map((x) => [
        x["date"],
        x["reference"],
        x["amount"],
        x["currency"],
        x["status"],
        x["source event"],
        x["original amount"],
        x["original currency"],
        x["FX rate"],
        x["export state"],
      ]),
      [[
        "2026-12-05",
        "FX-1",
        "75.25",
        "BWP",
        "posted",
        "customs.cleared:xing_1",
        "100.00",
        "ZAR",
        "0.7525",
        "exported",
      ]],
    );
    // November's file and statement stay as they were sent: no entry moved into them.
    const novAgain = await month("GET", "2026-11-01", "2026-11-30");
    assert.deepEqual(novAgain.map((x) => x["reference"]), ["CUS-1"]);
    const novView = await view(t, courier, client, "2026-11");
    assert.equal(novView.statement.totals[0].closing_balance, 75);
    const decView = await view(t, courier, client, "2026-12");
    const [entry] = decView.statement.entries;
    assert.equal(decView.statement.entries.length, 1);
    assert.equal(entry.reference, "FX-1");
    assert.equal(entry.period, "2026-12");
    assert.equal(entry.created_at, new Date(t.clock.now()).toISOString());
    assert.equal(entry.charged_at, new Date(arose).toISOString());
    assert.equal(entry.source_event, "customs.cleared:xing_1");
    assert.equal(entry.fx_source, "Bank of Botswana 2026-12-05");
    assert.deepEqual(decView.statement.totals, [{
      currency: "BWP",
      opening_balance: 75,
      charges: 75.25,
      recoverable_duties: 0,
      received: 0,
      net: 75.25,
      closing_balance: 150.25,
    }]);
    // Invoiced with December, not as a supplementary to November.
    const lateNov = await invoice(t, courier, client, "2026-11");
    assert.equal(lateNov.body.code, "nothing_to_invoice");
    const decInvoice = await invoice(t, courier, client, "2026-12");
    assert.deepEqual(
      decInvoice.body.data.invoices.map((i: { amount: number; supplementary: boolean }) => [
        i.amount,
        i.supplementary,
      ]),
      [[75.25, false]],
    );
  }));

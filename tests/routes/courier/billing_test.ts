import assert from "node:assert/strict";
import { sql } from "kysely";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { subjectOf } from "../../../src/bus/bus.ts";
import { STATE_BYTES_MAX } from "../../../src/limits.ts";
import { periodOf, PERIODS_KEPT_MAX } from "../../../src/courier/rules/ledger.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  billingCsv,
  billingCsvRows,
  bookWaybill,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  postCharge as charge,
  topUp,
} from "../../helpers/courier.ts";

const DAY = 24 * 60 * 60 * 1000;
const CREDIT = { settlement_mode: "credit", credit_limit: "5000.00", payment_days: 30 };

async function ready(
  t: TestEnv,
  settings: Record<string, unknown> = CREDIT,
): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  return [courier, await newClient(t, courier, settings)];
}

/** Lets the projections catch up with what was committed. */
function settle(t: TestEnv): Promise<void> {
  return t.settle();
}

function invoice(t: TestEnv, courier: Courier, client: Client, period: string) {
  return t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
    key: courier.business.api_key,
    body: { period },
  });
}

async function view(t: TestEnv, courier: Courier, client: Client, period?: string) {
  await settle(t);
  const q = period ? `?period=${period}` : "";
  const r = await t.call("GET", `/business/courier/clients/${client.id}/billing${q}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

async function rows(t: TestEnv, client: Client) {
  await settle(t);
  return await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("client_id", "=", client.id).orderBy("seq").execute();
}

async function book(t: TestEnv, client: Client): Promise<string> {
  const offer = await t.call("POST", "/client/prices", {
    headers: clientKey(client),
    body: DOMESTIC,
  });
  assert.equal(offer.status, 200, JSON.stringify(offer.body));
  const r = await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: {
      prices_reference: offer.body.data.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: true,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.waybill;
}

Deno.test("billing: a payment pays the invoices it names within their balances, the rest oldest first", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "CUS-1" });
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 12_050,
    });
    const issued = await invoice(t, courier, client, "2026-11");
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const [inv] = issued.body.data.invoices;
    assert.equal(inv.amount, 195.5);
    assert.equal(inv.due_on, "2026-12-02");

    const over = await act(t, courier, client, "payment", {
      amount: "300.00",
      currency: "BWP",
      reference: "EFT-1",
      allocations: [{ invoice_id: inv.id, amount: "200.00" }],
    });
    assert.equal(over.status, 422);
    assert.equal(over.body.code, "allocation_exceeds_invoice");
    const beyond = await act(t, courier, client, "payment", {
      amount: "100.00",
      currency: "BWP",
      reference: "EFT-1",
      allocations: [{ invoice_id: inv.id, amount: "150.00" }],
    });
    assert.equal(beyond.body.code, "allocations_exceed_payment");

    const paid = await act(t, courier, client, "payment", {
      amount: "150.00",
      currency: "BWP",
      reference: "EFT-1",
      allocations: [{ invoice_id: inv.id, amount: 150 }],
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.deepEqual(paid.body.data.allocations, [{ invoice_id: inv.id, amount: 150 }]);
    assert.equal(paid.body.data.entry.kind, "payment");
    assert.equal(paid.body.data.entry.amount, -150);
    assert.equal(paid.body.data.balances.balances.receivable, 45.5);
    const again = await act(t, courier, client, "payment", {
      amount: "150.00",
      currency: "BWP",
      reference: "EFT-1",
    });
    assert.equal(again.status, 200, "the same reference pays once");
    assert.equal(again.body.data.replayed, true);
    const same = await act(t, courier, client, "payment", {
      amount: "150.00",
      currency: "BWP",
      reference: "EFT-1",
      allocations: [{ invoice_id: inv.id, amount: "150.00" }],
    });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    assert.equal(same.body.data.replayed, true);
    // Sent again allocating otherwise, it is not the same payment: the allocations it names
    // were never made, so it is refused rather than answered as if they were.
    const otherwise = await act(t, courier, client, "payment", {
      amount: "150.00",
      currency: "BWP",
      reference: "EFT-1",
      allocations: [{ invoice_id: inv.id, amount: "100.00" }],
    });
    assert.equal(otherwise.status, 409, JSON.stringify(otherwise.body));
    assert.equal(otherwise.body.code, "reference_conflict");
    assert.match(otherwise.body.message, /EFT-1/);

    const rest = await act(t, courier, client, "payment", {
      amount: 100,
      currency: "BWP",
      reference: "EFT-2",
    });
    assert.deepEqual(rest.body.data.allocations, [{ invoice_id: inv.id, amount: 45.5 }]);
    assert.equal(rest.body.data.unallocated, 54.5);

    const v = await view(t, courier, client);
    assert.equal(v.balances.receivable, -54.5);
    assert.equal(v.balances.unallocated_credit, 54.5);
    assert.equal(v.balances.owed, -54.5);
    // Credit on account uses none of the limit, and adds to what may be booked.
    assert.equal(v.credit.used, 0);
    assert.equal(v.credit.available, v.credit.limit + 54.5);
    const own = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(own.body.data.credit_used, 0);
    assert.equal(own.body.data.available, v.credit.available);
    assert.equal(v.invoices[0].status, "settled");
    assert.deepEqual(
      v.payments.map((p: { reference: string; amount: number; allocations: unknown }) => [
        p.reference,
        p.amount,
        p.allocations,
      ]),
      [
        // The rest of EFT-2 stays on account: only what paid the invoice is allocated.
        ["EFT-2", 100, [{ invoice_id: inv.id, amount: 45.5 }]],
        ["EFT-1", 150, [{ invoice_id: inv.id, amount: 150 }]],
      ],
    );
    const stored = await t.env.db.selectFrom("invoices").selectAll().where("id", "=", inv.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.paid_minor, 19_550);
    assert.equal(stored.amount_minor, 19_550);
  }));

Deno.test("billing: a payment sent again as it was is the replay, though its rest was allocated too", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "CUS-1" });
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 12_050,
    });
    const [inv] = (await invoice(t, courier, client, "2026-11")).body.data.invoices;
    assert.equal(inv.amount, 195.5);
    // 100.00 named for the invoice; the other 50.00 goes to it too, oldest first: the
    // allocations made (150.00) are not the ones sent (100.00).
    const body = {
      amount: "150.00",
      currency: "BWP",
      reference: "EFT-1",
      allocations: [{ invoice_id: inv.id, amount: "100.00" }],
    };
    const paid = await act(t, courier, client, "payment", body);
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.deepEqual(paid.body.data.allocations, [{ invoice_id: inv.id, amount: 150 }]);
    // The same request again after a lost answer (spec: courier 2.6 rule 2: books once): the
    // replay, not a conflict with itself; in another spelling of the same amounts too.
    const again = await act(t, courier, client, "payment", body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.replayed, true);
    assert.deepEqual(again.body.data.allocations, [{ invoice_id: inv.id, amount: 150 }]);
    const spelt = await act(t, courier, client, "payment", {
      ...body,
      amount: 150,
      allocations: [{ invoice_id: inv.id, amount: 100 }],
    });
    assert.equal(spelt.status, 200, JSON.stringify(spelt.body));
    // Sent as it was made, it is answered as it was made.
    const made = await act(t, courier, client, "payment", {
      ...body,
      allocations: [{ invoice_id: inv.id, amount: "150.00" }],
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    // Neither what was sent first nor what was made: not this payment.
    const other = await act(t, courier, client, "payment", {
      ...body,
      allocations: [{ invoice_id: inv.id, amount: "120.00" }],
    });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.equal((await view(t, courier, client)).balances.receivable, 45.5, "paid once");
  }));

Deno.test("billing: an invoice request sent again with its Idempotency-Key answers the first invoices", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "CUS-1" });
    const send = (period: string) =>
      t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
        key: courier.business.api_key,
        headers: { "Idempotency-Key": "close-2026-11" },
        body: { period },
      });
    const first = await send("2026-11");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.replayed, false);
    // Something booked between the lost answer and the retry must not go on a supplementary.
    await charge(t, courier, client, { reference: "CUS-2" });
    const again = await send("2026-11");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.replayed, true);
    assert.deepEqual(again.body.data.invoices, first.body.data.invoices);
    const other = await send("2026-10");
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.match(other.body.message, /Idempotency-Key already invoiced period 2026-11/);
    const view = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    assert.equal(view.body.data.invoices.length, 1, "one invoice issued");
  }));

Deno.test("billing: a credit invoice's credit pays the open invoice; paid in full, nothing is open or ageing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 10_000,
    });
    const issued = await invoice(t, courier, client, "2026-11");
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const [first] = issued.body.data.invoices;
    await settle(t);
    const cn = await act(t, courier, client, "correct", {
      entry_reference: "W-1",
      amount: "-30.00",
      reason: "waiting overcharged",
    });
    assert.equal(cn.status, 201, JSON.stringify(cn.body));
    // spec: courier 2.6 rule 5: the credit note goes on a supplementary (credit) invoice.
    const supp = await invoice(t, courier, client, "2026-11");
    assert.equal(supp.status, 201, JSON.stringify(supp.body));
    assert.equal(supp.body.data.invoices[0].amount, -30);
    assert.equal(
      supp.body.data.balances.balances.unallocated_credit,
      0,
      "the credit paid the invoice",
    );
    await settle(t);
    const stored = await t.env.db.selectFrom("invoices").select(["amount_minor", "paid_minor"])
      .where("id", "=", first.id).executeTakeFirstOrThrow();
    assert.deepEqual([Number(stored.amount_minor), Number(stored.paid_minor)], [10_000, 3_000]);
    const pay = await act(t, courier, client, "payment", {
      amount: "70.00",
      currency: "BWP",
      reference: "EFT-1",
    });
    assert.equal(pay.status, 201, JSON.stringify(pay.body));
    t.clock.advanceBy(60 * DAY);
    const v = await view(t, courier, client);
    assert.equal(v.balances.owed, 0);
    assert.deepEqual(v.ageing, {
      current: 0,
      "1-30": 0,
      "31-60": 0,
      "61-90": 0,
      "90+": 0,
      credit: 0,
    });
    assert.deepEqual(
      v.invoices.map((i: Record<string, unknown>) => [
        i.amount,
        i.paid,
        i.credited_to_account,
        i.balance,
        i.status,
      ]),
      // The credit invoice was paid nothing: its credit went to the account and paid the other.
      [[-30, 0, 30, 0, "settled"], [100, 100, 0, 0, "settled"]],
    );
  }));

Deno.test("billing view: a charge paid ahead of its invoice does not age", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 10_000,
    });
    await charge(t, courier, client, {
      reference: "W-2",
      entry_kind: "waiting",
      amount_minor: 2_500,
    });
    const pay = await act(t, courier, client, "payment", {
      amount: "100.00",
      currency: "BWP",
      reference: "EFT-1",
    });
    assert.equal(pay.status, 201, JSON.stringify(pay.body));
    const v = await view(t, courier, client);
    assert.equal(v.balances.owed, 25);
    assert.equal(v.balances.unallocated_credit, 100);
    // spec: courier 4.2: ageing is of what is owed: the credit on account covers the rest.
    assert.deepEqual(v.ageing, {
      current: 25,
      "1-30": 0,
      "31-60": 0,
      "61-90": 0,
      "90+": 0,
      credit: 0,
    });
  }));

Deno.test("billing: one invoice per currency; entries carry its id; a late entry goes on a supplementary", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "A", amount_minor: 10_000 });
    await act(t, courier, client, "payment", { amount: 100, currency: "BWP", reference: "P-1" });
    // The balances are settled, so the client may move to another billing currency (its limit
    // named in it, off the BWP rate card).
    const moved = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { billing_currency: "ZAR", credit_limit: "5000.00", rate_card_id: null },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await charge(t, courier, client, { reference: "B", amount_minor: 5_000, currency: "ZAR" });

    const both = await invoice(t, courier, client, "2026-11");
    assert.equal(both.status, 201, JSON.stringify(both.body));
    const invoices = both.body.data.invoices;
    assert.deepEqual(
      invoices.map((
        i: { currency: string; amount: number; supplementary: boolean; status: string },
      ) => [
        i.currency,
        i.amount,
        i.supplementary,
        i.status,
      ]),
      [["BWP", 100, false, "settled"], ["ZAR", 50, false, "open"]],
    );
    const byRef = async () =>
      Object.fromEntries((await rows(t, client)).map((r) => [r.reference, r.invoice_id]));
    assert.deepEqual(await byRef(), { A: invoices[0].id, "P-1": null, B: invoices[1].id });

    await charge(t, courier, client, { reference: "C", amount_minor: 2_000, currency: "ZAR" });
    const late = await invoice(t, courier, client, "2026-11");
    assert.equal(late.body.data.invoices.length, 1);
    const supplementary = late.body.data.invoices[0];
    assert.equal(supplementary.supplementary, true);
    assert.equal(supplementary.amount, 20);
    assert.deepEqual(await byRef(), {
      A: invoices[0].id,
      "P-1": null,
      B: invoices[1].id,
      C: supplementary.id,
    });
    const none = await invoice(t, courier, client, "2026-11");
    assert.equal(none.status, 422);
    assert.equal(none.body.code, "nothing_to_invoice");
    const bad = await invoice(t, courier, client, "2026-13");
    assert.equal(bad.body.code, "validation_failed");
    const stored = await t.env.db.selectFrom("invoices").select(["id", "supplementary"])
      .where("client_id", "=", client.id).orderBy("issued_at").execute();
    assert.equal(stored.length, 3);
    // With balances open the billing currency stays.
    const stuck = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { billing_currency: "BWP" },
    });
    assert.equal(stuck.status, 409);
    assert.equal(stuck.body.code, "balance_not_settled");
  }));

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
    const resolved = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-ZA",
      rate: "0.75",
      source: "Bank of Botswana",
    });
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

Deno.test("billing view: balances, credit use, ageing, statement, COD, conversions and invoices", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client); // express 88.92
    await charge(t, courier, client, {
      reference: "DUT-1",
      entry_kind: "duties",
      amount_minor: 20_000,
      recoverable: true,
      evidence_path: "s3://evidence/dut-1.pdf",
      source_event: "customs.duties:crs_1",
      shipment: waybill,
    });
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    const cod = await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
      kind: "cod_collected",
      waybill,
      amount_minor: 30_000,
      currency: "BWP",
      by: "driver:1",
    });
    assert.ok(cod.ok);
    const issued = await invoice(t, courier, client, "2026-11");
    assert.equal(issued.body.data.invoices[0].amount, 288.92);
    t.clock.advanceBy(45 * DAY); // 2026-12-17: the invoice is 15 days past due
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 1_000,
    });

    const v = await view(t, courier, client);
    assert.deepEqual(v.balances, {
      prepaid: 0,
      receivable: 98.92,
      recoverable_duties: 200,
      unallocated_credit: 0,
      owed: 298.92,
    });
    // Duties apart from revenue, yet owed: credit in use like the charges (the open invoice has
    // both).
    assert.deepEqual(v.credit, { limit: 5000, used: 298.92, available: 4701.08 });
    assert.deepEqual(v.ageing, {
      current: 10,
      "1-30": 288.92,
      "31-60": 0,
      "61-90": 0,
      "90+": 0,
      credit: 0,
    });
    assert.deepEqual(
      v.cod_awaiting_remittance.map((
        c: { waybill: string; amount: number },
      ) => [c.waybill, c.amount]),
      [
        [waybill, 300],
      ],
    );
    assert.deepEqual(
      v.unresolved_conversions.map((u: { reference: string; amount: number; currency: string }) => [
        u.reference,
        u.amount,
        u.currency,
      ]),
      [["CUS-ZA", 100, "ZAR"]],
    );
    assert.equal(v.invoices[0].days_past_due, 15);
    assert.equal(v.statement.period, "2026-12");
    assert.deepEqual(v.statement.entries.map((e: { reference: string }) => e.reference), ["W-1"]);
    // The period opens at what November closed at: a running balance, period to period.
    assert.deepEqual(v.statement.totals, [{
      currency: "BWP",
      opening_balance: 288.92,
      charges: 10,
      recoverable_duties: 0,
      received: 0,
      net: 10,
      closing_balance: 298.92,
    }]);

    const nov = await view(t, courier, client, "2026-11");
    const entries = nov.statement.entries;
    assert.deepEqual(entries.map((e: { kind: string; status: string }) => [e.kind, e.status]), [
      ["shipment", "posted"],
      ["duties", "posted"],
      ["customs_admin", "unresolved_fx"],
    ]);
    assert.equal(entries[0].reference, waybill);
    assert.equal(entries[0].amount, 88.92);
    assert.equal(entries[0].source_event, `shipment.booked:${waybill}`);
    assert.equal(entries[1].recoverable, true);
    assert.equal(entries[1].invoice_id, issued.body.data.invoices[0].id);
    assert.equal(entries[2].invoice_id, null);
    assert.equal(entries[0].export_state, "pending");
    // Revenue and recovered duties apart.
    assert.deepEqual(nov.statement.totals, [{
      currency: "BWP",
      opening_balance: 0,
      charges: 88.92,
      recoverable_duties: 200,
      received: 0,
      net: 288.92,
      closing_balance: 288.92,
    }]);

    const own = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(own.status, 200);
    assert.equal(own.body.data.ledger_balance, 298.92);
    assert.equal(own.body.data.recoverable_duties, 200);
    assert.equal(own.body.data.credit_used, 298.92);
    assert.deepEqual(own.body.data.invoices.map((i: { id: string }) => i.id), [
      issued.body.data.invoices[0].id,
    ]);
  }));

Deno.test("billing: recoverable duties use credit: a booking past the limit with them is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { ...CREDIT, credit_limit: "250.00" });
    await charge(t, courier, client, {
      reference: "DUT-1",
      entry_kind: "duties",
      amount_minor: 20_000,
      recoverable: true,
      evidence_path: "s3://evidence/dut-1.pdf",
      source_event: "customs.duties:crs_1",
    });
    const offer = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    // spec: courier 2.2: what the account can cover, the duties it owes counted.
    assert.equal(offer.body.data.account.available, 50);
    const r = await t.call("POST", "/client/book", {
      headers: clientKey(client),
      body: {
        prices_reference: offer.body.data.prices_reference,
        service_level: "express", // 88.92
        dangerous_goods_confirmed: false,
      },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "insufficient_balance");
    const own = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(own.body.data.credit_used, 200);
    assert.equal(own.body.data.available, 50);
    // Paid, the duties free the credit they used.
    await act(t, courier, client, "payment", { amount: 200, currency: "BWP", reference: "P-1" });
    assert.equal(await book(t, client) !== "", true);
    // Credited back once paid, the duties are owed to the client: they offset its charges, as
    // its credit on account offsets its next invoice, so it uses no credit while in credit.
    await settle(t); // a note finds its entry on the query side
    const note = await act(t, courier, client, "correct", {
      entry_reference: "DUT-1",
      amount: "-200.00",
      reason: "duty refunded by customs",
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const after = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(after.body.data.ledger_balance, -111.08, "owes -200 + 88.92");
    assert.equal(after.body.data.credit_used, 0);
    assert.equal(after.body.data.available, 361.08);
    const v = await view(t, courier, client);
    assert.deepEqual(v.credit, { limit: 250, used: 0, available: 361.08 });
    // The client's own view names and signs its balances as the courier's view does, and its
    // ageing shows the credit, so the buckets less the credit are what is owed.
    assert.deepEqual(after.body.data.balances, v.balances);
    assert.equal(after.body.data.balances.owed, after.body.data.ledger_balance);
    assert.equal(after.body.data.balances.prepaid, after.body.data.balance);
    const credited = { current: 0, "1-30": 0, "31-60": 0, "61-90": 0, "90+": 0, credit: 111.08 };
    assert.deepEqual(after.body.data.ageing, credited);
    assert.deepEqual(v.ageing, credited);
  }));

Deno.test("billing: an invoice's duties are recovered when it is paid, whatever else is owed", () =>
  withTestEnv(async (t) => {
    // spec: courier 2.6: duties paid on the client's behalf are recoverable, kept apart from
    // charges (not revenue). A paid invoice of duties leaves no duty unrecovered, and the
    // charges booked after it are still owed as charges.
    const [courier, client] = await ready(t);
    const duty = (reference: string, source: string) =>
      charge(t, courier, client, {
        reference,
        entry_kind: "duties",
        amount_minor: 2_000,
        recoverable: true,
        evidence_path: `s3://evidence/${reference}.pdf`,
        source_event: source,
      });
    await duty("DUT-1", "customs.duties:crs_1");
    const issued = await invoice(t, courier, client, "2026-11");
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const [inv] = issued.body.data.invoices;
    assert.equal(inv.amount, 20);
    assert.equal(inv.recoverable_duties, 20, "the invoice tells its duties apart");
    await book(t, client); // 88.92, after the invoice
    const paid = await act(t, courier, client, "payment", {
      amount: "20.00",
      currency: "BWP",
      reference: "P-DUT",
      allocations: [{ invoice_id: inv.id, amount: "20.00" }],
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    const owed = { prepaid: 0, receivable: 88.92, recoverable_duties: 0, unallocated_credit: 0 };
    assert.deepEqual(paid.body.data.balances.balances, { ...owed, owed: 88.92 });
    const v = await view(t, courier, client);
    assert.deepEqual(v.balances, { ...owed, owed: 88.92 });
    const own = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.deepEqual(own.body.data.balances, v.balances);
    assert.equal(own.body.data.recoverable_duties, 0);

    // Credit on account that pays an invoice of duties at its issue recovers them too.
    const [courier2, client2] = await ready(t);
    const ahead = await act(t, courier2, client2, "payment", {
      amount: "20.00",
      currency: "BWP",
      reference: "P-AHEAD",
    });
    assert.equal(ahead.status, 201, JSON.stringify(ahead.body));
    await charge(t, courier2, client2, {
      reference: "DUT-2",
      entry_kind: "duties",
      amount_minor: 2_000,
      recoverable: true,
      evidence_path: "s3://evidence/DUT-2.pdf",
      source_event: "customs.duties:crs_2",
    });
    const settled = await invoice(t, courier2, client2, "2026-11");
    assert.equal(settled.status, 201, JSON.stringify(settled.body));
    assert.equal(settled.body.data.invoices[0].status, "settled");
    await book(t, client2);
    const v2 = await view(t, courier2, client2);
    assert.deepEqual(v2.balances, { ...owed, owed: 88.92 });
  }));

Deno.test("billing: amounts and balances stay within what an answer states exactly; past it, refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "prepaid" });
    const topUp = (amount: string, reference: string) =>
      act(t, courier, client, "top-up", { amount, currency: "BWP", reference });
    // 16 digits: a JSON number would read 89999999999979.99 back as 89999999999979.98.
    const big = await topUp("89999999999979.99", "BIG-1");
    assert.equal(big.status, 422, JSON.stringify(big.body));
    assert.equal(big.body.code, "validation_failed");
    assert.match(big.body.message, /amount: amount too large/);
    // Each amount within the bound, their sum past it: the one that would pass is refused whole.
    const most = await topUp("9999999999999.99", "MOST");
    assert.equal(most.status, 201, JSON.stringify(most.body));
    assert.equal(most.body.data.balance, 9999999999999.99);
    const past = await topUp("0.01", "PAST");
    assert.equal(past.status, 422, JSON.stringify(past.body));
    assert.equal(past.body.code, "amount_too_large");
    assert.match(past.body.message, /prepaid balance would pass 9999999999999\.99/);
    const v = await view(t, courier, client);
    assert.equal(v.balances.prepaid, 9999999999999.99, "nothing booked");
    await settle(t);
    assert.deepEqual((await rows(t, client)).map((r) => r.reference), ["MOST"]);

    // Payments ahead of invoices add up as credit on account: bounded the same way.
    const credit = await newClient(t, courier, CREDIT);
    const pay = (amount: string, reference: string) =>
      act(t, courier, credit, "payment", { amount, currency: "BWP", reference });
    assert.equal((await pay("9999999999999.99", "P-MOST")).status, 201);
    const over = await pay("0.01", "P-PAST");
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.equal(over.body.code, "amount_too_large");
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
      const r = await act(t, courier, client, "resolve-fx", {
        entry_reference: "DUT-BIG",
        rate,
        source: "Bank of Botswana",
      });
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
    const ok = await act(t, courier, client, "resolve-fx", {
      entry_reference: "DUT-BIG",
      rate: "0.01",
      source: "Bank of Botswana",
    });
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
    const bad = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-ZA",
      rate: "0.123456789",
      source: "x",
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "invalid_fx_rate");
    assert.match(bad.body.message, /^rate: /);
    const r = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-ZA",
      rate: "0.7525",
      source: "Bank of Botswana 2026-11-02",
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.amount, 75.25);
    assert.equal(r.body.data.original_amount, 100);
    assert.equal(r.body.data.original_currency, "ZAR");
    assert.equal(r.body.data.balances.balances.receivable, 75.25);
    const unknown = await act(t, courier, client, "resolve-fx", {
      entry_reference: "NOPE",
      rate: "1",
      source: "x",
    });
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
    assert.equal(missing.body.code, "cod_not_collected");
    assert.match(missing.body.message, /^waybill: /);
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

Deno.test("billing: cod-remitted takes the remittance slip as an evidence file, kept and read back", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    for (const waybill of ["WB-COD-F", "WB-COD-G"]) {
      await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
        kind: "cod_collected",
        waybill,
        amount_minor: 5_000,
        currency: "BWP",
        by: "driver:1",
      });
    }
    const slip = new TextEncoder().encode("%PDF-1.4 remittance slip 2026-11-02");
    const form = (waybill: string, file = true) => {
      const f = new FormData();
      f.set("waybill", waybill);
      if (file) f.set("evidence_file", new File([slip], "slip 1.pdf", { type: "application/pdf" }));
      return f;
    };
    const hash = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", slip)))
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    const evidence = (sha: string, key = courier.business.api_key) =>
      t.app.request(`/api/business/courier/billing/evidence/${sha}`, {
        headers: { "X-Business-API-Key": key },
      });

    // Refused: no COD awaits this waybill, or no evidence at all; no file is kept for either.
    const none = await act(t, courier, client, "cod-remitted", form("WB-NOT-COLLECTED"));
    assert.equal(none.status, 422, JSON.stringify(none.body));
    assert.equal(none.body.code, "cod_not_collected");
    const bare = await act(t, courier, client, "cod-remitted", form("WB-COD-F", false));
    assert.equal(bare.status, 422, JSON.stringify(bare.body));
    assert.equal(bare.body.code, "validation_failed");
    assert.equal(bare.body.errors[0].path, "evidence");
    const asText = new FormData();
    asText.set("waybill", "WB-COD-F");
    asText.set("evidence_file", "not a file");
    const text = await act(t, courier, client, "cod-remitted", asText);
    assert.equal(text.body.errors?.[0]?.path, "evidence_file", JSON.stringify(text.body));
    assert.equal((await evidence(hash)).status, 404, "nothing stored by a refusal");
    assert.equal((await view(t, courier, client)).cod_awaiting_remittance.length, 2);

    const remitted = await act(t, courier, client, "cod-remitted", form("WB-COD-F"));
    assert.equal(remitted.status, 201, JSON.stringify(remitted.body));
    assert.equal(remitted.body.data.entry.evidence_path, `file:sha256:${hash}`);
    const again = await act(t, courier, client, "cod-remitted", form("WB-COD-F"));
    assert.equal(again.status, 200, "the same remittance again books once");
    const file = await evidence(hash);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "application/pdf");
    assert.match(file.headers.get("Content-Disposition") ?? "", /slip%201\.pdf/);
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), slip);
    // JSON with an evidence text still works.
    const json = await act(t, courier, client, "cod-remitted", {
      waybill: "WB-COD-G",
      evidence: "bank statement line 4411",
    });
    assert.equal(json.status, 201, JSON.stringify(json.body));
    const v = await view(t, courier, client);
    assert.deepEqual(v.cod_awaiting_remittance, []);
    await settle(t);
    const evidencePaths = (await rows(t, client)).filter((r) => r.kind === "cod_remitted")
      .map((r) => r.evidence_path).sort();
    assert.deepEqual(evidencePaths, ["bank statement line 4411", `file:sha256:${hash}`]);

    // Another courier's staff never reads this courier's evidence.
    const other = await newCourier(t);
    assert.equal((await evidence(hash, other.business.api_key)).status, 404);
    assert.equal((await evidence("nothex")).status, 422);
  }));

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

Deno.test("billing: an entry quoting a reference another kind holds is booked and stored in Postgres", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client);
    await charge(t, courier, client, {
      reference: "W-2",
      entry_kind: "waiting",
      amount_minor: 3_000,
    });
    // The client pays for the shipment quoting its waybill (spec: courier 2.6 "reference").
    const paid = await act(t, courier, client, "payment", {
      amount: "10.00",
      currency: "BWP",
      reference: waybill,
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    await settle(t);
    // A note numbered like the waiting charge.
    const note = await act(t, courier, client, "correct", {
      entry_reference: "W-2",
      amount: "-5.00",
      reason: "waiting overcharged",
      reference: "W-2",
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const stored = await rows(t, client);
    assert.deepEqual(stored.map((r) => [r.kind, r.reference, r.amount_minor, r.corrects_kind]), [
      ["shipment", waybill, 8_892, null],
      ["waiting", "W-2", 3_000, null],
      ["payment", waybill, -1_000, null],
      ["credit_note", "W-2", -500, "waiting"],
    ]);
    const v = await view(t, courier, client);
    const posted = stored.filter((r) => r.status === "posted");
    assert.equal(posted.reduce((n, r) => n + r.amount_minor, 0) / 100, v.balances.owed);
    assert.deepEqual(v.payments.map((p: { reference: string }) => p.reference), [waybill]);
    assert.equal(v.statement.entries.length, 4);

    // A note on the waybill points at the shipment: a payment is never a note's target.
    const onShipment = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-1.00",
      reason: "discount",
    });
    assert.equal(onShipment.status, 201, JSON.stringify(onShipment.body));
    assert.equal(onShipment.body.data.entry.shipment, waybill);
    // A note is never a note's target either (spec: courier 2.6 rule 5: notes point at the
    // original entry): of the two entries holding W-2 only the waiting charge is corrected.
    const onCharge = await act(t, courier, client, "correct", {
      entry_reference: "W-2",
      amount: "-1.00",
      reason: "x",
    });
    assert.equal(onCharge.status, 201, JSON.stringify(onCharge.body));
    assert.equal(onCharge.body.data.entry.corrects, "W-2");
    const onNote = await act(t, courier, client, "correct", {
      entry_reference: "W-2",
      entry_kind: "credit_note",
      amount: "1.00",
      reason: "x",
    });
    assert.equal(onNote.body.code, "not_correctable", JSON.stringify(onNote.body));
    await settle(t);
    // The waiting charge nets 30.00 - 5.00 - 1.00: its own notes count, not the note W-2's.
    const tooMuch = await act(t, courier, client, "correct", {
      entry_reference: "W-2",
      entry_kind: "waiting",
      amount: "-24.01",
      reason: "x",
    });
    assert.equal(tooMuch.body.code, "correction_exceeds_entry", JSON.stringify(tooMuch.body));
    const rest = await act(t, courier, client, "correct", {
      entry_reference: "W-2",
      entry_kind: "waiting",
      amount: "-24.00",
      reason: "x",
    });
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    assert.equal((await rows(t, client)).length, 7);
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

Deno.test("billing: actions need billing:administer, the view billing:view-own; other couriers see 404", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [other, theirs] = await ready(t);
    await charge(t, courier, client, { reference: "A" });
    await settle(t);
    const asOther = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { key: other.business.api_key, ...(body ? { body } : {}) });
    const base = `/business/courier/clients/${client.id}`;
    assert.equal((await asOther("GET", `${base}/billing`)).status, 404);
    assert.equal((await asOther("POST", `${base}/invoice`, { period: "2026-11" })).status, 404);
    for (
      const [action, body] of [
        ["payment", { amount: 1, currency: "BWP", reference: "X" }],
        ["correct", { entry_reference: "A", amount: -1, reason: "x" }],
        ["cod-remitted", { waybill: "WB1", evidence: "x" }],
        ["resolve-fx", { entry_reference: "A", rate: "1", source: "x" }],
        ["top-up", { amount: 1, currency: "BWP", reference: "X" }],
      ] as const
    ) {
      const r = await asOther("POST", `${base}/billing/${action}`, body);
      assert.equal(r.status, 404, `${action}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await view(t, other, theirs)).balances.owed, 0);

    // A key with billing:view-own only may look, not act.
    await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:view-own"] },
    });
    const pay = await act(t, courier, client, "payment", {
      amount: 1,
      currency: "BWP",
      reference: "X",
    });
    assert.equal(pay.status, 403);
    assert.equal(pay.body.code, "scope_denied");
    assert.equal((await invoice(t, courier, client, "2026-11")).body.code, "scope_denied");
    assert.equal((await view(t, courier, client)).balances.owed, 75);
    await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: [] },
    });
    const blind = await t.call("GET", `${base}/billing`, { key: courier.business.api_key });
    assert.equal(blind.status, 403);
    // Who administers billing reads it: billing:administer alone opens the billing view.
    await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer"] },
    });
    const administered = await t.call("GET", `${base}/billing`, { key: courier.business.api_key });
    assert.equal(administered.status, 200, JSON.stringify(administered.body));
    assert.equal(administered.body.data.balances.owed, 75);
    // A client's key does not open the courier's billing routes.
    const byClient = await t.call("GET", `${base}/billing`, { headers: clientKey(client) });
    assert.equal(byClient.status, 401);
    // A client sees only its own account.
    const own = await t.call("GET", "/client/account", { headers: clientKey(theirs) });
    assert.equal(own.body.data.client_id, theirs.id);
    assert.equal(own.body.data.ledger_balance, 0);
  }));

Deno.test("billing: external settlement records the booking, posts no receivable, refuses invoices", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    const waybill = await book(t, client);
    const inv = await invoice(t, courier, client, "2026-11");
    assert.equal(inv.status, 422);
    assert.equal(inv.body.code, "external_settlement");
    const pay = await act(t, courier, client, "payment", {
      amount: 1,
      currency: "BWP",
      reference: "X",
    });
    assert.equal(pay.body.code, "external_settlement");
    const v = await view(t, courier, client);
    assert.equal(v.credit, null);
    assert.equal(v.ageing, null);
    assert.equal(v.balances.owed, 0);
    assert.deepEqual(
      v.statement.entries.map((
        e: { reference: string; status: string },
      ) => [e.reference, e.status]),
      [[waybill, "external"]],
    );
    assert.deepEqual(v.statement.totals, [], "nothing posted");
  }));

Deno.test("billing: a top-up is a ledger entry and the same reference credits once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, {});
    const body = { amount: "500.00", currency: "BWP", reference: "EFT-77" };
    const first = await act(t, courier, client, "top-up", body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.balance, 500);
    assert.equal(first.body.data.entry.kind, "top_up");
    assert.equal(first.body.data.entry.amount, -500);
    const again = await act(t, courier, client, "top-up", body);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.balance, 500);
    await topUp(t, courier, client, "20.00");
    const v = await view(t, courier, client);
    assert.equal(v.balances.prepaid, 520);
    assert.equal(v.balances.owed, -520);
    assert.deepEqual(v.statement.totals, [{
      currency: "BWP",
      opening_balance: 0,
      charges: 0,
      recoverable_duties: 0,
      received: -520,
      net: -520,
      closing_balance: -520,
    }]);
    const pay = await act(t, courier, client, "payment", {
      amount: 1,
      currency: "BWP",
      reference: "X",
    });
    assert.equal(pay.body.code, "not_credit");
  }));

Deno.test("billing: after many entries the account state stays small and Postgres holds them all", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { ...CREDIT, credit_limit: "1000000.00" });
    const n = 600;
    await Promise.all(Array.from({ length: n }, (_, i) =>
      charge(t, courier, client, {
        reference: `CH-${i}`,
        entry_kind: i % 3 === 0 ? "waiting" : "errand",
        amount_minor: 1_000 + i,
        source_event: `run.waiting:stop_${i}`,
      })));
    const issued = await invoice(t, courier, client, "2026-11");
    assert.equal(issued.status, 201);
    const total = Array.from({ length: n }, (_, i) => 1_000 + i).reduce((a, b) => a + b, 0);
    assert.equal(issued.body.data.invoices[0].amount, total / 100);
    for (let i = 0; i < 30; i++) {
      const r = await act(t, courier, client, "payment", {
        amount: "10.00",
        currency: "BWP",
        reference: `P-${i}`,
      });
      assert.equal(r.status, 201);
    }
    const got = await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
      kind: "get",
    });
    assert.ok(got.ok);
    const bytes = JSON.stringify(got.reply).length;
    assert.ok(bytes < STATE_BYTES_MAX / 10, `state is ${bytes} bytes`);
    await settle(t);
    const counted = await sql<{ n: number; invoiced: number }>`
      select count(*)::int as n, count(invoice_id)::int as invoiced from ledger_entries
      where client_id = ${client.id}`.execute(t.env.db);
    assert.deepEqual(counted.rows[0], { n: n + 30, invoiced: n });
    const v = await view(t, courier, client, "2026-11");
    assert.equal(v.statement.entries.length, 500);
    assert.equal(v.statement.truncated, true);
    assert.equal(v.statement.totals[0].charges, total / 100);
    assert.equal(v.balances.owed, (total - 30_000) / 100);
    assert.equal(v.statement.totals[0].closing_balance, v.balances.owed, "closes at what is owed");
  }));

Deno.test("ledger projection: replaying every event of an account changes no row", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "FX-1", amount_minor: 10_000, currency: "ZAR" });
    await charge(t, courier, client, { reference: "A", amount_minor: 4_000 });
    await invoice(t, courier, client, "2026-11");
    await act(t, courier, client, "resolve-fx", {
      entry_reference: "FX-1",
      rate: "0.75",
      source: "x",
    });
    await act(t, courier, client, "payment", { amount: 30, currency: "BWP", reference: "P-1" });
    await charge(t, courier, client, { reference: "B", amount_minor: 1_000 });
    const snapshot = async () => {
      await settle(t);
      const entries = await t.env.db.selectFrom("ledger_entries")
        .select(["reference", "seq", "status", "amount_minor", "invoice_id", "fx_rate"])
        .where("client_id", "=", client.id).orderBy("reference").execute();
      const invoices = await t.env.db.selectFrom("invoices")
        .select(["id", "amount_minor", "paid_minor", "supplementary"])
        .where("client_id", "=", client.id).orderBy("id").execute();
      return { entries, invoices };
    };
    const before = await snapshot();
    // FX-1 was resolved after the invoice: it waits for a supplementary one.
    assert.deepEqual(
      before.entries.map((e) => [e.reference, e.status, e.invoice_id === null]),
      [["A", "posted", false], ["B", "posted", true], ["FX-1", "posted", true], [
        "P-1",
        "posted",
        true,
      ]],
    );
    assert.equal(before.invoices[0]!.paid_minor, 3_000);
    const events = [];
    for await (const e of t.env.runtime.events(courierClientActor, client.id)) {
      events.push({ seq: e.seq, at: e.at, event: e.event });
    }
    for (const replay of [events, events.slice(2)]) {
      const prefix = t.env.runtime.busPrefix;
      await t.env.bus.publish(subjectOf(prefix, courier.business.id, "courier_client", client.id), {
        env: prefix,
        tenant: courier.business.id,
        type: "courier_client",
        id: client.id,
        version: events.at(-1)!.seq,
        events: replay,
      });
    }
    assert.deepEqual(await snapshot(), before);
  }));

Deno.test("billing: COD collected by the run's driver awaits remittance once; other drivers get 404", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const newDriver = async (name: string) => {
      const r = await t.call("POST", `/operator/businesses/${courier.business.id}/drivers`, {
        operator: true,
        body: { name, phone: "+26771000001", vehicle_type_id: 1 },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.data as { id: string; token: string };
    };
    const mine = await newDriver("Thabo");
    const other = await newDriver("Kagiso");
    const run = await t.call("POST", "/business/network-runs", {
      key: courier.business.api_key,
      body: {
        facility_id: "GBE-HUB",
        kind: "delivery",
        countries: ["BW"],
        capacity: { kg: 100, m3: 2, pieces: 10 },
        driver_id: mine.id,
      },
    });
    assert.equal(run.status, 201, JSON.stringify(run.body));
    const stop = await t.call("POST", `/business/network-runs/${run.body.data.id}/stops`, {
      key: courier.business.api_key,
      body: { kind: "deliver", waybill },
    });
    assert.equal(stop.status, 201, JSON.stringify(stop.body));
    const collect = (token: string) =>
      t.call("POST", `/driver/shipments/${waybill}/cod-collected`, {
        bearer: token,
        body: { amount: "300.00", currency: "BWP" },
      });
    assert.equal((await collect(other.token)).status, 404);
    const first = await collect(mine.token);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.amount, 300);
    // Lost signal: the same record again answers the first and adds nothing.
    const again = await collect(mine.token);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.replayed, true);
    // The office types the waybill in lower case: the same shipment, the same record.
    const ops = await t.call(
      "POST",
      `/business/courier/shipments/${waybill.toLowerCase()}/cod-collected`,
      { key: courier.business.api_key, body: { amount: "300.00", currency: "BWP" } },
    );
    assert.equal(ops.status, 200, JSON.stringify(ops.body));
    const v = await view(t, courier, client);
    assert.deepEqual(
      v.cod_awaiting_remittance.map((c: { waybill: string; amount: number }) => [
        c.waybill,
        c.amount,
      ]),
      [[waybill, 300]],
    );
    // Another courier's key does not reach the shipment.
    const stranger = await ready(t);
    const hidden = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
      key: stranger[0].business.api_key,
      body: { amount: "1.00", currency: "BWP" },
    });
    assert.equal(hidden.status, 404);
  }));

Deno.test("billing: a reference sent again with another amount is refused, never answered as booked", () =>
  withTestEnv(async (t) => {
    const [courier, prepaid] = await ready(t, {});
    const first = await act(t, courier, prepaid, "top-up", {
      amount: "10.00",
      currency: "BWP",
      reference: "EFT-1",
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const other = await act(t, courier, prepaid, "top-up", {
      amount: "99.00",
      currency: "BWP",
      reference: "EFT-1",
    });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.match(other.body.message, /reference/);
    assert.equal((await view(t, courier, prepaid)).balances.prepaid, 10);

    const client = await newClient(t, courier, CREDIT);
    await charge(t, courier, client, { reference: "A", amount_minor: 10_000 });
    await settle(t);
    const paid = { amount: "10.00", currency: "BWP", reference: "P-1" };
    assert.equal((await act(t, courier, client, "payment", paid)).status, 201);
    const more = await act(t, courier, client, "payment", { ...paid, amount: "50.00" });
    assert.equal(more.status, 409, JSON.stringify(more.body));
    assert.equal(more.body.code, "reference_conflict");
    assert.equal((await act(t, courier, client, "payment", paid)).status, 200, "same facts replay");

    const note = { entry_reference: "A", amount: "-1.00", reason: "x", reference: "CN-1" };
    assert.equal((await act(t, courier, client, "correct", note)).status, 201);
    await settle(t);
    const bigger = await act(t, courier, client, "correct", { ...note, amount: "-5.00" });
    assert.equal(bigger.status, 409, JSON.stringify(bigger.body));
    assert.equal(bigger.body.code, "reference_conflict");
    assert.equal((await act(t, courier, client, "correct", note)).status, 200);
    assert.equal((await view(t, courier, client)).balances.owed, 89);

    await charge(t, courier, client, { reference: "ZA", amount_minor: 10_000, currency: "ZAR" });
    const fx = { entry_reference: "ZA", rate: "0.75", source: "Bank of Botswana" };
    assert.equal((await act(t, courier, client, "resolve-fx", fx)).status, 201);
    const rerated = await act(t, courier, client, "resolve-fx", { ...fx, rate: "0.80" });
    assert.equal(rerated.status, 409, JSON.stringify(rerated.body));
    assert.equal(rerated.body.code, "reference_conflict");
    const same = await act(t, courier, client, "resolve-fx", { ...fx, rate: "0.7500" });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    assert.equal((await view(t, courier, client)).balances.owed, 164);
  }));

Deno.test("billing: COD recorded again with another amount is refused; a replay answers what was kept", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const collect = (amount: string) =>
      t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
        key: courier.business.api_key,
        body: { amount, currency: "BWP" },
      });
    assert.equal((await collect("300.00")).status, 201);
    const other = await collect("250.00");
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.match(other.body.message, /amount/);
    const again = await collect("300");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.amount, 300);
    const v = await view(t, courier, client);
    assert.deepEqual(
      v.cod_awaiting_remittance.map((c: { amount: number }) => c.amount),
      [300],
    );
  }));

Deno.test("billing: resolve-fx reads a rate sent as a JSON number exactly, however small", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, {
      reference: "CUS-VN",
      amount_minor: 100_000_000,
      currency: "ZAR",
    });
    const r = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-VN",
      rate: 0.0000005,
      source: "Bank of Botswana",
    });
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
      const r = await act(t, courier, client, "resolve-fx", {
        entry_reference: "CUS-TINY",
        rate,
        source: "Bank of Botswana",
      });
      assert.equal(r.status, 422, `${rate}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "invalid_fx_rate", String(rate));
      assert.match(r.body.message, /^rate: /, String(rate));
    }
    // Bad rates of every form are refused, never a 500 and never a wrong amount.
    for (const rate of [0, -1, "0", "-0.5", "1e-7", 1e300, "99999999", "0.123456789", true]) {
      const r = await act(t, courier, client, "resolve-fx", {
        entry_reference: "CUS-TINY",
        rate,
        source: "Bank of Botswana",
      });
      assert.equal(r.status, 422, `${rate}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.code, /^(invalid_fx_rate|validation_failed)$/, String(rate));
      assert.match(r.body.message, /rate/, String(rate));
    }
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
    assert.deepEqual(await rows(t, client).then((r) => r.map((e) => e.status)), ["unresolved_fx"]);
    // The least rate that books something books it: 100.00 at 0.00005 is 0.005, rounded 0.01.
    const ok = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-TINY",
      rate: "0.00005",
      source: "Bank of Botswana",
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.amount, 0.01);
  }));

Deno.test("billing: an amount in another currency than the account's is refused naming the field", () =>
  withTestEnv(async (t) => {
    const [courier, prepaid] = await ready(t, {});
    const top = await act(t, courier, prepaid, "top-up", {
      amount: "10.00",
      currency: "USD",
      reference: "EFT-USD",
    });
    assert.equal(top.status, 422, JSON.stringify(top.body));
    assert.equal(top.body.code, "currency_mismatch");
    assert.match(top.body.message, /currency/);
    const client = await newClient(t, courier, CREDIT);
    const pay = await act(t, courier, client, "payment", {
      amount: "10.00",
      currency: "USD",
      reference: "P-USD",
    });
    assert.equal(pay.status, 422, JSON.stringify(pay.body));
    assert.equal(pay.body.code, "currency_mismatch");
    assert.match(pay.body.message, /currency/);
    assert.equal((await view(t, courier, prepaid)).balances.prepaid, 0);
  }));

/** Moves the client to another billing currency, off the BWP rate card. */
async function moveTo(t: TestEnv, courier: Courier, client: Client, body: Record<string, unknown>) {
  return await t.call("PATCH", `/business/courier/clients/${client.id}`, {
    key: courier.business.api_key,
    body: { rate_card_id: null, ...body },
  });
}

Deno.test("billing: after a change of billing currency a note on an old entry is in the entry's currency, owed and paid there, never converted", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client); // express 88.92 BWP
    assert.equal((await invoice(t, courier, client, "2026-11")).status, 201);
    await act(t, courier, client, "payment", { amount: 88.92, currency: "BWP", reference: "P-1" });
    const moved = await moveTo(t, courier, client, {
      billing_currency: "ZAR",
      credit_limit: "5000.00",
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await settle(t);

    // spec: courier 2.6 rule 5: a refund of a lost parcel booked before the change.
    const credit = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-10.00",
      reason: "lost parcel refund",
    });
    assert.equal(credit.status, 201, JSON.stringify(credit.body));
    assert.equal(credit.body.data.entry.currency, "BWP");
    assert.equal(credit.body.data.entry.amount, -10);
    assert.equal(credit.body.data.balances.currency, "ZAR");
    assert.equal(credit.body.data.balances.balances.owed, 0);
    assert.deepEqual(credit.body.data.balances.other_currencies, [{
      currency: "BWP",
      balances: {
        prepaid: 0,
        receivable: -10,
        recoverable_duties: 0,
        unallocated_credit: 0,
        owed: -10,
      },
    }]);
    await settle(t);
    const debit = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: 25,
      reason: "weighed 6 kg at the depot",
    });
    assert.equal(debit.status, 201, JSON.stringify(debit.body));
    assert.equal(debit.body.data.entry.currency, "BWP");
    await charge(t, courier, client, { reference: "CUS-ZA", amount_minor: 5_000, currency: "ZAR" });

    // Reckoned apart: the BWP owed neither uses nor frees the ZAR credit limit.
    let v = await view(t, courier, client);
    assert.equal(v.currency, "ZAR");
    assert.deepEqual(v.credit, { limit: 5000, used: 50, available: 4950 });
    assert.deepEqual(v.other_currencies, [{
      currency: "BWP",
      balances: {
        prepaid: 0,
        receivable: 15,
        recoverable_duties: 0,
        unallocated_credit: 0,
        owed: 15,
      },
      ageing: { current: 15, "1-30": 0, "31-60": 0, "61-90": 0, "90+": 0, credit: 0 },
    }]);
    assert.deepEqual(
      v.statement.totals.map((x: { currency: string; closing_balance: number }) => [
        x.currency,
        x.closing_balance,
      ]),
      [["BWP", 15], ["ZAR", 50]],
    );
    // One invoice per currency (4.2): the notes on a supplementary BWP one.
    const issued = await invoice(t, courier, client, "2026-11");
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    assert.deepEqual(
      issued.body.data.invoices.map((
        i: { currency: string; amount: number; supplementary: boolean; status: string },
      ) => [i.currency, i.amount, i.supplementary, i.status]),
      [["BWP", 15, true, "open"], ["ZAR", 50, false, "open"]],
    );
    const account = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(account.status, 200, JSON.stringify(account.body));
    assert.equal(account.body.data.other_currencies[0].balances.owed, 15);

    // Paid in ZAR, the account still owes BWP: its currency stays until that is paid too.
    await act(t, courier, client, "payment", { amount: 50, currency: "ZAR", reference: "P-2" });
    const back = { billing_currency: "BWP", credit_limit: "5000.00" };
    const stuck = await moveTo(t, courier, client, back);
    assert.equal(stuck.status, 409, JSON.stringify(stuck.body));
    assert.equal(stuck.body.code, "balance_not_settled");
    const paid = await act(t, courier, client, "payment", {
      amount: 15,
      currency: "BWP",
      reference: "P-3",
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.deepEqual(
      paid.body.data.allocations.map((a: { invoice_id: string }) => a.invoice_id),
      [issued.body.data.invoices[0].id],
    );
    assert.deepEqual(paid.body.data.balances.other_currencies, []);
    // Nothing owed in BWP any more: a payment in it is refused and changes nothing.
    const extra = await act(t, courier, client, "payment", {
      amount: 1,
      currency: "BWP",
      reference: "P-4",
    });
    assert.equal(extra.status, 422, JSON.stringify(extra.body));
    assert.equal(extra.body.code, "currency_mismatch");
    assert.match(extra.body.message, /^currency: the account bills in ZAR/);
    v = await view(t, courier, client);
    assert.deepEqual(v.other_currencies, []);
    assert.equal(v.balances.owed, 0);
    assert.equal((await moveTo(t, courier, client, back)).status, 200);
  }));

Deno.test("billing: a prepaid client's note on an old-currency entry holds funds in that currency, available for no booking; a top-up there settles what it owes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, {});
    await topUp(t, courier, client, "88.92");
    const waybill = await book(t, client); // express 88.92 BWP: the funds are spent
    assert.equal((await moveTo(t, courier, client, { billing_currency: "ZAR" })).status, 200);
    await settle(t);
    const credit = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-10.00",
      reason: "lost parcel refund",
    });
    assert.equal(credit.status, 201, JSON.stringify(credit.body));
    assert.equal(credit.body.data.entry.currency, "BWP");
    let v = await view(t, courier, client);
    assert.equal(v.balances.prepaid, 0);
    assert.equal(v.other_currencies[0].currency, "BWP");
    assert.equal(v.other_currencies[0].balances.prepaid, 10);
    // BWP funds pay for no ZAR booking: nothing is available.
    const account = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(account.body.data.currency, "ZAR");
    assert.equal(account.body.data.available, 0);
    // Owing nothing in BWP, a top-up in it is refused and changes nothing.
    const early = await act(t, courier, client, "top-up", {
      amount: "5.00",
      currency: "BWP",
      reference: "EFT-1",
    });
    assert.equal(early.status, 422, JSON.stringify(early.body));
    assert.equal(early.body.code, "currency_mismatch");
    await settle(t);
    const debit = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "15.00",
      reason: "weighed 6 kg at the depot",
    });
    assert.equal(debit.status, 201, JSON.stringify(debit.body));
    v = await view(t, courier, client);
    assert.equal(v.other_currencies[0].balances.prepaid, -5);
    assert.equal(v.other_currencies[0].balances.owed, 5);
    assert.equal(v.other_currencies[0].ageing.current, 5);
    const top = await act(t, courier, client, "top-up", {
      amount: "5.00",
      currency: "BWP",
      reference: "EFT-2",
    });
    assert.equal(top.status, 201, JSON.stringify(top.body));
    assert.equal(top.body.data.currency, "BWP");
    assert.equal(top.body.data.balance, 0);
    assert.equal(top.body.data.available, 0);
    v = await view(t, courier, client);
    assert.deepEqual(v.other_currencies, []);
    assert.equal(v.balances.prepaid, 0);
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
    const r = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-ZA",
      rate: "0.7525",
      source: "Bank of Botswana 2026-11-02",
    });
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
    const r = await act(t, courier, client, "resolve-fx", {
      entry_reference: "FX-1",
      rate: "0.7525",
      source: "Bank of Botswana 2026-12-05",
    });
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

Deno.test("billing: bad amounts, currencies and periods are refused with a code and change nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [, prepaid] = [courier, await newClient(t, courier, {})];
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 5_000,
    });
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    await settle(t);
    const before = [await view(t, courier, client), await view(t, courier, prepaid)];
    const bad: [Client, string, unknown][] = [
      [prepaid, "top-up", { amount: "-10.00", currency: "BWP", reference: "T-1" }],
      [prepaid, "top-up", { amount: 0, currency: "BWP", reference: "T-1" }],
      [prepaid, "top-up", { amount: "0.00", currency: "BWP", reference: "T-1" }],
      [prepaid, "top-up", { amount: "10.001", currency: "BWP", reference: "T-1" }],
      [prepaid, "top-up", { amount: 10.005, currency: "BWP", reference: "T-1" }],
      [prepaid, "top-up", { amount: "1e3", currency: "BWP", reference: "T-1" }],
      [prepaid, "top-up", { amount: "10.00", currency: "BWX", reference: "T-1" }],
      [prepaid, "top-up", { amount: "10.00", currency: "bwp", reference: "T-1" }],
      [prepaid, "top-up", { amount: "10.00", currency: "BWP", reference: " " }],
      [prepaid, "top-up", { amount: "99999999999999999999", currency: "BWP", reference: "T-1" }],
      [client, "top-up", { amount: "10.00", currency: "BWP", reference: "T-1" }],
      [client, "payment", { amount: "-5", currency: "BWP", reference: "P-1" }],
      [client, "payment", { amount: "5.5.5", currency: "BWP", reference: "P-1" }],
      [client, "payment", { amount: "5", currency: "ZAR", reference: "P-1" }],
      [client, "payment", {
        amount: "5",
        currency: "BWP",
        reference: "P-1",
        allocations: [{ invoice_id: "inv_nope", amount: "5" }],
      }],
      [client, "payment", {
        amount: "5",
        currency: "BWP",
        reference: "P-1",
        allocations: [{ invoice_id: "inv_nope", amount: "-5" }],
      }],
      [prepaid, "payment", { amount: "5", currency: "BWP", reference: "P-1" }],
      [client, "correct", { entry_reference: "W-1", amount: 0, reason: "x" }],
      [client, "correct", { entry_reference: "W-1", amount: "-0.00", reason: "x" }],
      [client, "correct", { entry_reference: "W-1", amount: "-0.001", reason: "x" }],
      [client, "correct", { entry_reference: "W-1", amount: "-1", reason: " " }],
      [client, "correct", { entry_reference: "W-1", amount: "-50.01", reason: "x" }],
      [client, "correct", { entry_reference: "W-404", amount: "-1", reason: "x" }],
      [client, "correct", { entry_reference: "CUS-ZA", amount: "-1", reason: "x" }],
      [client, "cod-remitted", { waybill: "WB-NONE", evidence: "slip.pdf" }],
      [client, "cod-remitted", { waybill: "WB-NONE" }],
      [client, "resolve-fx", { entry_reference: "CUS-ZA", rate: "0", source: "BoB" }],
      [client, "resolve-fx", { entry_reference: "CUS-ZA", rate: "-0.74", source: "BoB" }],
      [client, "resolve-fx", { entry_reference: "CUS-ZA", rate: "0.123456789", source: "BoB" }],
      [client, "resolve-fx", { entry_reference: "CUS-ZA", rate: "0.74", source: " " }],
      [client, "resolve-fx", { entry_reference: "W-1", rate: "0.74", source: "BoB" }],
    ];
    for (const [who, action, body] of bad) {
      const r = await act(t, courier, who, action, body);
      assert.ok(
        r.status >= 400 && r.status < 500,
        `${action} ${JSON.stringify(body)}: ${r.status}`,
      );
      assert.equal(r.body.success, false);
      assert.match(r.body.code, /^[a-z_]+$/, `${action} ${JSON.stringify(body)}`);
    }
    for (const period of ["2026-13", "2026-1", "2026-00", "26-10", "2026-10-01", "2026/10", ""]) {
      const r = await invoice(t, courier, client, period);
      assert.equal(r.status, 422, period);
      assert.equal(r.body.code, "validation_failed", period);
      const v = await t.call(
        "GET",
        `/business/courier/clients/${client.id}/billing?period=${encodeURIComponent(period)}`,
        { key: courier.business.api_key },
      );
      assert.equal(v.status, 422, period);
      assert.equal(v.body.code, "validation_failed", period);
    }
    assert.deepEqual(
      [await view(t, courier, client), await view(t, courier, prepaid)],
      before,
      "nothing changed",
    );
  }));

Deno.test("billing: ledger texts with a control character or an unpaired surrogate are refused 422 naming the field, and change nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const prepaid = await newClient(t, courier, {});
    const waybill = await book(t, client);
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    const cod = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
      key: courier.business.api_key,
      body: { amount: 150, currency: "BWP" },
    });
    assert.equal(cod.status, 201, JSON.stringify(cod.body));
    await settle(t);
    const before = [await view(t, courier, client), await view(t, courier, prepaid)];
    const rowsBefore = await rows(t, client);
    // Each is a six-byte escape in a billing event body (\u0001) where the body's bound counts
    // three bytes a character (courier 2.7 completion); an unpaired surrogate is no UTF-8 at all.
    const bad: [Client, string, Record<string, unknown>, string][] = [
      [
        client,
        "correct",
        { entry_reference: waybill, amount: "-1", reason: "late\u0001" },
        "reason",
      ],
      [
        client,
        "correct",
        { entry_reference: waybill, amount: "-1", reason: "\u001b[31m" },
        "reason",
      ],
      [
        client,
        "correct",
        { entry_reference: waybill, amount: "-1", reason: "rub\u007fout" },
        "reason",
      ],
      [client, "correct", { entry_reference: waybill, amount: "-1", reason: "x\ud800" }, "reason"],
      [client, "correct", {
        entry_reference: waybill,
        amount: "-1",
        reason: "goodwill",
        reference: "CN\u0007",
      }, "reference"],
      [client, "correct", {
        entry_reference: waybill,
        amount: "-1",
        reason: "goodwill",
        evidence: "slip\u0008.pdf",
      }, "evidence"],
      [
        client,
        "correct",
        { entry_reference: `${waybill}\u0002`, amount: "-1", reason: "x" },
        "entry_reference",
      ],
      [prepaid, "top-up", { amount: "10", currency: "BWP", reference: "T-\u0003" }, "reference"],
      [prepaid, "top-up", { amount: "10", currency: "BWP", reference: "T-\udc00" }, "reference"],
      [client, "payment", { amount: "5", currency: "BWP", reference: "P\u0010" }, "reference"],
      [client, "cod-remitted", { waybill, evidence: "slip\u001f" }, "evidence"],
      [
        client,
        "resolve-fx",
        { entry_reference: "CUS-ZA", rate: "0.74", source: "BoB\u0004" },
        "source",
      ],
    ];
    for (const [who, action, body, field] of bad) {
      const r = await act(t, courier, who, action, body);
      const what = `${action} ${JSON.stringify(body)}`;
      assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed", what);
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [field], what);
    }
    assert.deepEqual(await rows(t, client), rowsBefore, "no entry booked");
    assert.deepEqual(
      [await view(t, courier, client), await view(t, courier, prepaid)],
      before,
      "nothing changed",
    );
    // A reason may run over lines (a tab, a line break: two bytes each in a body, like a quote).
    const lines = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-1",
      reason: "goodwill:\r\n\tlate by a day",
      reference: "CN-LINES",
    });
    assert.equal(lines.status, 201, JSON.stringify(lines.body));
    assert.equal(lines.body.data.entry.reason, "goodwill:\r\n\tlate by a day");
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

Deno.test("billing view: the ageing buckets move with the clock and always add up to what is owed", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "A", amount_minor: 10_000 });
    await settle(t);
    const period = new Date(t.clock.now()).toISOString().slice(0, 7);
    assert.equal((await invoice(t, courier, client, period)).status, 201);
    await charge(t, courier, client, { reference: "B", amount_minor: 2_500 });
    // The buckets less the credit held beyond them.
    const sum = (a: Record<string, number>) =>
      Object.entries(a).reduce((x, [k, y]) => k === "credit" ? x - y : x + y, 0);
    const seen: string[] = [];
    // Due 30 days after issue; each step moves the open invoice one bucket on.
    for (const days of [0, 31, 30, 30, 30]) {
      t.clock.advanceBy(days * DAY);
      const v = await view(t, courier, client);
      assert.equal(sum(v.ageing), v.balances.owed, JSON.stringify(v.ageing));
      assert.equal(v.ageing.current >= 25, true, "the uninvoiced charge is current");
      const aged = Object.entries(v.ageing as Record<string, number>);
      seen.push(aged.find(([k, x]) => k !== "current" && x > 0)?.[0] ?? "");
    }
    assert.deepEqual(seen, ["", "1-30", "31-60", "61-90", "90+"]);
    // Part paid: the buckets still add up, the old invoice's rest stays 90+.
    assert.equal(
      (await act(t, courier, client, "payment", {
        amount: "60.00",
        currency: "BWP",
        reference: "P",
      }))
        .status,
      201,
    );
    const v = await view(t, courier, client);
    assert.equal(v.ageing["90+"], 40);
    assert.equal(sum(v.ageing), v.balances.owed);
    // Paid beyond what is owed: every bucket empty, the rest shown as credit.
    await act(t, courier, client, "payment", { amount: "100.00", currency: "BWP", reference: "Q" });
    const over = await view(t, courier, client);
    assert.equal(over.balances.owed, -35);
    assert.deepEqual(over.ageing, {
      current: 0,
      "1-30": 0,
      "31-60": 0,
      "61-90": 0,
      "90+": 0,
      credit: 35,
    });
    assert.equal(sum(over.ageing), over.balances.owed);
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

Deno.test("billing view: a payment recorded a moment before is in the statement and payments its balances count", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    // spec: courier 4.2 billing view: balances, statement and payments of one account, read
    // without waiting: the statement holds every entry the balances beside it count.
    for (let i = 1; i <= 6; i++) {
      await charge(t, courier, client, { reference: `V-${i}`, amount_minor: 10_000 });
      const paid = await act(t, courier, client, "payment", {
        amount: "10.00",
        currency: "BWP",
        reference: `PV-${i}`,
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      const r = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const v = r.body.data;
      assert.equal(v.balances.owed, 90 * i);
      assert.equal(v.statement.entries.length, 2 * i, `after payment ${i}`);
      assert.equal(v.statement.totals[0].closing_balance, v.balances.owed);
      assert.equal(v.payments.length, i, `after payment ${i}`);
      assert.equal(v.payments[0].reference, `PV-${i}`);
    }
  }));

/** Courier billing (courier 2.6): payments and invoices. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { billingAction as act, clientKey, postCharge as charge } from "../../helpers/courier.ts";

import { DAY, invoice, ready, rows, settle, view } from "./billing_fixtures.ts";

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

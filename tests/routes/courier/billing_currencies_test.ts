/** Courier billing across currencies (courier 2.6): amounts in another currency, and a change of billing currency. */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  type Client,
  clientKey,
  type Courier,
  newClient,
  postCharge as charge,
  topUp,
} from "../../helpers/courier.ts";

import { book, CREDIT, invoice, ready, settle, view } from "./billing_fixtures.ts";

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

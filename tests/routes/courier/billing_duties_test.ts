/** Courier billing (courier 2.6): recoverable duties on credit and when recovered, and the ageing of what is owed. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  clientKey,
  DOMESTIC,
  postCharge as charge,
} from "../../helpers/courier.ts";

import { book, CREDIT, DAY, invoice, ready, settle, view } from "./billing_fixtures.ts";

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

/** Courier billing (courier 2.6, 7): what is refused, with its code, changing nothing; who may act. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  bookWaybill,
  type Client,
  clientKey,
  newClient,
  postCharge as charge,
} from "../../helpers/courier.ts";

import { book, CREDIT, invoice, ready, rows, settle, view } from "./billing_fixtures.ts";

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

Deno.test("billing: an invoice of a period after the current month is refused 422 naming the period, and changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await charge(t, courier, client, { reference: "CUS-1" });
    const before = await view(t, courier, client);
    // The manual clock is in 2026-11: December has not begun, and no year ahead has either.
    for (const period of ["2026-12", "2027-01"]) {
      const r = await invoice(t, courier, client, period);
      assert.equal(r.status, 422, `${period}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed", period);
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["period"]);
    }
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
    // The current month is invoiced (a later entry of it goes on a supplementary invoice).
    const now = await invoice(t, courier, client, "2026-11");
    assert.equal(now.status, 201, JSON.stringify(now.body));
  }));

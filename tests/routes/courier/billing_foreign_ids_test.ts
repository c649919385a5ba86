/**
 * Courier billing (courier 4.2): an id a billing body names that is another client's or another
 * courier's answers 404 not_found, exactly as an id nobody holds, and changes nothing; its
 * evidence files are read by the courier only.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  type Client,
  clientKey,
  type Courier,
  newClient,
  postCharge as charge,
} from "../../helpers/courier.ts";
import { book, CREDIT, invoice, ready, view } from "./billing_fixtures.ts";

/** A payment of `amount` BWP, all of it allocated to `invoice_id`, under a reference of its own. */
function payTo(t: TestEnv, courier: Courier, client: Client, invoice_id: string, amount: string) {
  return act(t, courier, client, "payment", {
    amount,
    currency: "BWP",
    reference: `EFT-${invoice_id}`,
    allocations: [{ invoice_id, amount }],
  });
}

Deno.test("billing: a payment allocated to another client's or courier's invoice answers 404 as an unknown one, and changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [other, theirs] = await ready(t);
    const neighbour = await newClient(t, courier, CREDIT);
    const invoiceOf = async (c: typeof courier, cl: typeof client, reference: string) => {
      await charge(t, c, cl, { reference });
      const issued = await invoice(t, c, cl, "2026-11");
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      return issued.body.data.invoices[0].id as string;
    };
    const mine = await invoiceOf(courier, client, "CUS-MINE");
    const neighbours = await invoiceOf(courier, neighbour, "CUS-NEIGHBOUR");
    const strangers = await invoiceOf(other, theirs, "CUS-STRANGER");
    const before = await view(t, courier, client);

    const answers = [];
    for (const id of [neighbours, strangers, "inv_nobody_holds_this"]) {
      const r = await payTo(t, courier, client, id, "10.00");
      assert.equal(r.status, 404, `${id}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "not_found");
      answers.push(r.body.message.replace(id, "<id>"));
    }
    assert.equal(new Set(answers).size, 1, `one answer for all: ${answers.join(" | ")}`);
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
    for (const [c, cl] of [[courier, neighbour], [other, theirs]] as const) {
      assert.equal((await view(t, c, cl)).invoices[0].status, "open");
    }
    // The client's own invoice is still allocated, and one it holds in another state stays 422.
    const paid = await act(t, courier, client, "payment", {
      amount: "75.00",
      currency: "BWP",
      reference: "EFT-MINE",
      allocations: [{ invoice_id: mine, amount: "75.00" }],
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    const settled = await act(t, courier, client, "payment", {
      amount: "1.00",
      currency: "BWP",
      reference: "EFT-MINE-AGAIN",
      allocations: [{ invoice_id: mine, amount: "1.00" }],
    });
    assert.equal(settled.status, 422, JSON.stringify(settled.body));
    assert.equal(settled.body.code, "invoice_not_open");
  }));

Deno.test("billing: a note on another client's entry answers 404 as an unknown entry, and changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const neighbour = await newClient(t, courier, CREDIT);
    await charge(t, courier, neighbour, { reference: "CUS-NEIGHBOUR" });
    const before = await view(t, courier, client);
    for (const entry_reference of ["CUS-NEIGHBOUR", "CUS-NOBODY"]) {
      const r = await act(t, courier, client, "correct", {
        entry_reference,
        amount: "-1.00",
        reason: "goodwill",
      });
      assert.equal(r.status, 404, `${entry_reference}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "not_found");
    }
    assert.deepEqual(await view(t, courier, client), before);
    assert.equal((await view(t, courier, neighbour)).balances.owed, 75);
  }));

Deno.test("billing: cod-remitted naming another client's or courier's waybill answers 404 as an unknown one, and changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const neighbour = await newClient(t, courier, CREDIT);
    const [other, theirs] = await ready(t);
    const collected = async (c: typeof courier, cl: typeof client) => {
      const waybill = await book(t, cl);
      const r = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
        key: c.business.api_key,
        body: { amount: "30.00", currency: "BWP" },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return waybill;
    };
    const neighbours = await collected(courier, neighbour);
    const strangers = await collected(other, theirs);
    const mine = await book(t, client);
    const before = await view(t, courier, client);

    for (const waybill of [neighbours, strangers, "WB-NOBODY-HOLDS"]) {
      for (const body of [{ waybill, evidence: "bank line 1" }, slipForm(waybill)]) {
        const r = await act(t, courier, client, "cod-remitted", body);
        assert.equal(r.status, 404, `${waybill}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "not_found");
      }
    }
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
    assert.equal((await view(t, courier, neighbour)).cod_awaiting_remittance.length, 1);
    assert.equal((await view(t, other, theirs)).cod_awaiting_remittance.length, 1);
    // The client's own shipment with no COD awaiting is still refused as such.
    const none = await act(t, courier, client, "cod-remitted", { waybill: mine, evidence: "x" });
    assert.equal(none.status, 422, JSON.stringify(none.body));
    assert.equal(none.body.code, "cod_not_collected");
  }));

/** A cod-remitted form with a remittance slip file. */
function slipForm(waybill: string): FormData {
  const f = new FormData();
  f.set("waybill", waybill);
  const slip = new TextEncoder().encode(`%PDF-1.4 slip ${waybill}`);
  f.set("evidence_file", new File([slip], "slip.pdf", { type: "application/pdf" }));
  return f;
}

Deno.test("billing evidence: a client's credentials never read the courier's evidence files, its own slip neither", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client);
    const cod = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
      key: courier.business.api_key,
      body: { amount: "30.00", currency: "BWP" },
    });
    assert.equal(cod.status, 201, JSON.stringify(cod.body));
    const remitted = await act(t, courier, client, "cod-remitted", slipForm(waybill));
    assert.equal(remitted.status, 201, JSON.stringify(remitted.body));
    const path = `/api/business/courier/billing/evidence/${
      remitted.body.data.entry.evidence_path.slice("file:sha256:".length)
    }`;
    const read = (headers: Record<string, string>) => t.app.request(path, { headers });
    assert.equal((await read({ "X-Business-API-Key": courier.business.api_key })).status, 200);
    // spec: courier 5: the route is the courier's (billing:view-own on X-Business-API-Key); a
    // client's key, sent as either header, is no credential of the courier's.
    const key = clientKey(client)["X-Client-API-Key"]!;
    assert.equal((await read({ "X-Client-API-Key": key })).status, 401);
    assert.equal((await read({ "X-Business-API-Key": key })).status, 401);
  }));

Deno.test("billing: a payment allocated to an older settled invoice of the client's, which the account no longer keeps, answers 422 invoice_not_open as a recent one does; another client's stays 404", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const neighbour = await newClient(t, courier, CREDIT);
    await charge(t, courier, client, { reference: "CUS-OLD" });
    const issued = await invoice(t, courier, client, "2026-11");
    const id = issued.body.data.invoices[0].id as string;
    const paid = await payTo(t, courier, client, id, "75.00");
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    await t.settle();
    // Settled invoices beyond the account's recent ones are in the query side only: one such,
    // the client's, and one of the neighbour's.
    const row = await t.env.db.selectFrom("invoices").selectAll().where("id", "=", id)
      .executeTakeFirstOrThrow();
    await t.env.db.insertInto("invoices").values([
      { ...row, id: "inv_settled_long_ago", period: "2024-01", due_on: "2024-02-28" },
      {
        ...row,
        id: "inv_neighbours_old",
        client_id: neighbour.id,
        period: "2024-01",
        due_on: "2024-02-28",
      },
    ]).execute();
    const before = await view(t, courier, client);
    const answer = (invoice_id: string) => payTo(t, courier, client, invoice_id, "10.00");
    const old = await answer("inv_settled_long_ago");
    assert.equal(old.status, 422, JSON.stringify(old.body));
    assert.equal(old.body.code, "invoice_not_open");
    assert.match(old.body.message, /^allocations\.0\.invoice_id: .*inv_settled_long_ago/);
    const theirs = await answer("inv_neighbours_old");
    assert.equal(theirs.status, 404, JSON.stringify(theirs.body));
    assert.equal(theirs.body.code, "not_found");
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
  }));

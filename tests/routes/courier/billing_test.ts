/** Courier billing (courier 2.6): the view, COD, top-ups and external settlement. */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction as act,
  bookWaybill,
  clientKey,
  newCourier,
  postCharge as charge,
  topUp,
} from "../../helpers/courier.ts";

import { book, DAY, invoice, ready, rows, settle, view } from "./billing_fixtures.ts";

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

    // Refused: a waybill that is no shipment of the client's (404, as one nobody holds), or no
    // evidence at all; no file is kept for either.
    const none = await act(t, courier, client, "cod-remitted", form("WB-NOT-COLLECTED"));
    assert.equal(none.status, 404, JSON.stringify(none.body));
    assert.equal(none.body.code, "not_found");
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

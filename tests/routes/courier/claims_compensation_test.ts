/**
 * A claim approved above the booked price (courier 2.4 liability cover on the declared value,
 * 2.6 rule 5, 4.6): a credit note takes the shipment's entry to zero, the rest is booked as a
 * `compensation` entry; the ledger, the billing export and the client's money all show it.
 */
import assert from "node:assert/strict";
import { shipmentAdjustments } from "../../../src/courier/queries/adjustments.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingCsv,
  billingCsvRows,
  bookShipment,
  clientKey,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

async function approvedClaim(t: TestEnv, courier: Courier, waybill: string, amount: string) {
  const filed = await t.call("POST", "/business/courier/claims", {
    key: courier.business.api_key,
    body: { waybill, kind: "loss", amount, description: "Lost in transit" },
  });
  assert.equal(filed.status, 201, JSON.stringify(filed.body));
  const r = await t.call("POST", `/business/courier/claims/${filed.body.data.id}/decide`, {
    key: courier.business.api_key,
    body: { outcome: "approved" },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

async function coveredCourier(t: TestEnv): Promise<Courier> {
  const courier = await newCourier(t, { claim_window_days: 5, liability_cover_pct: 1 });
  const scopes = ["billing:administer", "billing:view-own", "claims:approve"];
  const r = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
    operator: true,
    body: { api_key_scopes: scopes },
  });
  assert.equal(r.status, 200);
  return courier;
}

Deno.test("claims: compensation above the booked price is a compensation entry beside a credit note that clears the price", () =>
  withTestEnv(async (t) => {
    // spec: courier 2.4: liability cover is priced on the declared value, so a covered loss is
    // compensated up to that value, far above the booked price; a credit note never takes the
    // entry below zero (2.6 rule 5), so what is above it is compensation, never left unbooked.
    const courier = await coveredCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "1000.00");
    const booked = await bookShipment(t, client, {
      declared_value: "5000.00",
      liability_cover: true,
    });
    const price = Math.round(booked.total * 100);
    const before = await t.call("GET", "/client/account", { headers: clientKey(client) });
    const claim = await approvedClaim(t, courier, booked.waybill, "5000.00");
    const reference = `CLM-${claim.id}`;
    assert.equal(claim.status, "approved");
    assert.deepEqual(claim.credit_note, { reference, amount: 5000, state: "booked" });
    await t.settle();
    const entries = await t.env.db.selectFrom("ledger_entries").selectAll()
      .where("reference", "=", reference).orderBy("seq").execute();
    assert.deepEqual(
      entries.map((e) => [e.kind, Number(e.amount_minor), e.corrects, e.shipment]),
      [
        ["credit_note", -price, booked.waybill, booked.waybill],
        ["compensation", price - 500_000, null, booked.waybill],
      ],
    );
    const after = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(after.body.data.balance, before.body.data.balance + 5000);
    // The booked price is never rewritten (2.6 rule 1).
    const priced = await t.env.db.selectFrom("ledger_entries").selectAll()
      .where("reference", "=", booked.waybill).where("kind", "=", "shipment")
      .executeTakeFirstOrThrow();
    assert.equal(Number(priced.amount_minor), price);
    // The billing export (courier 3.1) carries both, the compensation under its own kind.
    const rows = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${client.id}`))
      .filter((r) => r["reference"] === reference);
    assert.deepEqual(rows.map((r) => [r["kind"], r["description"], r["amount"], r["corrects"]]), [
      ["credit_note", "Credit note", (-price / 100).toFixed(2), booked.waybill],
      ["compensation", "Claim compensation", ((price - 500_000) / 100).toFixed(2), ""],
    ]);
    // The shipment's completion event lists both among its adjustments (courier 2.7).
    const adjustments = await shipmentAdjustments(
      t.env.db,
      courier.business.id,
      client.id,
      booked.waybill,
      10,
    );
    assert.deepEqual(adjustments.map((a) => [a.kind, a.amount_minor, a.corrects]), [
      ["credit_note", -price, booked.waybill],
      ["compensation", price - 500_000, null],
    ]);
    // The courier's statement lists it (courier 4.2), and no note corrects it: it is no price.
    const billing = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    assert.equal(billing.status, 200, JSON.stringify(billing.body));
    assert.match(JSON.stringify(billing.body.data), /"kind":"compensation"/);
    const note = await t.call("POST", `/business/courier/clients/${client.id}/billing/correct`, {
      key: courier.business.api_key,
      body: { entry_reference: reference, entry_kind: "compensation", amount: "1.00", reason: "x" },
    });
    assert.equal(note.status, 422, JSON.stringify(note.body));
    assert.equal(note.body.code, "not_correctable");
  }));

Deno.test("claims: compensation on credit clears the receivable; on external it owes nothing", () =>
  withTestEnv(async (t) => {
    const courier = await coveredCourier(t);
    const credit = await newClient(t, courier, {
      settlement_mode: "credit",
      credit_limit: "1000.00",
    });
    const external = await newClient(t, courier, {
      settlement_mode: "external",
      external_system: "erp",
    });
    const totals: number[] = [];
    for (const client of [credit, external]) {
      // Covered on its declared value: compensation above the price (courier 2.4).
      const booked = await bookShipment(t, client, {
        declared_value: "400.00",
        liability_cover: true,
      });
      totals.push(booked.total);
      const claim = await approvedClaim(t, courier, booked.waybill, "400.00");
      assert.equal(claim.credit_note.state, "booked", JSON.stringify(claim));
    }
    await t.settle();
    const c = await t.call("GET", "/client/account", { headers: clientKey(credit) });
    assert.equal(c.body.data.credit_used, 0);
    // What the compensation leaves over the price is the client's credit: it owes less than zero.
    assert.equal(c.body.data.ledger_balance, Math.round((totals[0]! - 400) * 100) / 100);
    const e = await t.call("GET", "/client/account", { headers: clientKey(external) });
    // External settlement posts no receivable: no credit line to show (courier 4.2).
    assert.equal(e.body.data.credit_limit, null);
    assert.equal(e.body.data.credit_used, null);
    assert.equal(e.body.data.balance, 0);
    const booked = await t.env.db.selectFrom("ledger_entries").selectAll()
      .where("client_id", "=", external.id).where("kind", "in", ["credit_note", "compensation"])
      .orderBy("seq").execute();
    assert.deepEqual(booked.map((n) => [n.kind, n.status]), [
      ["credit_note", "external"],
      ["compensation", "external"],
    ]);
  }));

/** Courier billing (courier 2.6): the ledger kept whole in Postgres, and the account state kept small. */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { subjectOf } from "../../../src/bus/bus.ts";
import { STATE_BYTES_MAX } from "../../../src/limits.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { billingAction as act, postCharge as charge } from "../../helpers/courier.ts";

import { book, CREDIT, invoice, ready, rows, settle, view } from "./billing_fixtures.ts";

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

/**
 * The ledger projection (src/courier/reactors/ledger_projection.ts): what a batch of entries
 * books, one INSERT a batch, and what each entry sees of those before it (lifecycle and failures:
 * ledger_projection_writes_test.ts).
 */
import assert from "node:assert/strict";
import {
  asOneBatch,
  change,
  charged,
  entry,
  JAN,
  publish,
  rowsOf,
  subjectOfChange,
  withProjector,
} from "./ledger_projection_fixtures.ts";
import { type LedgerEntry } from "../../../src/courier/rules/ledger.ts";

Deno.test("LedgerProjector: a batch of many entries is one INSERT; a replay is silent, a reused reference reported", async () => {
  await withProjector(async (s) => {
    const original = entry("r-0", 1);
    const reused = entry("r-1", 2);
    await publish(s.bus, change("c1", [charged(original), charged(reused)]));
    await s.projector.idle();
    s.counter.reset();

    const many = Array.from({ length: 300 }, (_, i) => entry(`r-${100 + i}`, 10 + i));
    const filler = change("c2", [charged(entry("f-1", 1))]);
    const hot = change("c1", [
      ...many.slice(0, 150).map(charged),
      charged(original), // the same entry replayed
      charged(entry("r-1", 500, { created_at: JAN + 500, source_event: "other" })), // another fact
      ...many.slice(150).map(charged),
    ]);
    const duplicate = change("c1", [charged(many[7]!)]); // a change delivered twice, in the batch
    const otherClient = change("c2", [charged(entry("r-100", 2))]); // its own key: no conflict
    await asOneBatch(s, filler, [hot, duplicate, otherClient]);

    assert.deepEqual(s.errors, [
      ["another entry of client c1 holds reference r-1", subjectOfChange(hot)],
    ]);
    const c1 = await rowsOf(s.t, "c1");
    assert.equal(c1.length, 302);
    const r1 = c1.find((r) => r.reference === "r-1");
    assert.equal(r1?.seq, 2, "the reused reference keeps the first fact");
    assert.equal(r1?.source_event, "booked:r-1");
    const r105 = c1.find((r) => r.reference === "r-105");
    assert.equal(r105?.invoiceable, true);
    assert.equal(Number(r105?.amount_minor), 1_015);
    assert.equal(r105?.created_at.getTime(), JAN + 15);
    assert.equal(typeof r105?.event_id, "string", "a shipment charge gets its billing event id");
    assert.deepEqual((await rowsOf(s.t, "c2")).map((r) => r.reference), ["f-1", "r-100"]);
    // The filler's INSERT and its watermarks', then the batch's one INSERT, its watermarks' and
    // one SELECT for the references held (it was 304 INSERTs and 3 SELECTs when each entry was
    // written on its own).
    assert.deepEqual(s.counter.counts, { InsertQueryNode: 4, SelectQueryNode: 1 });
  });
});

Deno.test("LedgerProjector: an FX resolution, invoice and payment see the entries before them in the batch", async () => {
  await withProjector(async (s) => {
    const fx = entry("fx-1", 1, {
      status: "unresolved_fx",
      amount_minor: 0,
      original_amount_minor: 2_000,
      original_currency: "USD",
    });
    const resolution = {
      reference: "fx-1",
      seq: 3,
      period: fx.period,
      kind: fx.kind,
      amount_minor: 27_000,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      original_amount_minor: 2_000,
      original_currency: "USD",
      fx_rate: "13.5",
      fx_source: "test",
      created_at: fx.created_at,
    };
    const invoice = {
      id: "inv-1",
      period: fx.period,
      currency: "BWP",
      amount_minor: 28_002,
      paid_minor: 0,
      supplementary: false,
      issued_at: JAN + 10_000,
      due_on: "2026-02-15",
      watermark: 3,
      entries: 2,
    };
    const pay = entry("pay-1", 5, { kind: "payment", amount_minor: -500, source_event: "pay:1" });
    await asOneBatch(s, change("c0", [charged(entry("f-1", 1))]), [
      change("c1", [
        { kind: "entry_posted", entry: fx, effect: {}, invoiceable: false, by: "t" },
        charged(entry("b-1", 2)),
      ]),
      change("c1", [
        { kind: "fx_resolved", resolution, effect: {}, invoiceable: true, by: "t" },
        { kind: "invoices_issued", invoices: [invoice], by: "t" },
        charged(entry("b-2", 4)), // after the invoice's watermark: not on it
        {
          kind: "payment_received",
          entry: pay,
          effect: {},
          allocations: [{ invoice_id: "inv-1", amount_minor: 500, paid_minor: 500 }],
          unallocated_minor: 0,
          by: "t",
        },
      ]),
      // Within one change too: the resolution follows its entry's insert.
      change("c2", [
        {
          kind: "entry_posted",
          entry: { ...fx, reference: "fx-2" },
          effect: {},
          invoiceable: false,
          by: "t",
        },
        {
          kind: "fx_resolved",
          resolution: { ...resolution, reference: "fx-2" },
          effect: {},
          invoiceable: true,
          by: "t",
        },
      ]),
    ]);

    assert.deepEqual(s.errors, []);
    const c1 = await rowsOf(s.t, "c1");
    assert.deepEqual(
      c1.map((r) => [r.reference, r.seq, r.status, Number(r.amount_minor), r.invoice_id]),
      [
        ["b-1", 2, "posted", 1_002, "inv-1"],
        ["fx-1", 3, "posted", 27_000, "inv-1"],
        ["b-2", 4, "posted", 1_004, null],
        ["pay-1", 5, "posted", -500, null],
      ],
    );
    const inv = await s.t.db.selectFrom("invoices").selectAll().executeTakeFirstOrThrow();
    assert.equal(Number(inv.paid_minor), 500);
    const fx2 = (await rowsOf(s.t, "c2"))[0];
    assert.deepEqual([fx2?.reference, fx2?.status, fx2?.invoiceable], ["fx-2", "posted", true]);
  });
});

Deno.test("LedgerProjector: a resolution books its entry at its own time and period, keeping when the charge arose; the placeholder replayed is silent", async () => {
  await withProjector(async (s) => {
    const fx = entry("fx-1", 1, {
      kind: "duties",
      status: "unresolved_fx",
      amount_minor: 10_000,
      currency: "ZAR",
      source_event: "customs.duties:xing_1",
    });
    const posted = { kind: "entry_posted", entry: fx, effect: {}, invoiceable: false, by: "t" };
    const FEB = Date.UTC(2026, 1, 3);
    const resolution = {
      reference: "fx-1",
      seq: 2,
      period: "2026-02",
      kind: "duties",
      amount_minor: 7_525,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      original_amount_minor: 10_000,
      original_currency: "ZAR",
      fx_rate: "0.7525",
      fx_source: "test",
      created_at: FEB,
      charged_at: fx.created_at,
    };
    await publish(s.bus, change("c1", [posted]));
    await publish(
      s.bus,
      change("c1", [{
        kind: "fx_resolved",
        resolution,
        effect: {},
        invoiceable: true,
        by: "t",
      }]),
    );
    // The placeholder's change delivered again after its resolution: the same fact.
    await publish(s.bus, change("c1", [posted]));
    await s.projector.idle();
    assert.deepEqual(s.errors, []);
    const [row] = await rowsOf(s.t, "c1");
    assert.deepEqual(
      [row?.period, row?.created_at.getTime(), row?.charged_at?.getTime(), row?.source_event],
      ["2026-02", FEB, fx.created_at, "customs.duties:xing_1"],
    );
    assert.deepEqual([row?.status, Number(row?.amount_minor), row?.currency], [
      "posted",
      7_525,
      "BWP",
    ]);
  });
});

Deno.test("LedgerProjector: credit on account an invoice issue applies to an earlier invoice is its paid total", async () => {
  await withProjector(async (s) => {
    const invoice = (id: string, amount: number, watermark: number) => ({
      id,
      period: "2026-01",
      currency: "BWP",
      amount_minor: amount,
      paid_minor: Math.min(amount, 0),
      supplementary: id !== "inv-1",
      issued_at: JAN + 10_000,
      due_on: "2026-02-15",
      watermark,
      entries: 1,
    });
    const note = entry("cn-1", 2, {
      kind: "credit_note",
      amount_minor: -300,
      corrects: "b-1",
      source_event: "credit_note.issued:cn-1",
    });
    const credited = change("c1", [
      { kind: "entry_posted", entry: note, effect: {}, invoiceable: true, by: "t" },
      {
        kind: "invoices_issued",
        invoices: [invoice("inv-2", -300, 2)],
        allocations: [{ invoice_id: "inv-1", amount_minor: 300, paid_minor: 300 }],
        by: "t",
      },
    ]);
    await publish(
      s.bus,
      change("c1", [charged(entry("b-1", 1)), {
        kind: "invoices_issued",
        invoices: [invoice("inv-1", 1_001, 1)],
        by: "t",
      }]),
    );
    await publish(s.bus, credited);
    await publish(s.bus, credited); // replayed: changes nothing
    await s.projector.idle();
    assert.deepEqual(s.errors, []);
    const invoices = await s.t.db.selectFrom("invoices").select([
      "id",
      "amount_minor",
      "paid_minor",
    ])
      .orderBy("id").execute();
    assert.deepEqual(
      invoices.map((i) => [i.id, Number(i.amount_minor), Number(i.paid_minor)]),
      [["inv-1", 1_001, 300], ["inv-2", -300, -300]],
    );
  });
});

Deno.test("LedgerProjector: entries of other kinds holding one reference are all stored; a replay is silent", async () => {
  await withProjector(async (s) => {
    const shipment = entry("WB-9", 1);
    // The client pays quoting the waybill; a note is numbered like it, and corrects it.
    const payment = entry("WB-9", 2, { kind: "payment", amount_minor: -500, source_event: "p" });
    const note = entry("WB-9", 3, {
      kind: "credit_note",
      amount_minor: -100,
      source_event: "credit_note.issued:WB-9",
      corrects: "WB-9",
      corrects_kind: "shipment",
    });
    const posted = (e: LedgerEntry) => ({
      kind: "entry_posted",
      entry: e,
      effect: {},
      invoiceable: false,
      by: "t",
    });
    await publish(s.bus, change("c9", [charged(shipment), posted(payment), posted(note)]));
    await s.projector.idle();
    // Delivered again, in one batch with the same entries again: nothing reported, nothing added.
    await asOneBatch(s, change("c9", [posted(payment)]), [
      change("c9", [charged(shipment), posted(note), posted(note)]),
    ]);
    assert.equal(s.errors.length, 0, JSON.stringify(s.errors));
    const stored = await rowsOf(s.t, "c9");
    assert.deepEqual(stored.map((r) => [r.kind, r.reference, r.amount_minor, r.corrects_kind]), [
      ["shipment", "WB-9", 1_001, null],
      ["payment", "WB-9", -500, null],
      ["credit_note", "WB-9", -100, "shipment"],
    ]);
    // Another fact of the same kind under the reference is still a conflict, reported.
    await publish(s.bus, change("c9", [posted(entry("WB-9", 4, { kind: "payment" }))]));
    await s.projector.idle();
    assert.deepEqual(s.errors.map(([m]) => m), ["another entry of client c9 holds reference WB-9"]);
  });
});

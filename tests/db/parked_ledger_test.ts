/** The ledger projection parks what it cannot write and keeps every entry in order (courier 2.6). */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { ActorChange } from "../../src/bus/bus.ts";
import { LedgerProjector } from "../../src/courier/reactors/ledger_projection.ts";
import { entryOf, type LedgerEntry } from "../../src/courier/rules/ledger.ts";
import { ledgerWatermark } from "../../src/courier/queries/ledger_watermarks.ts";
import {
  accountChanges,
  JAN,
  NO_BALANCES,
  parkedRows,
  publish,
  refuse,
  withProjection,
} from "./parked_fixtures.ts";

Deno.test("LedgerProjector: an entry that cannot be written is parked, not dropped, and goes in once the cause is gone", () =>
  withProjection((o) => new LedgerProjector(o), async (t, bus, projector, errors) => {
    const check = refuse(t, "ledger_entries", "reference <> 'POISON'");
    const charged = (reference: string, seq: number) => ({
      kind: "booking_charged",
      waybill: reference,
      amount_minor: 1_250,
      currency: "BWP",
      settlement_mode: "credit",
      posted: true,
      by: "test",
      entry: entryOf({
        reference,
        seq,
        kind: "shipment",
        amount_minor: 1_250,
        currency: "BWP",
        status: "posted",
        created_at: JAN + seq,
        source_event: `booked:${reference}`,
      }),
    });
    const account = (version: number, reference: string): ActorChange => ({
      env: "live",
      tenant: "ten",
      type: "courier_client",
      id: "c1",
      version,
      events: [{ seq: version, at: JAN, event: charged(reference, version) }],
    });
    const references = () =>
      t.db.selectFrom("ledger_entries").select("reference").where("client_id", "=", "c1")
        .orderBy("seq").execute().then((rows) => rows.map((r) => r.reference));
    await check.add();
    await publish(bus, account(1, "POISON"));
    await publish(bus, account(2, "WB-2"));
    await projector.idle();
    assert.equal(errors.length, 1);
    assert.deepEqual(await references(), ["WB-2"]);
    assert.deepEqual((await parkedRows(t)).map((r) => [r.projection, r.attempts]), [
      ["ledger", 1],
    ]);

    await check.drop();
    assert.equal(await projector.retryParked(), 1);
    assert.deepEqual(await references(), ["POISON", "WB-2"]);
    assert.deepEqual(await parkedRows(t), []);
    // Written again (a crash before its row was let go), it changes nothing.
    await publish(bus, account(1, "POISON"));
    await projector.idle();
    assert.deepEqual(await references(), ["POISON", "WB-2"]);
    assert.equal(errors.length, 1);
  }));

Deno.test("LedgerProjector: a parked change holds its account's watermark before its first entry until it goes in", () =>
  withProjection((o) => new LedgerProjector(o), async (t, bus, projector) => {
    const check = refuse(t, "ledger_entries", "reference <> 'CN-POISON'");
    const account = accountChanges();
    const posted = (reference: string, seq: number, fields: Partial<LedgerEntry> = {}) => ({
      kind: "entry_posted",
      entry: entryOf({
        reference,
        seq,
        kind: "waiting",
        amount_minor: 5_000,
        currency: "BWP",
        status: "posted",
        created_at: JAN + seq,
        source_event: `waiting:${reference}`,
        ...fields,
      }),
      effect: NO_BALANCES,
      invoiceable: true,
      by: "test",
    });
    const watermark = (client = "c1") => ledgerWatermark(t.db, "ten", client);
    await publish(bus, account(posted("W-1", 1)));
    await projector.idle();
    assert.equal(await watermark(), 1);

    // spec: courier 2.6 rule 5: a credit note on W-1 cannot be written for a while; the
    // account's later entries are. Readers must not count the note as written: a second note
    // would be judged without it, and a completion listed without it.
    await check.add();
    await publish(
      bus,
      account(
        posted("CN-POISON", 2, { kind: "credit_note", amount_minor: -4_000, corrects: "W-1" }),
      ),
    );
    await publish(bus, account(posted("W-3", 3)));
    await publish(bus, account(posted("W-4", 4)));
    await projector.idle();
    const raw = await t.db.selectFrom("ledger_watermarks").select("seq")
      .where("client_id", "=", "c1").executeTakeFirstOrThrow();
    assert.equal(raw.seq, 4, "the account's later changes are written");
    assert.equal(await watermark(), 1, "held just before the parked note");
    assert.equal(await watermark("c2"), 0, "another account: none");

    // Still refused: still held.
    assert.equal(await projector.retryParked(), 0);
    assert.equal(await watermark(), 1);

    await check.drop();
    assert.equal(await projector.retryParked(), 1);
    assert.equal(await watermark(), 4, "once it is in, the watermark stands again");
  }));

Deno.test("LedgerProjector: a resolution or an allocation heard before the parked change it updates waits for it, never lost", () =>
  withProjection((o) => new LedgerProjector(o), async (t, bus, projector) => {
    const entries = refuse(t, "ledger_entries", "reference <> 'POISON'");
    const invoices = sql`alter table invoices add constraint poison check (id <> 'inv-poison')`;
    const account = accountChanges();
    // spec: courier 2.6 rule 4: a charge awaiting its rate, then resolved; its placeholder is
    // the change that cannot be written for a while.
    const placeholder = entryOf({
      reference: "POISON",
      seq: 1,
      kind: "customs_admin",
      amount_minor: 10_000,
      currency: "ZAR",
      status: "unresolved_fx",
      created_at: JAN,
      source_event: "customs.cleared:x",
    });
    const resolution = {
      reference: "POISON",
      seq: 2,
      period: placeholder.period,
      kind: "customs_admin",
      amount_minor: 7_500,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      original_amount_minor: 10_000,
      original_currency: "ZAR",
      fx_rate: "0.75",
      fx_source: "Bank of Botswana",
      created_at: JAN + 5,
      charged_at: JAN,
    };
    const invoice = {
      id: "inv-poison",
      period: placeholder.period,
      currency: "BWP",
      amount_minor: 7_500,
      paid_minor: 0,
      supplementary: false,
      issued_at: JAN + 10,
      due_on: "2026-02-09",
      watermark: 2,
      entries: 1,
    };
    const payment = entryOf({
      reference: "EFT-1",
      seq: 3,
      kind: "payment",
      amount_minor: -7_500,
      currency: "BWP",
      status: "posted",
      created_at: JAN + 20,
      source_event: "payment:EFT-1",
    });
    await entries.add();
    await invoices.execute(t.db);
    await publish(
      bus,
      account({
        kind: "entry_posted",
        entry: placeholder,
        effect: NO_BALANCES,
        invoiceable: false,
      }),
    );
    await publish(
      bus,
      account({ kind: "fx_resolved", resolution, effect: NO_BALANCES, invoiceable: true, by: "t" }),
    );
    await publish(bus, account({ kind: "invoices_issued", invoices: [invoice], by: "t" }));
    await publish(
      bus,
      account({
        kind: "payment_received",
        entry: payment,
        effect: NO_BALANCES,
        allocations: [{ invoice_id: "inv-poison", amount_minor: 7_500, paid_minor: 7_500 }],
        unallocated_minor: 0,
        by: "t",
      }),
    );
    await projector.idle();

    await entries.drop();
    await sql`alter table invoices drop constraint poison`.execute(t.db);
    while (await projector.retryParked() > 0) {
      // Each round writes what it can, oldest first; what still waits goes in at the next one.
    }
    assert.deepEqual(await parkedRows(t), []);
    // spec: courier 2.6 rule 4: converted and posted, as the account holds it; never left
    // awaiting its rate in statements and exports.
    const rows = await t.db.selectFrom("ledger_entries")
      .select(["reference", "status", "amount_minor", "currency", "invoice_id"])
      .where("client_id", "=", "c1").orderBy("seq").execute();
    assert.deepEqual(rows.map((r) => [r.reference, r.status, Number(r.amount_minor), r.currency]), [
      ["POISON", "posted", 7_500, "BWP"],
      ["EFT-1", "posted", -7_500, "BWP"],
    ]);
    assert.equal(rows[0]!.invoice_id, "inv-poison");
    // spec: courier 4.2: the payment's allocation is the invoice's paid total.
    const stored = await t.db.selectFrom("invoices").select(["amount_minor", "paid_minor"])
      .where("id", "=", "inv-poison").executeTakeFirstOrThrow();
    assert.deepEqual([Number(stored.amount_minor), Number(stored.paid_minor)], [7_500, 7_500]);
  }));

Deno.test("LedgerProjector: a charge or a resolution parked while the invoice covering it is written goes in on that invoice", () =>
  withProjection((o) => new LedgerProjector(o), async (t, bus, projector, errors) => {
    const check = refuse(t, "ledger_entries", "reference not like 'POISON%'");
    const account = accountChanges();
    const charge = (reference: string, seq: number, amount_minor: number) =>
      entryOf({
        reference,
        seq,
        kind: "shipment",
        amount_minor,
        currency: "BWP",
        status: "posted",
        created_at: JAN + seq,
        source_event: `booked:${reference}`,
      });
    const posted = (entry: ReturnType<typeof entryOf>) => ({
      kind: "entry_posted",
      entry,
      effect: NO_BALANCES,
      invoiceable: true,
      by: "t",
    });
    // spec: courier 2.6 rule 4: a charge awaiting its rate, resolved before the invoice.
    const placeholder = entryOf({
      reference: "POISON-FX",
      seq: 3,
      kind: "customs_admin",
      amount_minor: 10_000,
      currency: "ZAR",
      status: "unresolved_fx",
      created_at: JAN + 3,
      source_event: "customs.cleared:x",
    });
    const resolution = {
      reference: "POISON-FX",
      seq: 4,
      period: placeholder.period,
      kind: "customs_admin",
      amount_minor: 7_500,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      original_amount_minor: 10_000,
      original_currency: "ZAR",
      fx_rate: "0.75",
      fx_source: "Bank of Botswana",
      created_at: JAN + 4,
      charged_at: JAN + 3,
    };
    // spec: courier 2.6 rule 5, 4.2: the invoice covers every invoiceable entry up to its
    // watermark: 1_250 + 2_000 + 7_500.
    const invoice = {
      id: "inv-1",
      period: placeholder.period,
      currency: "BWP",
      amount_minor: 10_750,
      paid_minor: 0,
      supplementary: false,
      issued_at: JAN + 10,
      due_on: "2026-02-09",
      watermark: 4,
      entries: 3,
    };
    await check.add();
    await publish(bus, account(posted(charge("POISON", 1, 1_250))));
    await publish(bus, account(posted(charge("WB-2", 2, 2_000))));
    await publish(
      bus,
      account({
        kind: "entry_posted",
        entry: placeholder,
        effect: NO_BALANCES,
        invoiceable: false,
      }),
    );
    await publish(
      bus,
      account({ kind: "fx_resolved", resolution, effect: NO_BALANCES, invoiceable: true, by: "t" }),
    );
    await publish(bus, account({ kind: "invoices_issued", invoices: [invoice], by: "t" }));
    await projector.idle();
    assert.equal((await parkedRows(t)).length, 3, "the charge, the placeholder, its resolution");

    await check.drop();
    while (await projector.retryParked() > 0) {
      // Oldest first: the resolution goes in once its placeholder has.
    }
    assert.deepEqual(await parkedRows(t), []);
    const rows = await t.db.selectFrom("ledger_entries")
      .select(["reference", "status", "amount_minor", "invoice_id"])
      .where("client_id", "=", "c1").orderBy("seq").execute();
    assert.deepEqual(
      rows.map((r) => [r.reference, r.status, Number(r.amount_minor), r.invoice_id]),
      [
        ["POISON", "posted", 1_250, "inv-1"],
        ["WB-2", "posted", 2_000, "inv-1"],
        ["POISON-FX", "posted", 7_500, "inv-1"],
      ],
    );
    // spec: courier 2.6: the invoice's entries in Postgres add up to its amount.
    const total = rows.reduce((sum, r) => sum + Number(r.amount_minor), 0);
    assert.equal(total, invoice.amount_minor);
    assert.equal(errors.length, 3);
  }));

Deno.test("LedgerProjector: an invoice parked while a supplementary invoice of its period is written keeps its own entries", () =>
  withProjection((o) => new LedgerProjector(o), async (t, bus, projector) => {
    const invoices = sql`alter table invoices add constraint poison check (id <> 'inv-1')`;
    const account = accountChanges();
    const posted = (reference: string, seq: number, amount_minor: number) => ({
      kind: "entry_posted",
      entry: entryOf({
        reference,
        seq,
        kind: "shipment",
        amount_minor,
        currency: "BWP",
        status: "posted",
        created_at: JAN + seq,
        source_event: `booked:${reference}`,
      }),
      effect: NO_BALANCES,
      invoiceable: true,
      by: "t",
    });
    const invoice = (id: string, amount_minor: number, watermark: number, entries: number) => ({
      id,
      period: "2026-01",
      currency: "BWP",
      amount_minor,
      paid_minor: 0,
      supplementary: id !== "inv-1",
      issued_at: JAN + 100 * watermark,
      due_on: "2026-02-09",
      watermark,
      entries,
    });
    await invoices.execute(t.db);
    await publish(bus, account(posted("WB-1", 1, 1_250)));
    await publish(bus, account(posted("WB-2", 2, 2_000)));
    await publish(
      bus,
      account({ kind: "invoices_issued", invoices: [invoice("inv-1", 3_250, 2, 2)], by: "t" }),
    );
    // spec: courier 2.6 rule 5: an entry posted after the invoice waits for a supplementary one.
    await publish(bus, account(posted("WB-3", 3, 500)));
    await publish(
      bus,
      account({ kind: "invoices_issued", invoices: [invoice("inv-2", 500, 3, 1)], by: "t" }),
    );
    await projector.idle();
    assert.equal((await parkedRows(t)).length, 1, "the first invoice");

    await sql`alter table invoices drop constraint poison`.execute(t.db);
    assert.equal(await projector.retryParked(), 1);
    const rows = await t.db.selectFrom("ledger_entries").select(["reference", "invoice_id"])
      .where("client_id", "=", "c1").orderBy("seq").execute();
    assert.deepEqual(rows.map((r) => [r.reference, r.invoice_id]), [
      ["WB-1", "inv-1"],
      ["WB-2", "inv-1"],
      ["WB-3", "inv-2"],
    ]);
  }));

/** Billing event types and bodies (courier 2.7, 6.1), and the CSV row of the export (4.3). */
import assert from "node:assert/strict";
import {
  chargeEventBody,
  chargeEventType,
  completionEventBody,
  eventIdOf,
} from "../../../src/courier/rules/billing_events.ts";
import { BILLING_CSV_COLUMNS, billingCsvRow } from "../../../src/courier/rules/billing_csv.ts";
import { csvLines, spreadsheetSafe } from "../../../src/domain/csv.ts";
import { entryReportOf } from "../../../src/platform/rules/export_state.ts";
import { sequenceText } from "../../../src/courier/rules/waybill.ts";
import { type EntryKind, entryOf } from "../../../src/courier/rules/ledger.ts";

const at = Date.parse("2026-11-02T08:00:00Z");

function entry(kind: EntryKind, extra: Record<string, unknown> = {}) {
  return entryOf({
    reference: "REF-1",
    seq: 1,
    kind,
    amount_minor: 7500,
    currency: "BWP",
    status: "posted",
    created_at: at,
    ...extra,
  });
}

Deno.test("billing events: one event type per charge, as courier 6.1 names them", () => {
  const cases: [EntryKind, Record<string, unknown>, string | null][] = [
    ["shipment", {}, "shipment.booked"],
    ["customs_admin", { source_event: "customs.cleared:XING-7" }, "customs.cleared:XING-7"],
    ["customs_admin", {}, "customs.cleared:REF-1"],
    ["duties", { source_event: "customs.duties:XING-7" }, "customs.duties:XING-7"],
    ["waiting", { source_event: "run.waiting:STOP-3" }, "run.waiting:STOP-3"],
    ["failed_collection", {}, "run.collection_failed:REF-1"],
    ["cold_chain", {}, "sample.cold_chain"],
    ["errand", { source_event: "run.collected:STOP-9" }, "run.collected:STOP-9"],
    [
      "redelivery",
      { source_event: "shipment.redelivery:WB1:1" },
      "shipment.redelivery:WB1:1",
    ],
    ["return", { source_event: "shipment.return:WB1" }, "shipment.return:WB1"],
    ["return", {}, "shipment.return:REF-1"],
    ["debit_note", {}, "debit_note.issued"],
    ["credit_note", {}, "credit_note.issued"],
    ["compensation", {}, "compensation.issued"],
    ["cod_remitted", {}, "cod.remitted"],
    ["top_up", {}, null],
    ["payment", {}, null],
  ];
  for (const [kind, extra, expected] of cases) {
    assert.equal(chargeEventType(entry(kind, extra)), expected, `${kind} ${JSON.stringify(extra)}`);
  }
});

Deno.test("billing events: ids are stable per fact and differ between facts", async () => {
  assert.equal(
    await eventIdOf("billing", "b1", "c1", "R1"),
    await eventIdOf("billing", "b1", "c1", "R1"),
  );
  assert.notEqual(
    await eventIdOf("billing", "b1", "c1", "R1"),
    await eventIdOf("billing", "b2", "c1", "R1"),
  );
  assert.match(await eventIdOf("x"), /^evt_[0-9a-f]{26}$/);
});

Deno.test("billing events: an event about a sequenced waybill is named after its number, one per fact", () => {
  const [w1, w2] = [sequenceText(41), sequenceText(42)].map((n) => `WB${n}`);
  const charge = eventIdOf("billing", "b1", "c1", w1!);
  assert.match(charge, new RegExp(`^evt_${sequenceText(41)}[0-9a-f]{13}$`));
  assert.equal(charge.length, eventIdOf("x").length);
  assert.equal(eventIdOf("billing", "b1", "c1", w1!), charge, "the same fact, the same event");
  assert.notEqual(eventIdOf("billing.completion", "b1", w1!, "shipment.delivered"), charge);
  assert.notEqual(eventIdOf("billing", "b2", "c1", w1!), charge);
  assert.ok(charge < eventIdOf("billing", "b1", "c1", w2!), "in the waybills' order");
  // A derived (older) waybill keeps the hash-only name.
  assert.match(eventIdOf("billing", "b1", "c1", "WBABCDEFGHJKLM"), /^evt_[0-9a-f]{26}$/);
});

Deno.test("billing events: a charge body carries 2.7's fields, amounts as decimals", () => {
  const body = JSON.parse(chargeEventBody({
    eventId: "evt_1",
    eventType: "customs.duties:XING-7",
    occurredAt: at,
    client: { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" },
    entry: entry("duties", {
      recoverable: true,
      reason: "import duty paid at Tlokweng",
      evidence_path: "evidence/receipt-7.pdf",
      source_event: "customs.duties:XING-7",
      shipment: "WB1",
      original_amount_minor: 40000,
      original_currency: "ZAR",
      fx_rate: "0.75",
      fx_source: "Bank of Botswana",
    }),
    shipment: {
      waybill: "WB1",
      external_customer_code: "EXT-1",
      external_billing_reference: null,
      client_order_reference: "ORD-1",
    },
  }));
  assert.equal(body.api_version, "v1");
  assert.equal(body.event_type, "customs.duties:XING-7");
  assert.equal(body.type, body.event_type);
  assert.equal(body.event_id, "evt_1");
  assert.equal(body.occurred_at, "2026-11-02T08:00:00.000Z");
  assert.deepEqual(body.client, { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" });
  assert.deepEqual(body.entry, {
    reference: "REF-1",
    kind: "duties",
    amount: "75.00",
    currency: "BWP",
    status: "posted",
    payer: "client",
    recoverable: true,
    reason: "import duty paid at Tlokweng",
    evidence_path: "evidence/receipt-7.pdf",
    source_event: "customs.duties:XING-7",
    original_amount: "400.00",
    original_currency: "ZAR",
    fx_rate: "0.75",
    fx_source: "Bank of Botswana",
    corrects: null,
    shipment: "WB1",
    created_at: "2026-11-02T08:00:00.000Z",
    charged_at: null,
  });
  assert.equal(body.shipment.external_customer_code, "EXT-1");
});

Deno.test("billing events: the completion body lists price lines and later charges", () => {
  const body = JSON.parse(completionEventBody({
    eventId: "evt_2",
    eventType: "shipment.delivered",
    occurredAt: at,
    client: { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" },
    shipment: {
      waybill: "WB1",
      external_customer_code: null,
      external_billing_reference: "BILL-9",
      booked_at: at,
      service: "express",
      total_minor: 8892,
      tax_minor: 1092,
      currency: "BWP",
      lines: [{ code: "transport", label: "Transport", amount_minor: 6500 }],
      status: "delivered",
      delivered_at: at + 3_600_000,
      pod: true,
    },
    adjustments: [{
      reference: "WAIT-1",
      kind: "waiting",
      amount: "30.00",
      currency: "BWP",
      reason: "45 min at the gate",
      recoverable: false,
      correction: null,
      status: "posted",
    }],
  }));
  assert.equal(body.shipment.booked_on, "2026-11-02");
  assert.equal(body.shipment.base_charge, "78.00");
  assert.equal(body.shipment.tax, "10.92");
  assert.deepEqual(body.shipment.price_lines, [
    { code: "transport", label: "Transport", amount: "65.00" },
  ]);
  assert.equal(body.shipment.adjustments[0].reference, "WAIT-1");
  assert.equal(body.shipment.pod, true);
  assert.equal(body.shipment.delivered_at, "2026-11-02T09:00:00.000Z");
});

Deno.test("billing events: the completion body's tax line keeps included and tax, as the offer shows it", () => {
  const delivered = (tax: { included: boolean; amount_minor: number }) =>
    JSON.parse(completionEventBody({
      eventId: "evt_3",
      eventType: "shipment.delivered",
      occurredAt: at,
      client: { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" },
      shipment: {
        waybill: "WB1",
        external_customer_code: null,
        external_billing_reference: null,
        booked_at: at,
        service: "express",
        total_minor: 9999,
        tax_minor: 719,
        currency: "BWP",
        lines: [
          { code: "transport", label: "Transport", amount_minor: 9999 - tax.amount_minor },
          { code: "tax", label: "GST", tax_minor: 719, ...tax },
        ],
        status: "delivered",
        delivered_at: at,
        pod: true,
      },
      adjustments: [],
    })).shipment.price_lines;
  // spec: courier 2.2: the tax line also has included and tax; inclusive: the line itself is 0.
  assert.deepEqual(delivered({ included: true, amount_minor: 0 }), [
    { code: "transport", label: "Transport", amount: "99.99" },
    { code: "tax", label: "GST", amount: "0.00", included: true, tax: "7.19" },
  ]);
  assert.deepEqual(delivered({ included: false, amount_minor: 719 })[1], {
    code: "tax",
    label: "GST",
    amount: "7.19",
    included: false,
    tax: "7.19",
  });
});

Deno.test("billing CSV: a row has the 26 columns of 4.3 and shows the furthest state", () => {
  assert.equal(BILLING_CSV_COLUMNS.length, 26);
  const row = billingCsvRow({
    created_at: new Date(at),
    client_code: "MOLAPO",
    client_id: "cli_1",
    shipment: "WB1",
    external_customer_code: null,
    external_billing_reference: "BILL-9",
    reference: "WB1",
    kind: "shipment",
    amount_minor: 8892,
    currency: "BWP",
    tax_minor: 1092,
    status: "posted",
    payer: "client",
    recoverable: false,
    reason: "booked price",
    source_event: "shipment.booked:WB1",
    corrects: null,
    original_amount_minor: null,
    original_currency: null,
    fx_rate: null,
    invoice_id: null,
    shipment_status: "delivered",
    delivered_at: Date.parse("2026-11-03T10:00:00.000Z"),
    export_state: "exported",
    event_state: "delivered",
    reported_state: "invoiced_externally",
    external_references: { acknowledged: "A-1", invoiced_externally: "INV-7" },
  });
  assert.equal(row.length, 26);
  const cell = (name: string) => row[BILLING_CSV_COLUMNS.indexOf(name as never)];
  assert.equal(cell("date"), "2026-11-02");
  assert.equal(cell("amount"), "88.92");
  assert.equal(cell("tax"), "10.92");
  assert.equal(cell("delivered at"), "2026-11-03T10:00:00.000Z");
  assert.equal(cell("export state"), "invoiced_externally");
  assert.equal(cell("external reference"), "INV-7");
  assert.equal(cell("event state"), "delivered");
});

Deno.test("csv: a cell a spreadsheet would evaluate starts with a quote; numbers stay", () => {
  // Leading blanks and full-width signs are read past by spreadsheets: the same formulas.
  const disguised = [" =1+1", "\u00a0=1+1", '\uff1dHYPERLINK("x")', "\uff0bSUM(A1)", "\uff20cmd"];
  for (
    const cell of ["=1+1", "+SUM(A1:A2)", "-2+3", "@cmd", "\t=x", "\r=x", "-", "+", ...disguised]
  ) {
    assert.equal(spreadsheetSafe(cell), `'${cell}`, JSON.stringify(cell));
  }
  for (const cell of ["-12.50", "88.92", "+26771234567", "", "a=b", "'=already"]) {
    assert.equal(spreadsheetSafe(cell), cell, JSON.stringify(cell));
  }
  assert.equal(csvLines([["=A1", "-1.05", 'say "hi", =x']]), `'=A1,-1.05,"say ""hi"", =x"\n`);
});

Deno.test("export state: an entry's reports merge to the furthest state, one reference per state", () => {
  assert.equal(entryReportOf([null, null]), null);
  assert.deepEqual(
    entryReportOf([
      { reported_state: "acknowledged", external_references: { acknowledged: "ACK-1" } },
      {
        reported_state: "reconciled",
        external_references: { acknowledged: "ACK-2", reconciled: "GL-9001" },
      },
    ]),
    {
      reported_state: "reconciled",
      external_references: { acknowledged: "ACK-1", reconciled: "GL-9001" },
    },
  );
});

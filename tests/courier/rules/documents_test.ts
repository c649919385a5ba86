/**
 * The client's paper as pure functions (courier 4.6): label, waybill and packing slip from the
 * shipment's facts. Read back with pdf-lib, MuPDF (text and rendered pixels), and a Code 39
 * reader over the bars each page draws: page counts, text, no money where none belongs, bytes
 * that repeat, barcodes that carry the waybill and the piece.
 */
import assert from "node:assert/strict";
import { PDFDocument } from "pdf-lib";
import { code39Modules } from "../../../src/domain/documents/barcode.ts";
import { clientPackingSlipPdf } from "../../../src/courier/rules/documents/client_packing_slip.ts";
import type {
  DocumentResult,
  ShipmentFacts,
  WaybillFacts,
} from "../../../src/courier/rules/documents/facts.ts";
import { LABEL_SIZE, labelPdf } from "../../../src/courier/rules/documents/label.ts";
import { waybillPdf } from "../../../src/courier/rules/documents/waybill.ts";
import {
  CODE39_ALPHABET,
  decodeCode39Widths,
  drawnBarcode,
  linesPastMargins,
  moduleWidths,
  pageTexts,
  pdfText,
  renderGray,
  scanRows,
} from "../../helpers/pdf.ts";

const WAYBILL = "WB7KQ2M9XH4PTA";
const BOOKED_AT = Date.UTC(2026, 2, 2, 9, 15);

function piece(n: number, contents: string | null = null) {
  return {
    id: `${WAYBILL}-${n}`,
    weight_kg: n + 0.5,
    length_cm: 30,
    width_cm: 20,
    height_cm: 10 * n,
    contents,
  };
}

const FACTS: ShipmentFacts = {
  courier_name: "Kgalagadi Couriers",
  waybill: WAYBILL,
  booked_at: BOOKED_AT,
  service: { code: "express", name: "Express" },
  from_country: "BW",
  to_country: "ZA",
  sender: { name: "Molapo Pharmacy", address: "Plot 123, Main Mall, Gaborone", phone: null },
  recipient: {
    name: "Neo Kgosi",
    address: "14 Jan Smuts Avenue, Johannesburg",
    phone: "+27821234567",
  },
  pieces: [piece(1, "Insulin pens, cold pack"), piece(2), piece(3)],
  contents: "Medicines",
  references: {
    client_order_reference: "SHOP-77",
    external_customer_code: "CUST-12",
    external_billing_reference: "BILL-34",
  },
  dangerous_goods_confirmed: true,
  tracking_url: "https://couriers.example/api/s/tok_abc",
};

const WAYBILL_FACTS: WaybillFacts = {
  ...FACTS,
  promise: {
    collection_on: "2026-03-02",
    earliest_delivery: "2026-03-03",
    latest_delivery: "2026-03-04",
  },
  declared_value_minor: 432199,
  liability_cover: true,
  pricing: {
    prices_reference: "prc_123",
    rate_card_version: 2,
    chargeable_kg: 6.5,
    lines: [
      { code: "transport", label: "Gaborone-Johannesburg", amount_minor: 21750 },
      { code: "express", label: "Express", amount_minor: 4350 },
      { code: "tax", label: "VAT", amount_minor: 3654, included: false, tax_minor: 3654 },
    ],
    total_minor: 29754,
    currency: "BWP",
    payer: "client",
    settlement_mode: "prepaid",
  },
};

/** Money as a document would print it: a currency code, or a decimal amount. */
const MONEY = /\bBWP\b|\d+\.\d\d\b|total|price|declared|value/i;

function pdfOf(r: DocumentResult): Uint8Array<ArrayBuffer> {
  assert.ok(r.ok, r.ok ? "" : r.message);
  return r.pdf;
}

Deno.test("labelPdf() gives one 4 x 6 in page per piece, each barcode carrying waybill and piece", async () => {
  const made = await labelPdf(FACTS);
  const bytes = pdfOf(made);
  assert.equal(made.ok && made.pages, 3);
  const doc = await PDFDocument.load(bytes);
  assert.equal(doc.getPageCount(), 3);
  for (const [i, page] of doc.getPages().entries()) {
    assert.deepEqual([page.getWidth(), page.getHeight()], [...LABEL_SIZE]);
    assert.equal(drawnBarcode(doc, i), `${WAYBILL}-${i + 1}`);
  }
  assert.equal(doc.getTitle(), `Label ${WAYBILL}`);
  assert.equal(doc.getCreationDate()?.getTime(), BOOKED_AT);

  const pages = pageTexts(await pdfText(bytes));
  assert.equal(pages.length, 3);
  pages.forEach((text, i) => {
    for (
      const expected of [
        WAYBILL,
        `${WAYBILL}-${i + 1}`,
        `Piece ${i + 1} of 3`,
        `${i + 1.5} kg`,
        "Molapo Pharmacy",
        "Neo Kgosi",
        "Jan Smuts Avenue",
        "BW > ZA",
        "Express (express)",
        "EXPRESS",
      ]
    ) {
      assert.ok(text.includes(expected), `${expected} on label ${i + 1}:\n${text}`);
    }
    assert.doesNotMatch(text, MONEY);
  });
});

Deno.test("labelPdf() bars read back from the rendered pixels as the piece id", async () => {
  const bytes = pdfOf(await labelPdf(FACTS));
  // 203 dpi: a common thermal label printer.
  const image = await renderGray(bytes, { page: 2, dpi: 203 });
  const read = scanRows(image);
  assert.deepEqual([...read.keys()], [`${WAYBILL}-2`]);
  assert.ok(read.get(`${WAYBILL}-2`)! > 100, `rows read: ${read.get(`${WAYBILL}-2`)}`);
});

Deno.test("labelPdf() is refused when the waybill has a character Code 39 lacks", async () => {
  const bad = { ...FACTS, waybill: "WB_1", pieces: [{ ...piece(1), id: "WB_1-1" }] };
  const made = await labelPdf(bad);
  assert.equal(made.ok, false);
  assert.ok(!made.ok && made.code === "barcode_unencodable");
  assert.ok(!made.ok && made.message.includes('"_"') && made.message.includes("WB_1"));
  const waybill = await waybillPdf({ ...WAYBILL_FACTS, ...bad });
  assert.ok(!waybill.ok && waybill.code === "barcode_unencodable");
  const slip = await clientPackingSlipPdf(bad);
  assert.ok(!slip.ok && slip.code === "barcode_unencodable");
});

Deno.test("labelPdf() and the slip keep one page per piece however long the text", async () => {
  const long = "Plot 123, Main Mall, Gaborone, next to the long blue building ".repeat(40);
  const facts: ShipmentFacts = {
    ...FACTS,
    courier_name: "Kgalagadi Couriers and Logistics of the Greater Southern Region ".repeat(4),
    sender: { name: long, address: long, phone: "+26771234567" },
    recipient: { name: long, address: long, phone: "+27821234567" },
    contents: long.slice(0, 500),
    pieces: [piece(1, long.slice(0, 500)), piece(2)],
    references: {
      client_order_reference: long.slice(0, 120),
      external_customer_code: long.slice(0, 120),
      external_billing_reference: long.slice(0, 120),
    },
  };
  for (const make of [labelPdf, clientPackingSlipPdf]) {
    const doc = await PDFDocument.load(pdfOf(await make(facts)));
    assert.equal(doc.getPageCount(), 2, make.name);
    assert.equal(drawnBarcode(doc, 1), `${WAYBILL}-2`);
  }
});

Deno.test("labelPdf() keeps a 40-character service code on the label, beside the courier's name", async () => {
  // spec: courier 2.8 service level code; the courier's codes run to 40 characters.
  const code = "express-overnight-documents-saturday-am";
  const bytes = pdfOf(await labelPdf({ ...FACTS, service: { code, name: "Express" } }));
  assert.deepEqual(linesPastMargins(bytes, 14), []);
  const page = pageTexts(await pdfText(bytes))[0]!;
  // The heading cuts the code; the service line below carries it whole.
  assert.match(page.split("\n")[0]!, /^Kgalagadi Couriers\s+EXPRESS-.*\.\.\.$/, page);
  assert.ok(page.includes(`Express (${code})`), page);
});

Deno.test("the client's documents repeat byte for byte for the same facts", async () => {
  for (const make of [() => labelPdf(FACTS), () => waybillPdf(WAYBILL_FACTS)]) {
    const [a, b] = [pdfOf(await make()), pdfOf(await make())];
    assert.deepEqual(a, b);
  }
  const [a, b] = [await clientPackingSlipPdf(FACTS), await clientPackingSlipPdf(FACTS)];
  assert.deepEqual(pdfOf(a), pdfOf(b));
});

Deno.test("waybillPdf() shows parties, references, pieces, promise and the frozen price lines", async () => {
  const made = await waybillPdf(WAYBILL_FACTS);
  const bytes = pdfOf(made);
  const doc = await PDFDocument.load(bytes);
  assert.equal(doc.getPageCount(), 1);
  assert.equal(drawnBarcode(doc, 0), WAYBILL);
  const text = await pdfText(bytes);
  for (
    const expected of [
      "WAYBILL",
      WAYBILL,
      "Molapo Pharmacy",
      "Neo Kgosi",
      "Tel +27821234567",
      "Country ZA",
      "SHOP-77",
      "CUST-12",
      "BILL-34",
      "Express (express)",
      "2026-03-02",
      "2026-03-03 to 2026-03-04",
      "6.5 kg",
      "Medicines",
      "Insulin pens, cold pack",
      `${WAYBILL}-3`,
      "30 x 20 x 30 cm",
      "BWP 4321.99",
      "Gaborone-Johannesburg",
      "BWP 217.50",
      "VAT (added)",
      "BWP 36.54",
      "BWP 297.54",
      "Total",
      "https://couriers.example/api/s/tok_abc",
    ]
  ) {
    assert.ok(text.includes(expected), `${expected} on the waybill:\n${text}`);
  }
  assert.match(text, /Dangerous goods confirmed\s+Yes/);
  assert.match(text, /Liability cover\s+Yes/);
});

Deno.test("waybillPdf() shows inclusive tax within the lines, and runs 50 pieces onto more pages", async () => {
  const pieces = Array.from({ length: 50 }, (_, i) => piece(i + 1));
  const made = await waybillPdf({
    ...WAYBILL_FACTS,
    pieces,
    pricing: {
      ...WAYBILL_FACTS.pricing,
      lines: [
        { code: "transport", label: "Transport", amount_minor: 5000 },
        { code: "tax", label: "VAT", amount_minor: 0, included: true, tax_minor: 614 },
      ],
      total_minor: 5000,
    },
  });
  const bytes = pdfOf(made);
  const doc = await PDFDocument.load(bytes);
  assert.ok(doc.getPageCount() >= 2, `pages: ${doc.getPageCount()}`);
  const text = await pdfText(bytes);
  for (const p of pieces) assert.ok(text.includes(`${p.id} `), p.id);
  assert.ok(text.includes("VAT (included above: BWP 6.14)"), text);
  assert.ok(text.includes("(continued)"));
  assert.ok(text.includes(`Page 2 of ${doc.getPageCount()}`));
});

Deno.test("clientPackingSlipPdf() gives one page per piece with that piece's contents, no money", async () => {
  const bytes = pdfOf(await clientPackingSlipPdf(FACTS));
  const doc = await PDFDocument.load(bytes);
  assert.equal(doc.getPageCount(), 3);
  doc.getPages().forEach((_, i) => assert.equal(drawnBarcode(doc, i), `${WAYBILL}-${i + 1}`));
  const pages = pageTexts(await pdfText(bytes));
  assert.equal(pages.length, 3);
  // Piece 1 carries its own contents (and names the shipment's); the others the shipment's.
  assert.ok(pages[0]!.includes("Insulin pens, cold pack"));
  assert.match(pages[0]!, /Shipment contents\s+Medicines/);
  for (const [i, text] of pages.entries()) {
    for (
      const expected of [
        "PACKING SLIP",
        WAYBILL,
        `${WAYBILL}-${i + 1}`,
        `Piece ${i + 1} of 3`,
        "Medicines",
        "Molapo Pharmacy",
        "Neo Kgosi",
        "SHOP-77",
        `${i + 1.5} kg`,
      ]
    ) {
      assert.ok(text.includes(expected), `${expected} on slip page ${i + 1}:\n${text}`);
    }
    assert.doesNotMatch(text, MONEY);
  }
  assert.ok(!pages[1]!.includes("Insulin"));
});

Deno.test("code39Modules() reads back as the text for every Code 39 character", () => {
  const all = CODE39_ALPHABET;
  for (const text of [all, `${WAYBILL}-1`, `${WAYBILL}-50`, "A"]) {
    assert.equal(decodeCode39Widths(moduleWidths(code39Modules(text)!)), text);
  }
  assert.equal(decodeCode39Widths(moduleWidths(code39Modules("wb-1")!)), "WB-1");
  // A symbol cut short or a bar too many is not read.
  const widths = moduleWidths(code39Modules("WB-1")!);
  assert.equal(decodeCode39Widths(widths.slice(0, -10)), null);
  assert.equal(decodeCode39Widths([...widths, 1, 1]), null);
});

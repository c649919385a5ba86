/**
 * The Business API's trip documents as pure functions (4.1): waybill, receipt, pick list and
 * packing slip drawn from a trip's facts, read back with MuPDF (text in reading order, a rendered
 * page) and ZXing (the barcode scanned off the rendered page).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import {
  nameParts,
  orderItems,
  PACKING_SLIP_DEFAULTS,
  piecesOf,
} from "../../../src/business/rules/documents/facts.ts";
import { packingSlipPdf } from "../../../src/business/rules/documents/packing_slip.ts";
import {
  pickListPdf,
  pickOrder,
  TICK_BOX,
} from "../../../src/business/rules/documents/pick_list.ts";
import { receiptPdf } from "../../../src/business/rules/documents/receipt.ts";
import { waybillPdf } from "../../../src/business/rules/documents/waybill.ts";
import { scannedBarcode } from "../../helpers/barcode_reader.ts";
import { pageRectangles, pageTexts, pdfText, renderGray } from "../../helpers/pdf.ts";
import { facts, ORDER_PAYLOAD } from "./trip_documents_fixtures.ts";

/** The text's lines in order, each squeezed to single spaces. */
const lines = (text: string) => text.split("\n").map((l) => l.replace(/\s+/g, " ").trim());
const PRICES = /\d+\.\d\d|BWP/;

Deno.test("waybillPdf() shows parties, service and cash to collect, with the reference as a Code 128 barcode", async () => {
  const pdf = await waybillPdf(facts());
  const text = await pdfText(pdf);
  for (
    const want of [
      "WAYBILL",
      "ARY-7KQ2M9XH",
      "SO-55012",
      "Molapo Groceries",
      "Main Mall, Gaborone",
      "Neo Mpho Kgosi",
      "+26771234567",
      "Plot 9, Block 8",
      "Motorbike",
      "2.5 kg",
      "150.50 BWP",
      "Check the recipient's photo ID",
      "Collect once the store marks the order ready",
      "Received by",
    ]
  ) assert.ok(text.includes(want), `${want} in\n${text}`);
  assert.ok(lines(text).includes("Pieces 2"), text);
  assert.equal(await scannedBarcode(pdf, { page: 1, symbology: "code128" }), "ARY-7KQ2M9XH");
});

Deno.test("receiptPdf() lists the fare's lines and the total exactly, and a refund once made", async () => {
  const text = lines(await pdfText(await receiptPdf(facts())));
  for (const want of ["Base fare 25.00 BWP", "Distance 31.75 BWP", "Total 56.75 BWP"]) {
    assert.ok(text.includes(want), `${want} in\n${text.join("\n")}`);
  }
  assert.ok(text.includes("Paid 56.75 BWP from the wallet"));
  assert.ok(!text.some((l) => l.startsWith("Refunded")));
  const refunded = lines(await pdfText(await receiptPdf(facts({ refunded_minor: 5_675 }))));
  assert.ok(refunded.includes("Refunded 56.75 BWP"), refunded.join("\n"));
});

Deno.test("pickListPdf() lists items by store then aisle, with quantity, code, preference and a tick box each; never prices", async () => {
  const pdf = await pickListPdf(facts());
  const text = await pdfText(pdf);
  assert.doesNotMatch(text, PRICES);
  const all = lines(text);
  for (
    const want of [
      "Order number SO-55012",
      "Store Molapo Crossing",
      "Pickup time 2026-11-03 08:50 UTC",
    ]
  ) {
    assert.ok(all.includes(want), `${want} in\n${text}`);
  }
  const items = all.filter((l) => /^\d+ /.test(l));
  assert.deepEqual(items, [
    "1 Paracetamol - 1 no substitutes",
    "6 Apples - 1 -",
    "1 Bread BRD-01 2 -",
    "3 Rooibos tea - 7 same brand or none",
    "2 Milk 2L 6001234567890 10 -",
  ]);
  assert.ok(all.indexOf("Store: Clicks Airport Junction") < all.indexOf("Store: Molapo Crossing"));
  const doc = await PDFDocument.load(pdf);
  const boxes = pageRectangles(doc, 0).filter((r) => r.w === TICK_BOX && r.h === TICK_BOX);
  assert.equal(boxes.length, 5);
  // Each box is drawn ink on the rendered page (its left edge, at 2 pixels a point).
  const image = await renderGray(pdf, { page: 1, dpi: 144 });
  const [pageHeight] = [doc.getPage(0).getHeight()];
  for (const box of boxes) {
    const [x, y] = [Math.round(box.x * 2), Math.round((pageHeight - box.y - box.h / 2) * 2)];
    const dark = [-1, 0, 1].some((dx) => image.pixels[y * image.width + x + dx]! < 128);
    assert.ok(dark, `tick box at ${box.x},${box.y} is drawn`);
  }
  assert.equal(await scannedBarcode(pdf, { page: 1, symbology: "code128" }), "ARY-7KQ2M9XH");
});

Deno.test("packingSlipPdf() gives a slip per piece: names, ordered against packed, missing refunded, returns note, signature; no prices by default", async () => {
  const pdf = await packingSlipPdf({
    facts: facts(),
    settings: { show_prices: false, returns_note: "Returns within 14 days at any Molapo store" },
    pieces: 3,
  });
  const pages = pageTexts(await pdfText(pdf));
  assert.equal(pages.length, 3);
  pages.forEach((page, i) => {
    const all = lines(page);
    assert.ok(all.some((l) => l.endsWith(`Piece ${i + 1} of 3`)), page);
    for (
      const want of [
        "Sender Molapo Groceries",
        "First names Neo Mpho",
        "Surname Kgosi",
        "Address Plot 9, Block 8",
        "Item Ordered Packed Substitution",
        "Milk 2L 2 1 -",
        "Rooibos tea 3 3 Five Roses tea",
        "Apples 6 -",
        "Missing (refunded)",
        "1 x Milk 2L",
        "Returns within 14 days at any Molapo store",
      ]
    ) assert.ok(all.includes(want), `${want} in\n${page}`);
    assert.ok(page.includes("Received in good order"));
    assert.doesNotMatch(page, PRICES);
  });
  assert.equal(await scannedBarcode(pdf, { page: 2, symbology: "code128" }), "ARY-7KQ2M9XH");
});

Deno.test("packingSlipPdf() shows unit prices, amounts and refunds exactly when show_prices is on", async () => {
  const pdf = await packingSlipPdf({
    facts: facts(),
    settings: { show_prices: true, returns_note: null },
    pieces: 1,
  });
  const all = lines(await pdfText(pdf));
  for (
    const want of [
      "Milk 2L 2 1 - 24.50 BWP 24.50 BWP",
      "Rooibos tea 3 3 Five Roses tea 31.99 BWP 95.97 BWP",
      "Paracetamol 1 - - -",
      "1 x Milk 2L: 24.50 BWP refunded",
      "Goods total 151.97 BWP",
      "Refunded 24.50 BWP",
    ]
  ) assert.ok(all.includes(want), `${want} in\n${all.join("\n")}`);
  assert.ok(!all.includes("Returns"));
});

Deno.test("orderItems() reads order_payload.items loosely: wrong types count as absent", () => {
  const items = orderItems({
    store_name: "Shop",
    items: [
      { name: "A", qty: "2", qty_packed: -1, unit_price: "1.005", barcode: 12345 },
      { qty: 1 },
      "B",
      { name: "C", price: 2, substitute: true },
    ],
  }, "BWP");
  assert.deepEqual(items.map((i) => [i.name, i.qty, i.qty_packed, i.unit_price_minor, i.code]), [
    ["A", 1, null, null, "12345"],
    ["C", 1, null, 200, null],
  ]);
  assert.equal(items[1]!.preference, "substitute allowed");
  assert.equal(items[1]!.substitute, null);
  assert.equal(items[0]!.store, "Shop");
  assert.deepEqual(orderItems(null, "BWP"), []);
  assert.equal(orderItems(ORDER_PAYLOAD, "BWP").length, 5);
});

Deno.test("nameParts() and piecesOf(): the last word is the surname; ?pieces before order_payload.pieces", () => {
  assert.deepEqual(nameParts("Neo Mpho Kgosi"), { first_names: "Neo Mpho", surname: "Kgosi" });
  assert.deepEqual(nameParts("  Kgosi "), { first_names: "-", surname: "Kgosi" });
  assert.deepEqual(nameParts(null), { first_names: "-", surname: "-" });
  assert.equal(piecesOf(4, { pieces: 2 }), 4);
  assert.equal(piecesOf(undefined, { pieces: 2 }), 2);
  assert.equal(piecesOf(undefined, { pieces: null }), 1);
  assert.deepEqual(PACKING_SLIP_DEFAULTS, { show_prices: false, returns_note: null });
});

Deno.test("pickOrder() sorts by store, then aisle as numbers read, for any items", () => {
  const item = fc.record({
    name: fc.string({ minLength: 1, maxLength: 4 }),
    store: fc.option(fc.constantFrom("A", "B", "C")),
    aisle: fc.option(fc.integer({ min: 1, max: 30 }).map(String)),
  });
  fc.assert(fc.property(fc.array(item, { maxLength: 12 }), (raw) => {
    const sorted = pickOrder(raw.map((r) => ({
      ...r,
      qty: 1,
      qty_packed: null,
      code: null,
      preference: null,
      substitute: null,
      unit_price_minor: null,
    })));
    assert.equal(sorted.length, raw.length);
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      const store = (s: string | null) => s ?? "~";
      assert.ok(store(a.store) <= store(b.store));
      if (a.store === b.store && a.aisle !== null && b.aisle !== null) {
        assert.ok(Number(a.aisle) <= Number(b.aisle));
      }
    }
  }));
});

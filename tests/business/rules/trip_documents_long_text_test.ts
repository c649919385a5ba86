/**
 * The Business API's trip documents (4.1) with texts as long as a booking lets them be: every
 * line stays on the page (cut with an ellipsis where it must be), and what a line is for (a
 * refund's amount, a page count) is never the part cut off.
 */
import assert from "node:assert/strict";
import { orderItems, PACKING_SLIP_DEFAULTS } from "../../../src/business/rules/documents/facts.ts";
import { packingSlipPdf } from "../../../src/business/rules/documents/packing_slip.ts";
import { pickListPdf } from "../../../src/business/rules/documents/pick_list.ts";
import { receiptPdf } from "../../../src/business/rules/documents/receipt.ts";
import { waybillPdf } from "../../../src/business/rules/documents/waybill.ts";
import { linesPastMargins, pdfText } from "../../helpers/pdf.ts";
import { facts } from "./trip_documents_fixtures.ts";

/** The documents' side margin (page.ts MARGIN). */
const MARGIN = 40;
const lines = (text: string) => text.split("\n").map((l) => l.replace(/\s+/g, " ").trim());
const LONG_NAME = "Extra large family pack of free range chicken thighs, skin on ".repeat(4).trim();

Deno.test("packingSlipPdf() cuts a long missing item's name, never its refunded amount", async () => {
  const items = orderItems({
    items: [{ name: LONG_NAME, qty: 3, qty_packed: 1, unit_price: 10 }],
  }, "BWP");
  for (const show_prices of [true, false]) {
    const pdf = await packingSlipPdf({
      facts: facts({ items }),
      settings: { show_prices, returns_note: null },
      pieces: 1,
    });
    assert.deepEqual(linesPastMargins(pdf, MARGIN), [], `show_prices ${show_prices}`);
    const all = lines(await pdfText(pdf));
    const missing = all.find((l) => l.startsWith("2 x Extra large family pack"));
    assert.ok(missing, all.join("\n"));
    assert.match(missing, show_prices ? /\.\.\.: 20\.00 BWP refunded$/ : /\.\.\.$/);
  }
});

/** spec: business 8: external_reference (the order number printed) is up to 80 characters. */
const ORDER_NUMBER = "SO-" + "WM".repeat(38) + "X";
const LONG_STORE = "Molapo Crossing Superstore and Pharmacy, Gaborone West ".repeat(3).trim();

Deno.test("pickListPdf() keeps an 80-character order number and a long store's name on the page, with the page count", async () => {
  const items = orderItems({
    store_name: LONG_STORE,
    items: [{ name: "Milk 2L", qty: 2 }, { name: "Bread", qty: 1, store: `${LONG_STORE} 2` }],
  }, "BWP");
  const pdf = await pickListPdf(facts({ order_number: ORDER_NUMBER, items }));
  assert.deepEqual(linesPastMargins(pdf, MARGIN), []);
  const all = lines(await pdfText(pdf));
  assert.ok(
    all.some((l) => l.startsWith("Store: Molapo Crossing") && l.endsWith("...")),
    all.join("\n"),
  );
  assert.ok(all.some((l) => /\.\.\. - page 1 of 1$/.test(l)), all.join("\n"));
});

Deno.test("the trip documents keep an 80-character order number on the page, with the page count", async () => {
  const f = facts({ order_number: ORDER_NUMBER });
  const made = [
    await packingSlipPdf({ facts: f, settings: PACKING_SLIP_DEFAULTS, pieces: 2 }),
    await waybillPdf(f),
    await receiptPdf(f),
  ];
  for (const pdf of made) {
    assert.deepEqual(linesPastMargins(pdf, MARGIN), []);
    const all = lines(await pdfText(pdf));
    assert.ok(all.some((l) => / - page 1 of \d$/.test(l)), all.join("\n"));
  }
});

Deno.test("packingSlipPdf() prints unit prices and amounts of thousands and more whole, with their currency", async () => {
  const items = orderItems({
    items: [
      { name: "Samsung 55 inch TV", qty: 2, qty_packed: 2, unit_price: 4999 },
      { name: "Fridge", qty: 1, qty_packed: 1, unit_price: 12999.99 },
      { name: "Generator", qty: 3, qty_packed: 2, unit_price: 1250000.5 },
    ],
  }, "BWP");
  const pdf = await packingSlipPdf({
    facts: facts({ items }),
    settings: { show_prices: true, returns_note: null },
    pieces: 1,
  });
  assert.deepEqual(linesPastMargins(pdf, MARGIN), []);
  const all = lines(await pdfText(pdf));
  for (
    const want of [
      "Samsung 55 inch TV 2 2 - 4999.00 BWP 9998.00 BWP",
      "Fridge 1 1 - 12999.99 BWP 12999.99 BWP",
      "Generator 3 2 - 1250000.50 BWP 2500001.00 BWP",
      "1 x Generator: 1250000.50 BWP refunded",
      "Goods total 2522998.99 BWP",
    ]
  ) assert.ok(all.includes(want), `${want} in\n${all.join("\n")}`);
});

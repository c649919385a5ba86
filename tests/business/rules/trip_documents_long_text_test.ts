/**
 * The Business API's trip documents (4.1) with texts as long as a booking lets them be: every
 * line stays on the page (cut with an ellipsis where it must be), and what a line is for (a
 * refund's amount, a page count) is never the part cut off.
 */
import assert from "node:assert/strict";
import { orderItems } from "../../../src/business/rules/documents/facts.ts";
import { packingSlipPdf } from "../../../src/business/rules/documents/packing_slip.ts";
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

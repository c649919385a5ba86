/**
 * Names and addresses in letters the standard PDF fonts lack print in Latin letters a reader can
 * use (latin.ts): a Polish, Serbian, Russian or Greek address on a label reads back legibly, not
 * as a row of question marks.
 */
import assert from "node:assert/strict";
import { labelPdf } from "../../src/courier/rules/documents/label.ts";
import { winAnsiText } from "../../src/domain/documents/text.ts";
import { pdfText } from "../helpers/pdf.ts";

Deno.test("winAnsiText() writes stroked Latin, Cyrillic and Greek letters in Latin", () => {
  assert.equal(winAnsiText("ul. Złota 44, Łódź"), "ul. Zlota 44, Lódz");
  assert.equal(winAnsiText("Đorđe Đukić, Beograd"), "Dorde Dukic, Beograd");
  assert.equal(winAnsiText("Москва, ул. Щукина 5, Жуков"), "Moskva, ul. Shchukina 5, Zhukov");
  assert.equal(winAnsiText("Київ, Є І Ї Ґ"), "Kiiv, Ie I I G");
  assert.equal(winAnsiText("Αθήνα, Οδός Ψαρών"), "Athina, Odos Psaron");
  assert.equal(winAnsiText("мягкий знак: Ь ь"), "miagkii znak:  ");
  // Letters of other scripts have no Latin here: marked, never dropped without a trace.
  assert.equal(winAnsiText("中国 😀 مرحبا"), "?? ? ?????");
});

Deno.test("labelPdf() prints a Cyrillic recipient's name and address in Latin letters", async () => {
  const made = await labelPdf({
    courier_name: "Kgalagadi Couriers",
    waybill: "WB7KQ2M9XH4PTA",
    booked_at: Date.UTC(2026, 2, 2, 9, 15),
    service: { code: "express", name: "Express" },
    from_country: "BW",
    to_country: "RU",
    sender: { name: "Molapo Pharmacy", address: "Plot 123, Main Mall, Gaborone", phone: null },
    recipient: { name: "Жуков Пётр", address: "ул. Ленина 5, Москва", phone: null },
    pieces: [{
      id: "WB7KQ2M9XH4PTA-1",
      weight_kg: 1.5,
      length_cm: 30,
      width_cm: 20,
      height_cm: 10,
      contents: null,
    }],
    contents: "Medicines",
    references: {
      client_order_reference: null,
      external_customer_code: null,
      external_billing_reference: null,
    },
    dangerous_goods_confirmed: false,
    tracking_url: "https://couriers.example/api/s/tok_abc",
  });
  assert.ok(made.ok);
  const text = await pdfText(made.pdf);
  assert.ok(text.includes("Zhukov Petr"), text);
  assert.ok(text.includes("ul. Lenina 5, Moskva"), text);
  assert.ok(!text.includes("?"), text);
});

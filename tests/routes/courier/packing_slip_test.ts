/**
 * The courier's packing slip (courier 4.5): a PDF with the waybill, parties, pieces and
 * references, never a price or declared value; more pieces take more pages; another courier's
 * waybill is not found. Plus the Code 39 encoder and the WinAnsi text sanitizer.
 */
import assert from "node:assert/strict";
import {
  decodePDFRawStream,
  PDFArray,
  PDFDocument,
  PDFRawStream,
  type PDFRef,
  StandardFonts,
} from "pdf-lib";
import { code39Modules } from "../../../src/domain/documents/barcode.ts";
import { winAnsiText } from "../../../src/domain/documents/text.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

const PARCEL = { weight_kg: 0.5, length_cm: 20, width_cm: 15, height_cm: 10 };

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "5000");
  return [courier, client];
}

/** Books a shipment; answers its waybill and the total the client was charged. */
async function book(t: TestEnv, client: Client, extra: Record<string, unknown> = {}) {
  const p = await t.call("POST", "/client/prices", {
    headers: clientKey(client),
    body: {
      ...DOMESTIC,
      declared_value: 4321.99,
      client_order_reference: "SHOP-77",
      external_customer_code: "CUST-12",
      external_billing_reference: "BILL-34",
      ...extra,
    },
  });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  const b = await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: {
      prices_reference: p.body.data.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: true,
    },
  });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  return { waybill: b.body.data.waybill as string, total: String(b.body.data.total) };
}

async function slip(t: TestEnv, key: string, waybill: string): Promise<Response> {
  return await t.app.request(`/api/business/shipments/${waybill}/packing-slip`, {
    headers: { "X-Business-API-Key": key },
  });
}

/** Every string the pages draw (`<hex> Tj`), decoded from their content streams. */
function drawnText(doc: PDFDocument): string[] {
  const out: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray
      ? contents.asArray().map((ref) => doc.context.lookup(ref as PDFRef))
      : [contents];
    for (const stream of streams) {
      if (!(stream instanceof PDFRawStream)) continue;
      const ops = new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode());
      for (const m of ops.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) {
        const hex = m[1] ?? "";
        out.push(String.fromCharCode(...(hex.match(/../g) ?? []).map((h) => parseInt(h, 16))));
      }
    }
  }
  return out;
}

Deno.test("packing slip: a PDF with the waybill, parties, pieces and references, no money", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill, total } = await book(t, client, { parcels: [PARCEL] });
    const res = await slip(t, courier.business.api_key, waybill);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Type"), "application/pdf");
    assert.equal(
      res.headers.get("Content-Disposition"),
      `inline; filename="packing-slip-${waybill}.pdf"`,
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-");

    const doc = await PDFDocument.load(bytes);
    assert.equal(doc.getPageCount(), 1);
    assert.equal(doc.getTitle(), `Packing slip ${waybill}`);
    assert.equal(doc.getSubject(), waybill);
    assert.equal(doc.getKeywords(), `${waybill} ${waybill}-1`);
    assert.equal(doc.getAuthor(), "Kgalagadi Couriers");

    const text = drawnText(doc);
    for (
      const expected of [
        "Kgalagadi Couriers",
        waybill,
        `${waybill}-1`,
        "Molapo Pharmacy",
        "Plot 123, Main Mall, Gaborone",
        "Neo Kgosi",
        "Tel +26771234567",
        "Medicines",
        "SHOP-77",
        "CUST-12",
        "BILL-34",
        "Yes",
        "0.5 kg",
        "20 x 15 x 10 cm",
      ]
    ) {
      assert.ok(
        text.some((line) => line.includes(expected)),
        `${expected} on the slip: ${JSON.stringify(text)}`,
      );
    }
    assert.ok(text.some((line) => line.includes("Express (express)")));
    assert.ok(text.some((line) => /\/api\/s\/\S+$/.test(line)), "the tracking URL");

    const everything = [
      ...text,
      doc.getTitle(),
      doc.getSubject(),
      doc.getKeywords(),
      doc.getAuthor(),
      doc.getCreator(),
      doc.getProducer(),
    ].join("\n");
    for (const money of ["4321", total, "BWP", "price", "total", "declared", "value"]) {
      assert.ok(!everything.toLowerCase().includes(money.toLowerCase()), `no ${money}`);
    }
  }));

Deno.test("packing slip: 40 pieces run onto more pages, one line per piece", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill } = await book(t, client, {
      parcels: Array.from({ length: 40 }, () => PARCEL),
    });
    const res = await slip(t, courier.business.api_key, waybill);
    assert.equal(res.status, 200);
    const doc = await PDFDocument.load(await res.arrayBuffer());
    assert.ok(doc.getPageCount() >= 2, `pages: ${doc.getPageCount()}`);
    const pieceLines = drawnText(doc).filter((line) => line.startsWith(`${waybill}-`));
    assert.deepEqual(pieceLines, Array.from({ length: 40 }, (_, i) => `${waybill}-${i + 1}`));
    assert.equal(doc.getKeywords()?.split(" ").length, 41);
  }));

Deno.test("packing slip: another courier's waybill, or none, is not found", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const { waybill } = await book(t, client);
    const other = await newCourier(t);
    const res = await slip(t, other.business.api_key, waybill);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "not_found");
    const missing = await slip(t, other.business.api_key, "WBNOSUCHWAYBIL");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  }));

Deno.test("packing slip: a cancelled shipment's is refused 422 shipment_cancelled, as the client's own paper", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill } = await book(t, client);
    const cancelled = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
      key: courier.business.api_key,
      body: { event: "cancelled", reason: "order withdrawn" },
    });
    assert.equal(cancelled.status, 201, JSON.stringify(cancelled.body));
    const res = await slip(t, courier.business.api_key, waybill);
    assert.equal(res.status, 422);
    const body = await res.json();
    assert.equal(body.code, "shipment_cancelled");
    assert.match(body.message, new RegExp(waybill));
  }));

Deno.test("packing slip: without the courier platform or a credential it is refused", () =>
  withTestEnv(async (t) => {
    const plain = await t.createBusiness();
    const off = await slip(t, plain.api_key, "WB0000000000AA");
    assert.equal(off.status, 403);
    await off.body?.cancel();
    const none = await t.app.request("/api/business/shipments/WB0000000000AA/packing-slip");
    assert.equal(none.status, 401);
    await none.body?.cancel();
  }));

Deno.test("code39Modules() encodes the standard patterns with start and stop", () => {
  // Wide = 3 modules: the textbook `*` = 100101101101 and `A` = 110101001011 with each wide
  // element three modules: `*` is bar, wide space, bar, space, wide bar, space, wide bar...
  const [star, a] = ["100010111011101", "111010100010111"];
  assert.equal(code39Modules("A"), [star, a, star].join("0"));
  assert.equal(code39Modules("wb-1"), code39Modules("WB-1"));
  // Every symbol character: 3 of 9 elements wide, 15 modules, a narrow gap between.
  const all = code39Modules("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%");
  assert.equal(all?.length, 45 * 15 + 44);
  assert.equal(code39Modules("WB_1"), null);
  assert.equal(code39Modules("é"), null);
});

Deno.test("winAnsiText() keeps what Helvetica draws and replaces the rest", async () => {
  assert.equal(winAnsiText("Plot 9, Block 8"), "Plot 9, Block 8");
  assert.equal(winAnsiText("Café Ørsted – “Neo” €5"), "Café Ørsted – “Neo” €5");
  assert.equal(winAnsiText("Őrs Dvořák"), "Ors Dvorák");
  assert.equal(winAnsiText("ﬁle"), "file");
  assert.equal(winAnsiText("Łódź 中国 😀"), "Lódz ?? ?");
  assert.equal(winAnsiText("line\nnext\ttab\u2028end"), "line next tab end");

  // Every code point of the Basic Multilingual Plane comes out drawable, one way or another.
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  let every = "";
  for (let code = 0; code <= 0xffff; code++) {
    if (code < 0xd800 || code > 0xdfff) every += String.fromCharCode(code);
  }
  const safe = winAnsiText(every);
  assert.doesNotThrow(() => font.encodeText(safe));
  assert.ok(font.widthOfTextAtSize(safe, 10) > 0);
});

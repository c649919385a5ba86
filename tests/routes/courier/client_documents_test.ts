/**
 * Courier 4.6, the client's paper over HTTP: GET /client/shipments/{waybill}/label, /waybill and
 * /packing-slip answer PDFs of the caller's own shipment (another client's is not found). Read
 * back with pdf-lib and MuPDF: page counts, the waybill in the text, no money on the label or
 * the slip, bars that carry waybill and piece; the label's first page is rendered to a PNG whose
 * path is printed, for a person to look at.
 */
import assert from "node:assert/strict";
import { PDFDocument } from "pdf-lib";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { drawnBarcode, pageTexts, pdfText, renderPng } from "../../helpers/pdf.ts";

const PARCELS = [
  { weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 },
  { weight_kg: 1, length_cm: 20, width_cm: 15, height_cm: 10 },
  { weight_kg: 4, length_cm: 40, width_cm: 30, height_cm: 20 },
];
const DOCUMENTS = ["label", "waybill", "packing-slip"] as const;
/** Money as a document would print it: a currency code, or a decimal amount. */
const MONEY = /\bBWP\b|\d+\.\d\d\b|total|price|declared|value/i;

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "5000");
  return [courier, client];
}

/** Books three pieces; answers the waybill and the total charged. */
async function book(t: TestEnv, client: Client) {
  return await bookShipment(t, client, {
    parcels: PARCELS,
    declared_value: 4321.99,
    client_order_reference: "SHOP-77",
  }, { dangerous_goods_confirmed: true });
}

async function get(t: TestEnv, client: Client, waybill: string, document: string) {
  return await t.app.request(`/api/client/shipments/${waybill}/${document}`, {
    headers: clientKey(client),
  });
}

async function pdfOf(res: Response, waybill: string, document: string): Promise<Uint8Array> {
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Content-Type"), "application/pdf");
  assert.equal(
    res.headers.get("Content-Disposition"),
    `inline; filename="${waybill}-${document}.pdf"`,
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-");
  return bytes;
}

Deno.test("client label: one page per piece, each barcode reading waybill-n, no money", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const { waybill } = await book(t, client);
    const bytes = await pdfOf(await get(t, client, waybill, "label"), waybill, "label");
    const doc = await PDFDocument.load(bytes);
    assert.equal(doc.getPageCount(), 3);
    for (let i = 0; i < 3; i++) assert.equal(drawnBarcode(doc, i), `${waybill}-${i + 1}`);

    const pages = pageTexts(await pdfText(bytes));
    assert.equal(pages.length, 3);
    pages.forEach((text, i) => {
      for (
        const expected of [
          waybill,
          `Piece ${i + 1} of 3`,
          `${PARCELS[i]!.weight_kg} kg`,
          "Molapo Pharmacy",
          "Neo Kgosi",
          "BW > BW",
          "Express (express)",
          "Kgalagadi Couriers",
        ]
      ) {
        assert.ok(text.includes(expected), `${expected} on label ${i + 1}:\n${text}`);
      }
      assert.doesNotMatch(text, MONEY);
    });

    // The first label as an image, kept for a person to look at.
    const dir = await Deno.makeTempDir({ prefix: "client_label_" });
    const png = await renderPng(bytes, { page: 1, dpi: 72, prefix: `${dir}/label` });
    const image = await Deno.readFile(png);
    assert.deepEqual([...image.slice(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const view = new DataView(image.buffer, image.byteOffset);
    // IHDR: 4 x 6 in at 72 dpi.
    assert.deepEqual([view.getUint32(16), view.getUint32(20)], [288, 432]);
    assert.ok(image.length > 5_000, `PNG of ${image.length} bytes`);
    console.log(`label page 1 rendered: ${png}`);
  }));

Deno.test("client waybill: parties, pieces, references, barcode and the frozen price lines", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const { waybill, total } = await book(t, client);
    const bytes = await pdfOf(await get(t, client, waybill, "waybill"), waybill, "waybill");
    const doc = await PDFDocument.load(bytes);
    assert.ok(doc.getPageCount() >= 1);
    assert.equal(drawnBarcode(doc, 0), waybill);
    const text = await pdfText(bytes);
    for (
      const expected of [
        "WAYBILL",
        waybill,
        `${waybill}-3`,
        "Molapo Pharmacy",
        "Neo Kgosi",
        "SHOP-77",
        "Medicines",
        "Express (express)",
        "BWP 4321.99",
        "VAT (added)",
        `BWP ${total.toFixed(2)}`,
        "/api/s/",
      ]
    ) {
      assert.ok(text.includes(expected), `${expected} on the waybill:\n${text}`);
    }
    assert.match(text, /Dangerous goods confirmed\s+Yes/);
    assert.match(text, /Total\s+BWP/);
  }));

Deno.test("client packing slip: one page per piece with its contents, no money", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const { waybill } = await book(t, client);
    const res = await get(t, client, waybill, "packing-slip");
    const bytes = await pdfOf(res, waybill, "packing-slip");
    const doc = await PDFDocument.load(bytes);
    assert.equal(doc.getPageCount(), 3);
    const pages = pageTexts(await pdfText(bytes));
    pages.forEach((text, i) => {
      assert.equal(drawnBarcode(doc, i), `${waybill}-${i + 1}`);
      for (const expected of [waybill, `Piece ${i + 1} of 3`, "Medicines", "SHOP-77"]) {
        assert.ok(text.includes(expected), `${expected} on slip page ${i + 1}:\n${text}`);
      }
      assert.doesNotMatch(text, MONEY);
    });
  }));

Deno.test("client packing slip: each piece's page says what that parcel holds, as booked per parcel", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const held = ["Insulin pens", "Syringes", "Glucose meters"];
    const { waybill } = await bookShipment(t, client, {
      parcels: PARCELS.map((p, i) => ({ ...p, contents: held[i] })),
    });
    const detail = await t.call("GET", `/client/shipments/${waybill}`, {
      headers: clientKey(client),
    });
    assert.deepEqual(detail.body.data.parcels.map((p: { contents?: string }) => p.contents), held);
    const res = await get(t, client, waybill, "packing-slip");
    const pages = pageTexts(await pdfText(await pdfOf(res, waybill, "packing-slip")));
    assert.equal(pages.length, 3);
    pages.forEach((text, i) => {
      assert.match(text, new RegExp(`In this piece\\s+${held[i]}`), `slip page ${i + 1}:\n${text}`);
      for (const other of held.filter((_, j) => j !== i)) {
        assert.ok(!text.includes(other), `${other} on slip page ${i + 1}:\n${text}`);
      }
      // The shipment's own contents stay on the page beside the piece's.
      assert.match(text, /Shipment contents\s+Medicines/);
    });
  }));

Deno.test("client documents: the same bytes later, the clock moved on", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const { waybill } = await book(t, client);
    for (const document of DOCUMENTS) {
      const first = await pdfOf(await get(t, client, waybill, document), waybill, document);
      t.clock.advanceBy(26 * 60 * 60 * 1000);
      const again = await pdfOf(await get(t, client, waybill, document), waybill, document);
      assert.deepEqual(again, first, document);
    }
  }));

Deno.test("client documents: another client's waybill, or none, is not found", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill } = await book(t, client);
    const sameCourier = await newClient(t, courier);
    const [, elsewhere] = await ready(t);
    for (const document of DOCUMENTS) {
      for (
        const [other, path] of [[sameCourier, waybill], [elsewhere, waybill], [
          client,
          "WBNOSUCH",
        ]] as const
      ) {
        const res = await get(t, other, path, document);
        assert.equal(res.status, 404, `${document} ${path}`);
        assert.equal((await res.json()).code, "not_found");
      }
    }
  }));

Deno.test("client documents: a cancelled shipment has no paper to ship it with (422 shipment_cancelled)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill } = await book(t, client);
    const cancelled = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
      key: courier.business.api_key,
      body: { event: "cancelled", reason: "order withdrawn" },
    });
    assert.equal(cancelled.status, 201, JSON.stringify(cancelled.body));
    for (const document of DOCUMENTS) {
      const res = await get(t, client, waybill, document);
      assert.equal(res.status, 422, document);
      const body = await res.json();
      assert.equal(body.code, "shipment_cancelled", document);
      assert.match(body.message, new RegExp(waybill), document);
    }
    // The shipment itself still reads, as cancelled.
    const read = await t.call("GET", `/client/shipments/${waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.body.data.status, "cancelled");
  }));

Deno.test("client documents: a courier key or no credential is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill } = await book(t, client);
    const asCourier = await t.app.request(`/api/client/shipments/${waybill}/label`, {
      headers: { "X-Business-API-Key": courier.business.api_key },
    });
    assert.equal(asCourier.status, 401);
    await asCourier.body?.cancel();
    const none = await t.app.request(`/api/client/shipments/${waybill}/waybill`);
    assert.equal(none.status, 401);
    await none.body?.cancel();
  }));

Deno.test("client documents: the OpenAPI document says PDF, CSV and file upload where they are", () =>
  withTestEnv(async (t) => {
    const doc = await t.call("GET", "/api-docs/openapi.json");
    assert.equal(doc.status, 200);
    const paths = doc.body.paths;
    for (const name of ["label", "waybill", "packing-slip"]) {
      const ok = paths[`/client/shipments/{waybill}/${name}`].get.responses["200"].content;
      assert.deepEqual(Object.keys(ok), ["application/pdf"], name);
    }
    const template = paths["/client/shipments/csv/template"].get.responses["200"].content;
    assert.deepEqual(Object.keys(template), ["text/csv"]);
    const upload = paths["/client/shipments/csv"].post.requestBody.content;
    assert.deepEqual(Object.keys(upload).sort(), ["multipart/form-data", "text/csv", "text/plain"]);
    const exported = paths["/business/courier/billing/export"].post.responses["200"].content;
    assert.deepEqual(Object.keys(exported), ["text/csv"]);
  }));

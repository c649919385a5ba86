/**
 * Business API 4.1 trip documents over HTTP: GET /business/trips/{id}/waybill, /receipt,
 * /pick-list, /packing-slip (and the custody /label) by id or reference under the deliveries
 * scope; GET and PUT /business/packing-slip-settings (2.6). Read back with MuPDF and ZXing.
 */
import assert from "node:assert/strict";
import { scannedBarcode } from "../../helpers/barcode_reader.ts";
import { pageTexts, pdfText } from "../../helpers/pdf.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { ORDER_PAYLOAD } from "../../business/rules/trip_documents_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const DOCUMENTS = ["waybill", "receipt", "pick-list", "packing-slip"] as const;
const DELIVERY_CODE = "4821";

async function pdfOf(t: TestEnv, key: string, path: string): Promise<Uint8Array> {
  const r = await t.app.request(`/api${path}`, { headers: { "X-Business-API-Key": key } });
  assert.equal(r.status, 200, `${path}: ${r.status} ${await r.clone().text()}`);
  assert.equal(r.headers.get("Content-Type"), "application/pdf");
  return new Uint8Array(await r.arrayBuffer());
}

/** A business with custody scanning, and its trip with an order, a delivery code and 2 pieces. */
async function orderedTrip(t: TestEnv) {
  const b = await fundedBusiness(t);
  const on = await t.call("PATCH", `/operator/businesses/${b.id}`, {
    operator: true,
    body: { custody_scanning: true },
  });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  const r = await book(t, b.api_key, {
    ...PARCEL,
    external_reference: "SO-55012",
    delivery_code: DELIVERY_CODE,
    order_payload: ORDER_PAYLOAD,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { b, trip: r.body.data };
}

Deno.test("trip documents: each is a PDF by id or reference; none shows the delivery or custody code; the label's barcode scans as the custody code", () =>
  withTestEnv(async (t) => {
    const { b, trip } = await orderedTrip(t);
    for (const d of DOCUMENTS) {
      const byId = await pdfOf(t, b.api_key, `/business/trips/${trip.id}/${d}`);
      const byReference = await pdfOf(t, b.api_key, `/business/trips/${trip.reference}/${d}`);
      assert.deepEqual(byId, byReference, d);
      const text = await pdfText(byId);
      assert.ok(text.includes(trip.reference) && text.includes("SO-55012"), `${d}:\n${text}`);
      assert.ok(!text.includes(trip.scan_code), `${d} shows the custody code`);
      assert.doesNotMatch(text, new RegExp(`\\b${DELIVERY_CODE}\\b`), `${d} shows the code`);
      assert.equal(await scannedBarcode(byId, { page: 1, symbology: "code128" }), trip.reference);
    }
    const pick = await pdfText(await pdfOf(t, b.api_key, `/business/trips/${trip.id}/pick-list`));
    assert.doesNotMatch(pick, /\d+\.\d\d|BWP/);
    assert.ok(pick.includes("Rooibos tea") && pick.includes("6001234567890"));
    // An item's printed fields are checked at booking: a price that is not an amount is refused.
    const bad = await book(t, b.api_key, {
      ...PARCEL,
      order_payload: { items: [{ name: "Milk", qty: 1, unit_price: "cheap" }] },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].path, "order_payload.items.0.unit_price");
    const label = await pdfOf(t, b.api_key, `/business/trips/${trip.id}/label`);
    assert.equal(await scannedBarcode(label, { page: 1, symbology: "code128" }), trip.scan_code);
  }));

Deno.test("packing slip: piece n of N from order_payload.pieces or ?pieces=N; prices and the returns note follow the settings", () =>
  withTestEnv(async (t) => {
    const { b, trip } = await orderedTrip(t);
    const path = `/business/trips/${trip.reference}/packing-slip`;
    const two = pageTexts(await pdfText(await pdfOf(t, b.api_key, path)));
    assert.deepEqual(two.map((p) => /Piece (\d+) of (\d+)/.exec(p)?.slice(1)), [["1", "2"], [
      "2",
      "2",
    ]]);
    assert.ok(two[0]!.includes("Neo") && two[0]!.includes("Kgosi") && !/\d+\.\d\d/.test(two[0]!));
    const three = pageTexts(await pdfText(await pdfOf(t, b.api_key, `${path}?pieces=3`)));
    assert.equal(three.length, 3);
    assert.ok(three[2]!.includes("Piece 3 of 3"));
    const bad = await t.call("GET", `${path}?pieces=0`, { key: b.api_key });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");

    const set = await t.call("PUT", "/business/packing-slip-settings", {
      key: b.api_key,
      body: { show_prices: true, returns_note: "Returns within 14 days" },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const priced = await pdfText(await pdfOf(t, b.api_key, `${path}?pieces=1`));
    assert.ok(priced.includes("24.50 BWP") && priced.includes("Returns within 14 days"), priced);
    assert.ok(!priced.includes(trip.scan_code) && !/\b4821\b/.test(priced));
  }));

Deno.test("packing slip settings: show_prices off by default; a returns note past 1,000 characters is refused and changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "0");
    const first = await t.call("GET", "/business/packing-slip-settings", { key: b.api_key });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data, { show_prices: false, returns_note: null, updated_at: null });
    const put = (body: unknown) =>
      t.call("PUT", "/business/packing-slip-settings", { key: b.api_key, body });
    assert.equal((await put({ returns_note: "x".repeat(1_000) })).status, 200);
    const long = await put({ show_prices: true, returns_note: "y".repeat(1_001) });
    assert.equal(long.status, 422);
    assert.equal(long.body.code, "validation_failed");
    assert.equal(long.body.errors[0].path, "returns_note");
    const kept = await t.call("GET", "/business/packing-slip-settings", { key: b.api_key });
    assert.equal(kept.body.data.show_prices, false);
    assert.equal(kept.body.data.returns_note, "x".repeat(1_000));
    // A field left out keeps its value; null removes the note.
    const on = await put({ show_prices: true });
    assert.equal(on.body.data.returns_note, "x".repeat(1_000));
    const cleared = await put({ returns_note: null });
    assert.deepEqual([cleared.body.data.show_prices, cleared.body.data.returns_note], [true, null]);
    const wrong = await put({ show_prices: "yes" });
    assert.equal(wrong.status, 422);
  }));

Deno.test("trip documents: another business's trip is 404; a deliveries partner key prints them, a rewards key is refused, and neither reaches the settings", () =>
  withTestEnv(async (t) => {
    const { b, trip } = await orderedTrip(t);
    const other = await fundedBusiness(t, "0");
    for (const d of DOCUMENTS) {
      for (const id of [trip.id, trip.reference]) {
        const r = await t.call("GET", `/business/trips/${id}/${d}`, { key: other.api_key });
        assert.equal(r.status, 404, `${d} ${id}`);
        assert.equal(r.body.code, "not_found");
      }
    }
    const keyOf = async (scopes: string[]) => {
      const r = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
        operator: true,
        body: { partner: "Till", scopes },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.data.key as string;
    };
    const [deliveries, rewards] = [await keyOf(["deliveries"]), await keyOf(["rewards"])];
    for (const d of DOCUMENTS) await pdfOf(t, deliveries, `/business/trips/${trip.id}/${d}`);
    const refused = await t.call("GET", `/business/trips/${trip.id}/packing-slip`, {
      key: rewards,
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "scope_denied");
    for (const key of [deliveries, rewards]) {
      const r = await t.call("GET", "/business/packing-slip-settings", { key });
      assert.equal(r.status, 403);
      assert.equal(r.body.code, "scope_denied");
    }
  }));

Deno.test("trip documents: a cancelled trip's waybill, pick list, packing slip and label are refused 422 trip_cancelled; its receipt says refunded", () =>
  withTestEnv(async (t) => {
    const { b, trip } = await orderedTrip(t);
    const cancelled = await t.call("POST", `/business/trips/${trip.reference}/cancel`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    // Before, each printed as paper to pick, pack and hand over, with nothing saying cancelled.
    for (const d of ["waybill", "pick-list", "packing-slip", "label"]) {
      const r = await t.call("GET", `/business/trips/${trip.id}/${d}`, { key: b.api_key });
      assert.equal(r.status, 422, d);
      assert.equal(r.body.code, "trip_cancelled", d);
      assert.match(r.body.message, new RegExp(trip.reference));
    }
    const receipt = await pdfText(await pdfOf(t, b.api_key, `/business/trips/${trip.id}/receipt`));
    assert.match(receipt, /Refunded/);
  }));

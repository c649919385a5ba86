/**
 * Business API 2.2 custody scanning (CONTRACT PATCH /operator/businesses/{id} custody_scanning):
 * a trip booked with the add-on carries scan_code and scan_label_url; the label is an A6 PDF with
 * the code as a barcode image; the driver's scan matches without the hyphen and in any case.
 */
import assert from "node:assert/strict";
import { PDFDocument, PDFName, PDFRawStream } from "pdf-lib";
import { A6_SIZE } from "../../../src/business/rules/custody_label.ts";
import { sha256 } from "../../../src/domain/secrets.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip, act } from "../../helpers/driver_trips.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/**
 * The images the PDF shows (the barcode, drawn as a picture by bwip-js), without the
 * transparency masks a PNG brings along as images of their own.
 */
function imagesOf(doc: PDFDocument): PDFRawStream[] {
  const images = doc.context.enumerateIndirectObjects().flatMap(([, o]) =>
    o instanceof PDFRawStream && o.dict.get(PDFName.of("Subtype")) === PDFName.of("Image")
      ? [o]
      : []
  );
  const masks = new Set(images.map((i) => i.dict.get(PDFName.of("SMask"))?.toString()));
  return images.filter((i) => !masks.has(doc.context.getObjectRef(i)?.toString()));
}

Deno.test("custody scanning: the add-on gives scan_code, scan_label_url and an A6 label with the barcode", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const on = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { custody_scanning: true },
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal(on.body.data.custody_scanning, true);
    const r = await book(t, b.api_key, { ...PARCEL, order_payload: { store_name: "Molapo" } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const trip = r.body.data;
    assert.match(trip.scan_code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    assert.equal(trip.scanned_at, null);
    assert.ok(trip.scan_label_url.endsWith(`/business/trips/${trip.reference}/label`));

    const label = await t.app.request(`/api/business/trips/${trip.id}/label`, {
      headers: { "X-Business-API-Key": b.api_key },
    });
    assert.equal(label.status, 200);
    assert.equal(label.headers.get("Content-Type"), "application/pdf");
    const doc = await PDFDocument.load(new Uint8Array(await label.arrayBuffer()));
    assert.equal(doc.getPageCount(), 1);
    const { width, height } = doc.getPage(0).getSize();
    assert.deepEqual([width, height].map(Math.round), A6_SIZE.map(Math.round));
    assert.equal(imagesOf(doc).length, 1, "the barcode image");
    assert.equal(doc.getSubject(), trip.scan_code);

    const other = await fundedBusiness(t);
    const foreign = await t.call("GET", `/business/trips/${trip.reference}/label`, {
      key: other.api_key,
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, "not_found");
  }));

Deno.test("custody scanning: without the add-on no scan fields, no label, pick_up forced", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const seen = await t.call("GET", `/business/trips/${trip.reference}`, {
      key: trip.business.api_key,
    });
    for (const field of ["scan_code", "scanned_at", "scan_label_url"]) {
      assert.ok(!(field in seen.body.data), field);
    }
    const label = await t.call("GET", `/business/trips/${trip.reference}/label`, {
      key: trip.business.api_key,
    });
    assert.equal(label.status, 404);
    assert.equal(label.body.code, "custody_scanning_off");
    await act(t, trip, "arrive_pickup");
    const scanned = await act(t, trip, "pick_up", { scan_code: "ABCD-EFGH" });
    assert.equal(scanned.status, 422);
    assert.equal(scanned.body.code, "force_reason_required");
  }));

Deno.test("custody scanning: the driver's scan matches without the hyphen in any case; a wrong one is refused", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { custody_scanning: true },
    });
    const trip = await acceptedTrip(t, {}, b);
    const booked = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
    const code: string = booked.body.data.scan_code;
    await act(t, trip, "arrive_pickup");
    const wrong = await act(t, trip, "pick_up", {
      scan_code: "ZZZZ-ZZZZ",
      idempotency_key: "scan-1",
    });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.body.code, "scan_mismatch");
    const ok = await act(t, trip, "pick_up", {
      scan_code: code.replace("-", "").toLowerCase(),
      idempotency_key: "scan-2",
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(ok.body.data.scanned_at);
    const after = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
    assert.equal(after.body.data.scanned_at, ok.body.data.scanned_at);
    assert.equal(after.body.data.status, "active");
  }));

/** The token as anyone who read the trip's reference could work it out (sha256 of the reference). */
function derivedFromReference(reference: string): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = sha256(`scan:${reference}`);
  const code = Array.from(bytes.slice(0, 8), (b) => alphabet[b % alphabet.length]).join("");
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

Deno.test("custody scanning: the custody token cannot be worked out from the trip's reference", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { custody_scanning: true },
    });
    const trip = await acceptedTrip(t, {}, b);
    const booked = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
    const code: string = booked.body.data.scan_code;
    assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const forged = derivedFromReference(trip.reference);
    assert.notEqual(code, forged, "a driver who knows the reference could scan without the bag");
    await act(t, trip, "arrive_pickup");
    const pickUp = await act(t, trip, "pick_up", { scan_code: forged, idempotency_key: "forged" });
    assert.equal(pickUp.status, 422);
    assert.equal(pickUp.body.code, "scan_mismatch");
  }));

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bookingFingerprint,
  bookingReference,
  inexactInEveryCurrency,
  scheduleOf,
  testMarked,
} from "../../../src/business/rules/booking.ts";
import { derivedKey, importDataKey, sha256Hex } from "../../../src/domain/secrets.ts";

const NOW = Date.parse("2026-11-02T08:00:00Z");

Deno.test("scheduleOf: a day the calendar lacks, or an hour past 23, is refused, not rolled over", () => {
  for (
    const text of [
      "2027-02-30T10:00:00+02:00",
      "2027-02-29T10:00:00",
      "2027-04-31T10:00:00Z",
      "2027-13-01T10:00:00Z",
      "2027-12-02T24:00:00+02:00",
      "2027-12-02T10:60:00Z",
      "2027-12-02T10:00:00+25:00",
    ]
  ) {
    const s = scheduleOf(text, NOW);
    assert.equal(s.ok, false, text);
    if (!s.ok) assert.ok(s.message.includes(text), s.message);
  }
});

Deno.test("scheduleOf: only ISO 8601 is read, not the other formats Date.parse guesses at", () => {
  for (
    const text of [
      "12/02/2027 10:00 +02:00",
      "Thu, 02 Dec 2027 10:00:00 +0200",
      "2027-12-02  10:00:00+02:00",
      "December 2, 2027 10:00 +02:00",
    ]
  ) {
    assert.equal(scheduleOf(text, NOW).ok, false, text);
  }
});

Deno.test("scheduleOf: an offset with or without its colon, Z, or none (UTC+2) name the same instant", () => {
  const at = Date.parse("2027-12-02T08:00:00Z");
  for (
    const text of [
      "2027-12-02T10:00:00+02:00",
      "2027-12-02T10:00:00+0200",
      "2027-12-02T08:00:00Z",
      "2027-12-02T08:00:00z",
      "2027-12-02T10:00:00",
      "2027-12-02T10:00",
      "2027-12-02T10:00:00.000",
      "2027-12-02T03:00:00-05:00",
      "2027-12-02 10:00:00+02:00",
      "2027-12-02 10:00:00",
    ]
  ) {
    assert.deepEqual(scheduleOf(text, NOW), { ok: true, at }, text);
  }
  // A leap day exists in a leap year.
  assert.equal(scheduleOf("2028-02-29T10:00:00", NOW).ok, true);
});

Deno.test("scheduleOf: every real instant written as ISO 8601 at UTC+2 reads back as itself", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: NOW + 11 * 60_000, max: Date.parse("2099-12-31T00:00:00Z") }),
      (ms) => {
        const whole = Math.floor(ms / 1_000) * 1_000;
        const local = new Date(whole + 2 * 3_600_000).toISOString().slice(0, 19);
        assert.deepEqual(scheduleOf(local, NOW), { ok: true, at: whole });
        assert.deepEqual(scheduleOf(`${local}+02:00`, NOW), { ok: true, at: whole });
      },
    ),
  );
});

Deno.test("scheduleOf: the past is refused; up to 10 minutes ahead is now; later is scheduled", () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  assert.equal(scheduleOf(iso(NOW - 1_000), NOW).ok, false);
  assert.deepEqual(scheduleOf(iso(NOW), NOW), { ok: true, at: null });
  assert.deepEqual(scheduleOf(iso(NOW + 10 * 60_000), NOW), { ok: true, at: null });
  assert.deepEqual(scheduleOf(iso(NOW + 10 * 60_000 + 1_000), NOW), {
    ok: true,
    at: NOW + 10 * 60_000 + 1_000,
  });
});

Deno.test("inexactInEveryCurrency: an amount is named only when no currency holds it exactly", () => {
  const r = {
    cod_amount: 9.995,
    order_payload: { items: [{ name: "a", qty: 1, unit_price: 10.5 }, { name: "b", qty: 1 }] },
  };
  assert.deepEqual(
    inexactInEveryCurrency(r, ["BWP", "ZAR", "BWP"]).map((p) => p.path),
    ["cod_amount"],
  );
  // 10.5 is inexact in yen but exact in pula: which one applies is known only once priced.
  assert.deepEqual(
    inexactInEveryCurrency(r, ["JPY", "BWP"]).map((p) => p.path),
    ["cod_amount"],
  );
  assert.deepEqual(
    inexactInEveryCurrency(r, ["JPY"]).map((p) => p.path),
    ["cod_amount", "order_payload.items.0.unit_price"],
  );
  assert.deepEqual(inexactInEveryCurrency({ cod_amount: 9.99 }, ["BWP"]), []);
  assert.deepEqual(inexactInEveryCurrency(r, []), []);
});

Deno.test("bookingFingerprint: a field sent at the value leaving it out means is the same booking; any other value is not", () => {
  const body = {
    type: "parcel",
    external_reference: "ORD-1",
    order_payload: { store_name: "Molapo" },
  };
  const same = [
    { stops: [] },
    { handover_required: false },
    { age_verification_required: false },
    { shop_deliver: false },
    { segment: "parcel" },
    { test: false, dry_run: false },
    { order_payload: { store_name: "Molapo", external_reference: "ORD-1" } },
  ];
  for (const extra of same) {
    for (const sandbox of [false, true]) {
      assert.equal(
        bookingFingerprint({ ...body, ...extra }, sandbox),
        bookingFingerprint(body, sandbox),
        JSON.stringify(extra),
      );
    }
  }
  const other = [
    { handover_required: true },
    { segment: "cargo" },
    { stops: [{ address: "A" }] },
    { order_payload: { store_name: "Molapo", external_reference: "ORD-2" } },
  ];
  for (const extra of other) {
    assert.notEqual(
      bookingFingerprint({ ...body, ...extra }, true),
      bookingFingerprint(body, true),
    );
  }
  // Ignored in the sandbox; on live a true flag is refused, never a replay of the booking.
  assert.equal(bookingFingerprint({ ...body, test: true }, true), bookingFingerprint(body, true));
  assert.notEqual(
    bookingFingerprint({ ...body, test: true }, false),
    bookingFingerprint(body, false),
  );
  // An external_reference alone is what the booking makes an order_payload of.
  const bare = { type: "parcel", external_reference: "ORD-1" };
  assert.equal(
    bookingFingerprint({ ...bare, order_payload: { external_reference: "ORD-1" } }, false),
    bookingFingerprint(bare, false),
  );
});

Deno.test("testMarked: a marker after spaces or invisible format characters is found; elsewhere in the text it is not", () => {
  for (const text of ["__TEST order", "  [test] x", "\u200b__TEST", "\u200e\ufeff TEST ORDER 5"]) {
    assert.ok(testMarked([{ path: "note", text }]), JSON.stringify(text));
  }
  for (const text of ["Order __TEST", "TESTING", null, undefined]) {
    assert.equal(testMarked([{ path: "note", text }]), null, JSON.stringify(text));
  }
  assert.deepEqual(
    testMarked([{ path: "a", text: "x" }, { path: "b", text: "\u2060DO NOT DELIVER" }]),
    {
      path: "b",
      marker: "DO NOT DELIVER",
    },
  );
});

Deno.test("booking reference: keyed with the environment's reference key, never worked out from a business id and an order number alone", async () => {
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const key = await derivedKey(await importDataKey(raw), "booking reference");
  const again = await derivedKey(await importDataKey(raw.slice()), "booking reference");
  const other = await derivedKey(
    await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    "booking reference",
  );
  const order = { kind: "external_reference" as const, value: "ORD-1001" };
  const biz1 = { id: "biz_1", references_keyed: true } as const;
  const reference = bookingReference(key, biz1, order, () => "");
  assert.match(reference, /^BK-[0-9A-HJKMNP-TV-Z]{12}$/);
  // Every instance sharing the data key names the same trip for a retry (spec: appendix 1).
  assert.equal(bookingReference(again, biz1, order, () => ""), reference);
  assert.notEqual(bookingReference(key, { ...biz1, id: "biz_2" }, order, () => ""), reference);
  // Without the data key, the business id and the order number do not give the reference away.
  assert.notEqual(bookingReference(other, biz1, order, () => ""), reference);
  const unkeyed = sha256Hex(`biz_1\nexternal_reference\nORD-1001`);
  assert.notEqual(
    bookingReference(key, biz1, order, () => ""),
    referenceFromHexForTest(unkeyed),
  );
  // An account made before references were keyed keeps the plain derivation for good: a retry of
  // a booking it made then still names that trip (appendix 1), never a second one.
  assert.equal(
    bookingReference(key, { id: "biz_1" }, order, () => ""),
    referenceFromHexForTest(unkeyed),
  );
});

/** The plain derivation (an account made before references were keyed), for the above. */
function referenceFromHexForTest(hex: string): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let out = "";
  for (let i = 0; i < 12; i++) out += alphabet[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return `BK-${out}`;
}

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import {
  API_VERSION,
  canonicalV3,
  SIGNATURE_TOLERANCE_SECONDS,
  signV1,
  signV2,
  signV3,
} from "../../src/domain/signatures.ts";
import { v2Headers, v3Headers } from "../../src/domain/delivery_headers.ts";
import {
  type HeaderSource,
  verifyV1,
  verifyV2,
  verifyV3,
} from "../../src/domain/signature_verification.ts";

// Published test vectors. Receivers can check their implementation against these literals.
const SECRET = "whsec_test_vector_secret";
const SHOPPING_SECRET = "shf_test_vector_secret";
const TIMESTAMP = 1795300000;
const EVENT_ID = "evt_01JTESTVECTOR";
const ATTEMPT_ID = "att_01JTESTATTEMPT";
const KEY_ID = "key_2026_a";
/** Written with escapes so the bytes do not depend on this file's encoding: 118 chars, 124 bytes. */
const BODY =
  '{"api_version":"v1","event_id":"evt_01JTESTVECTOR","event_type":"shipment.delivered",' +
  '"note":"Gaborone \u2013 na\u00efve caf\u00e9 \u2713"}';
const BODY_BYTES = new TextEncoder().encode(BODY);

const V1_VECTOR = "sha256=c8caa44b6ea2d046e5de1dc5e83125c22d64c3febd7c98b95a2713422862acd4";
const V2_VECTOR =
  "t=1795300000,sha256=ea5988af39d59b8b7c7dd07893838bc9020748fd8acce0a458e6a0b08b202506";
const V3_CANONICAL_VECTOR = "v1\n1795300000\nevt_01JTESTVECTOR\natt_01JTESTATTEMPT\n" +
  "8N2cdVcLhit1zQJ51CHVgMEvsEMkcRlGqyBF1Sv/s/4=";
const V3_VECTOR =
  "t=1795300000,sha256=d340dcf8bc1c2324534b8881f95c29965d6870121f6aed61ee050ccec19a5434";
const SHOPPING_V1_VECTOR =
  "sha256=14e009440dcdddffe8a997f9f6f849a33d38daa3d88fd7b36b28d84688aec5e9";
const SHOPPING_V2_VECTOR =
  "t=1795300000,sha256=33114b0a6a203b87c85ef7fd81ab1a8c3959835c596e5df63ca33b91be69d867";

const PARTS = {
  apiVersion: "v1",
  deliveryTimestamp: TIMESTAMP,
  eventId: EVENT_ID,
  attemptId: ATTEMPT_ID,
  rawBody: BODY,
};

function nodeHmacHex(secret: string, message: Uint8Array | string): string {
  return createHmac("sha256", new TextEncoder().encode(secret)).update(message).digest("hex");
}

async function delivery(
  overrides: { secret?: string; keyId?: string; attemptId?: string; timestamp?: number } = {},
  rawBody: Uint8Array | string = BODY,
): Promise<Record<string, string>> {
  return {
    ...await v3Headers({
      secret: overrides.secret ?? SECRET,
      keyId: overrides.keyId ?? KEY_ID,
      eventId: EVENT_ID,
      attemptId: overrides.attemptId ?? ATTEMPT_ID,
      deliveryTimestamp: overrides.timestamp ?? TIMESTAMP,
      rawBody,
    }),
  };
}

function receive(headers: HeaderSource, rawBody: Uint8Array | string = BODY, now = TIMESTAMP) {
  return verifyV3({ secrets: { [KEY_ID]: SECRET }, rawBody, headers, nowSeconds: now });
}

Deno.test("signatures: published vectors for V1, V2 and V3", async () => {
  assert.equal(BODY_BYTES.length, 124);
  assert.equal(await signV1(SECRET, BODY), V1_VECTOR);
  assert.equal(await signV2(SECRET, BODY, TIMESTAMP), V2_VECTOR);
  assert.equal(await canonicalV3(PARTS), V3_CANONICAL_VECTOR);
  assert.equal(await signV3(SECRET, PARTS), V3_VECTOR);
  // A string body and its UTF-8 bytes sign the same.
  assert.equal(await signV1(SECRET, BODY_BYTES), V1_VECTOR);
  assert.equal(await signV2(SECRET, BODY_BYTES, TIMESTAMP), V2_VECTOR);
  assert.equal(await signV3(SECRET, { ...PARTS, rawBody: BODY_BYTES }), V3_VECTOR);
});

Deno.test("signatures: vectors agree with an independent HMAC (node:crypto)", () => {
  assert.equal(`sha256=${nodeHmacHex(SECRET, BODY_BYTES)}`, V1_VECTOR);
  const v2Message = Buffer.concat([Buffer.from(`${TIMESTAMP}.`, "ascii"), BODY_BYTES]);
  assert.equal(`t=${TIMESTAMP},sha256=${nodeHmacHex(SECRET, v2Message)}`, V2_VECTOR);
  const bodyDigest = createHash("sha256").update(BODY_BYTES).digest("base64");
  const canonical = ["v1", String(TIMESTAMP), EVENT_ID, ATTEMPT_ID, bodyDigest].join("\n");
  assert.equal(canonical, V3_CANONICAL_VECTOR);
  assert.equal(`t=${TIMESTAMP},sha256=${nodeHmacHex(SECRET, canonical)}`, V3_VECTOR);
  assert.equal(`sha256=${nodeHmacHex(SHOPPING_SECRET, BODY_BYTES)}`, SHOPPING_V1_VECTOR);
  assert.equal(
    `t=${TIMESTAMP},sha256=${nodeHmacHex(SHOPPING_SECRET, v2Message)}`,
    SHOPPING_V2_VECTOR,
  );
});

Deno.test("signatures: v3Headers carries every header of a billing event delivery", async () => {
  assert.deepEqual(await delivery(), {
    "Content-Type": "application/json",
    "X-Service-Event-Id": "evt_01JTESTVECTOR",
    "Idempotency-Key": "evt_01JTESTVECTOR",
    "X-Service-Signature": V1_VECTOR,
    "X-Service-Signature-V3": V3_VECTOR,
    "X-Service-Delivery-Timestamp": "1795300000",
    "X-Service-Attempt-Id": "att_01JTESTATTEMPT",
    "X-Service-Key-Id": "key_2026_a",
    "X-Service-Api-Version": "v1",
  });
  assert.equal(API_VERSION, "v1");
});

Deno.test("signatures: v2Headers carries every header of a shopping or client webhook", async () => {
  const headers = await v2Headers({
    secret: SHOPPING_SECRET,
    event: "shopping.store_collected",
    deliveryId: EVENT_ID,
    timestamp: TIMESTAMP,
    rawBody: BODY,
  });
  assert.deepEqual(headers, {
    "Content-Type": "application/json",
    "X-Service-Signature": SHOPPING_V1_VECTOR,
    "X-Service-Signature-V2": SHOPPING_V2_VECTOR,
    "X-Service-Timestamp": "1795300000",
    "X-Service-Event": "shopping.store_collected",
    "X-Service-Delivery": "evt_01JTESTVECTOR",
    "X-Service-Api-Version": "v1",
  });
  assert.deepEqual(
    await verifyV2(SHOPPING_SECRET, BODY, headers["X-Service-Signature-V2"], TIMESTAMP),
    { ok: true },
  );
  assert.deepEqual(await verifyV1(SHOPPING_SECRET, BODY, headers["X-Service-Signature"]), {
    ok: true,
  });
});

Deno.test("signatures: sign then verify round-trips for V1, V2 and V3", async () => {
  assert.deepEqual(await verifyV1(SECRET, BODY, V1_VECTOR), { ok: true });
  assert.deepEqual(await verifyV2(SECRET, BODY, V2_VECTOR, TIMESTAMP), { ok: true });
  assert.deepEqual(await receive(await delivery()), { ok: true });
  // Header names are case-insensitive; a fetch Headers object works as received.
  assert.deepEqual(await receive(new Headers(await delivery())), { ok: true });
  const lower = Object.fromEntries(
    Object.entries(await delivery()).map(([k, v]) => [k.toLowerCase(), v]),
  );
  assert.deepEqual(await receive(lower), { ok: true });
});

Deno.test("signatures: a tampered body is bad_signature for every version", async () => {
  const tampered = BODY.replace("shipment.delivered", "shipment.returned");
  const bad = { ok: false, reason: "bad_signature" };
  assert.deepEqual(await verifyV1(SECRET, tampered, V1_VECTOR), bad);
  assert.deepEqual(await verifyV2(SECRET, tampered, V2_VECTOR, TIMESTAMP), bad);
  assert.deepEqual(await receive(await delivery(), tampered), bad);
  assert.deepEqual(await verifyV1("whsec_other", BODY, V1_VECTOR), bad);
});

Deno.test("signatures: timestamps more than 300 s off either way are stale_timestamp", async () => {
  assert.equal(SIGNATURE_TOLERANCE_SECONDS, 300);
  const stale = { ok: false, reason: "stale_timestamp" };
  const headers = await delivery();
  for (const offset of [301, -301, 10_000]) {
    assert.deepEqual(await verifyV2(SECRET, BODY, V2_VECTOR, TIMESTAMP + offset), stale);
    assert.deepEqual(await receive(headers, BODY, TIMESTAMP + offset), stale);
  }
  for (const offset of [299, -299, 300, -300, 0]) {
    assert.deepEqual(await verifyV2(SECRET, BODY, V2_VECTOR, TIMESTAMP + offset), { ok: true });
    assert.deepEqual(await receive(headers, BODY, TIMESTAMP + offset), { ok: true });
  }
});

Deno.test("signatures: a key id the receiver does not hold is unknown_key", async () => {
  const unknown = { ok: false, reason: "unknown_key" };
  assert.deepEqual(await receive(await delivery({ keyId: "key_2025_z" })), unknown);
  // Inherited object properties are not secrets.
  for (const keyId of ["__proto__", "toString", "constructor"]) {
    assert.deepEqual(await receive(await delivery({ keyId })), unknown);
  }
  const lookup = (keyId: string) => Promise.resolve(keyId === KEY_ID ? SECRET : undefined);
  const headers = await delivery({ keyId: "key_2025_z" });
  assert.deepEqual(
    await verifyV3({ secrets: lookup, rawBody: BODY, headers, nowSeconds: TIMESTAMP }),
    unknown,
  );
  assert.deepEqual(
    await verifyV3({
      secrets: lookup,
      rawBody: BODY,
      headers: await delivery(),
      nowSeconds: TIMESTAMP,
    }),
    { ok: true },
  );
});

Deno.test("signatures: during rotation a delivery signed with the old key still verifies", async () => {
  const oldSecret = "whsec_old_rotating_secret";
  const newSecret = "whsec_new_rotating_secret";
  const signedOld = await delivery({ secret: oldSecret, keyId: "key_old" });
  const signedNew = await delivery({ secret: newSecret, keyId: "key_new" });
  const both = { key_old: oldSecret, key_new: newSecret };
  const check = (secrets: Record<string, string>, headers: Record<string, string>) =>
    verifyV3({ secrets, rawBody: BODY, headers, nowSeconds: TIMESTAMP });
  assert.deepEqual(await check(both, signedOld), { ok: true });
  assert.deepEqual(await check(both, signedNew), { ok: true });
  assert.deepEqual(await check({ key_new: newSecret }, signedOld), {
    ok: false,
    reason: "unknown_key",
  });
  // A key id naming the wrong secret does not verify.
  assert.deepEqual(await check({ key_old: newSecret }, signedOld), {
    ok: false,
    reason: "bad_signature",
  });
  // V1 and V2 carry no key id: every held secret is tried.
  const v1 = await signV1(oldSecret, BODY);
  const v2 = await signV2(oldSecret, BODY, TIMESTAMP);
  assert.deepEqual(await verifyV1([newSecret, oldSecret], BODY, v1), { ok: true });
  assert.deepEqual(await verifyV2([newSecret, oldSecret], BODY, v2, TIMESTAMP), { ok: true });
  assert.deepEqual(await verifyV1([newSecret], BODY, v1), { ok: false, reason: "bad_signature" });
  assert.deepEqual(await verifyV2([], BODY, v2, TIMESTAMP), { ok: false, reason: "bad_signature" });
});

Deno.test("signatures: V3 event id or api version differing from the body is mismatched_event", async () => {
  const mismatched = { ok: false, reason: "mismatched_event" };
  // A sender that signs a consistent header set for another event than the body's.
  const otherEvent = await v3Headers({
    secret: SECRET,
    keyId: KEY_ID,
    eventId: "evt_other",
    attemptId: ATTEMPT_ID,
    deliveryTimestamp: TIMESTAMP,
    rawBody: BODY,
  });
  assert.deepEqual(await receive(otherEvent), mismatched);
  const otherVersion = {
    ...await delivery(),
    "X-Service-Api-Version": "v2",
    "X-Service-Signature-V3": await signV3(SECRET, { ...PARTS, apiVersion: "v2" }),
  };
  assert.deepEqual(await receive(otherVersion), mismatched);
  // A signed body that is not a JSON object with an event_id cannot match.
  const notJson = "event_id=evt_01JTESTVECTOR";
  assert.deepEqual(await receive(await delivery({}, notJson), notJson), mismatched);
  // Changing the event id header after signing breaks the signature itself.
  const edited = { ...await delivery(), "X-Service-Event-Id": "evt_other" };
  assert.deepEqual(await receive(edited), { ok: false, reason: "bad_signature" });
});

Deno.test("signatures: a replay (new timestamp and attempt id, same event and body) verifies", async () => {
  const later = TIMESTAMP + 3_600;
  const replay = await delivery({ timestamp: later, attemptId: "att_01JREPLAY" });
  assert.equal(replay["X-Service-Event-Id"], EVENT_ID);
  assert.equal(replay["X-Service-Signature"], V1_VECTOR);
  assert.notEqual(replay["X-Service-Signature-V3"], V3_VECTOR);
  assert.deepEqual(await receive(replay, BODY, later), { ok: true });
  // The attempt id is signed: swapping it without re-signing fails.
  const swapped = { ...replay, "X-Service-Attempt-Id": ATTEMPT_ID };
  assert.deepEqual(await receive(swapped, BODY, later), { ok: false, reason: "bad_signature" });
});

Deno.test("signatures: malformed headers are bad_header", async () => {
  const hexPart = V1_VECTOR.slice("sha256=".length);
  for (
    const header of [
      null,
      undefined,
      "",
      `sha1=${hexPart}`,
      `sha256=${hexPart.toUpperCase()}`,
      ` ${V1_VECTOR}`,
      `${V1_VECTOR}00`,
      `${V1_VECTOR},${V1_VECTOR}`,
    ]
  ) {
    assert.deepEqual(await verifyV1(SECRET, BODY, header), { ok: false, reason: "bad_header" });
  }
  for (
    const header of [
      `sha256=${hexPart},t=${TIMESTAMP}`,
      `t=${TIMESTAMP}, sha256=${hexPart}`,
      `t=0${TIMESTAMP},sha256=${hexPart}`,
      `t=-${TIMESTAMP},sha256=${hexPart}`,
      `t=${TIMESTAMP}.5,sha256=${hexPart}`,
      V1_VECTOR,
    ]
  ) {
    assert.deepEqual(await verifyV2(SECRET, BODY, header, TIMESTAMP), {
      ok: false,
      reason: "bad_header",
    });
  }
  const good = await delivery();
  const without = (name: string) =>
    Object.fromEntries(Object.entries(good).filter(([k]) => k !== name));
  const broken: Record<string, string>[] = [
    without("X-Service-Signature-V3"),
    without("X-Service-Delivery-Timestamp"),
    without("X-Service-Attempt-Id"),
    without("X-Service-Event-Id"),
    without("X-Service-Api-Version"),
    without("X-Service-Key-Id"),
    { ...good, "X-Service-Delivery-Timestamp": String(TIMESTAMP + 1) },
    { ...good, "X-Service-Signature-V3": V1_VECTOR },
    { ...good, "x-service-key-id": "key_2026_b" },
  ];
  for (const headers of broken) {
    assert.deepEqual(await receive(headers), { ok: false, reason: "bad_header" });
  }
  // An explicit key id must agree with the header.
  assert.deepEqual(
    await verifyV3({
      secrets: { [KEY_ID]: SECRET, key_other: SECRET },
      keyId: "key_other",
      rawBody: BODY,
      headers: good,
      nowSeconds: TIMESTAMP,
    }),
    { ok: false, reason: "bad_header" },
  );
  assert.deepEqual(
    await verifyV3({
      secrets: { [KEY_ID]: SECRET },
      keyId: KEY_ID,
      rawBody: BODY,
      headers: without("X-Service-Key-Id"),
      nowSeconds: TIMESTAMP,
    }),
    { ok: true },
  );
});

Deno.test("signatures: non-ASCII bodies are signed as their raw bytes, not re-serialized JSON", async () => {
  // The same JSON value, three byte sequences: each signs differently.
  const literal = new TextEncoder().encode('{"name":"Caf\u00e9 \u2713"}');
  const escaped = new TextEncoder().encode('{"name":"Caf\\u00e9 \\u2713"}');
  const spaced = new TextEncoder().encode('{ "name": "Caf\u00e9 \u2713" }');
  const signature = await signV1(SECRET, literal);
  assert.equal(signature, `sha256=${nodeHmacHex(SECRET, literal)}`);
  assert.notEqual(
    signature,
    `sha256=${nodeHmacHex(SECRET, Buffer.from(literal).toString("latin1"))}`,
  );
  assert.notEqual(signature, await signV1(SECRET, escaped));
  assert.notEqual(signature, await signV1(SECRET, spaced));
  assert.deepEqual(await verifyV1(SECRET, escaped, signature), {
    ok: false,
    reason: "bad_signature",
  });
  // A receiver that re-serializes the parsed body before verifying fails on the vector.
  const reserialized = JSON.stringify(JSON.parse(BODY), null, 1);
  assert.deepEqual(await receive(await delivery(), reserialized), {
    ok: false,
    reason: "bad_signature",
  });
  // A body that is not valid UTF-8 still signs and verifies as bytes.
  const invalidUtf8 = new Uint8Array([0xff, 0xfe, 0x00, 0x80]);
  const v2 = await signV2(SECRET, invalidUtf8, TIMESTAMP);
  assert.deepEqual(await verifyV2(SECRET, invalidUtf8, v2, TIMESTAMP), { ok: true });
});

Deno.test("signatures: a timestamp that is not whole unix seconds is a caller error", async () => {
  for (const timestamp of [1795300000.5, -1, Number.NaN, 1e300]) {
    await assert.rejects(() => signV2(SECRET, BODY, timestamp), RangeError);
    await assert.rejects(
      () => signV3(SECRET, { ...PARTS, deliveryTimestamp: timestamp }),
      RangeError,
    );
  }
});

const secretArb = fc.string({ minLength: 1, maxLength: 48, unit: "grapheme" });
const mutationArb = fc.record({ at: fc.nat(), delta: fc.integer({ min: 1, max: 255 }) });

function mutate(bytes: Uint8Array, mutation: { at: number; delta: number }): Uint8Array {
  const copy = bytes.slice();
  const i = mutation.at % copy.length;
  copy[i] = (copy[i]! + mutation.delta) & 0xff;
  return copy;
}

Deno.test("signatures: property: verify(sign(x)) is ok and any one-byte change fails", async () => {
  await fc.assert(
    fc.asyncProperty(
      secretArb,
      fc.uint8Array({ minLength: 1, maxLength: 300 }),
      fc.integer({ min: 0, max: 4_000_000_000 }),
      mutationArb,
      async (secret, body, timestamp, mutation) => {
        const changed = mutate(body, mutation);
        const v1 = await signV1(secret, body);
        assert.deepEqual(await verifyV1(secret, body, v1), { ok: true });
        assert.deepEqual(await verifyV1(secret, changed, v1), {
          ok: false,
          reason: "bad_signature",
        });
        const v2 = await signV2(secret, body, timestamp);
        assert.deepEqual(await verifyV2(secret, body, v2, timestamp), { ok: true });
        assert.deepEqual(await verifyV2(secret, changed, v2, timestamp), {
          ok: false,
          reason: "bad_signature",
        });
      },
    ),
  );
});

Deno.test("signatures: property: V3 verifies for random events and fails on any one-byte change", async () => {
  await fc.assert(
    fc.asyncProperty(
      secretArb,
      fc.string({ maxLength: 200, unit: "binary" }),
      fc.stringMatching(/^[A-Za-z0-9_:.-]{1,40}$/),
      fc.uuid(),
      mutationArb,
      async (secret, note, eventId, attemptId, mutation) => {
        const body = new TextEncoder().encode(
          JSON.stringify({ api_version: "v1", event_id: eventId, note }),
        );
        const headers = await v3Headers({
          secret,
          keyId: "k",
          eventId,
          attemptId,
          deliveryTimestamp: TIMESTAMP,
          rawBody: body,
        });
        const check = (rawBody: Uint8Array) =>
          verifyV3({ secrets: { k: secret }, rawBody, headers, nowSeconds: TIMESTAMP });
        assert.deepEqual(await check(body), { ok: true });
        assert.deepEqual(await check(mutate(body, mutation)), {
          ok: false,
          reason: "bad_signature",
        });
      },
    ),
  );
});

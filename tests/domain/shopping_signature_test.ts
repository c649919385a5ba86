import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { shoppingHeaders } from "../../src/domain/delivery_headers.ts";
import { verifyV2 } from "../../src/domain/signature_verification.ts";

const SECRET = "shf_test_vector_secret";
const TIMESTAMP = 1795300000;
const BODY =
  '{"api_version":"v1","event_id":"evt_01JTESTVECTOR","event_type":"shipment.delivered",' +
  '"note":"Gaborone \u2013 na\u00efve caf\u00e9 \u2713"}';
/** The published shopping V2 vector (tests/domain/signatures_test.ts). */
const V2_VECTOR =
  "t=1795300000,sha256=33114b0a6a203b87c85ef7fd81ab1a8c3959835c596e5df63ca33b91be69d867";

Deno.test("signatures: shoppingHeaders is exactly shopping 6's headers, signed V2 only", async () => {
  const headers = await shoppingHeaders({
    secret: SECRET,
    event: "shopping.store_collected",
    deliveryId: "evt_01JTESTVECTOR",
    timestamp: TIMESTAMP,
    rawBody: BODY,
  });
  assert.deepEqual(headers, {
    "Content-Type": "application/json",
    "X-Service-Timestamp": "1795300000",
    "X-Service-Delivery": "evt_01JTESTVECTOR",
    "X-Service-Event": "shopping.store_collected",
    "X-Service-Signature-V2": V2_VECTOR,
  });
  // The HMAC of `<ts>.<raw body bytes>` keyed with the whole secret, computed independently.
  const independent = createHmac("sha256", new TextEncoder().encode(SECRET))
    .update(`${TIMESTAMP}.`).update(new TextEncoder().encode(BODY)).digest("hex");
  assert.equal(headers["X-Service-Signature-V2"], `t=${TIMESTAMP},sha256=${independent}`);
  assert.deepEqual(await verifyV2(SECRET, BODY, headers["X-Service-Signature-V2"], TIMESTAMP), {
    ok: true,
  });
  assert.deepEqual(
    await verifyV2("shf_other", BODY, headers["X-Service-Signature-V2"], TIMESTAMP),
    { ok: false, reason: "bad_signature" },
  );
});

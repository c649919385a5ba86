/**
 * GET /business/trips/{id}/proof/{file} (Business API 3.1 "delivery done", 5.5 deliveries "proof
 * of delivery"): the proof photo and signature a driver uploaded, byte for byte, to the business
 * and its deliveries partner key; another business, and a trip not delivered, 404.
 */
import assert from "node:assert/strict";
import { acceptedTrip, act, pngFile } from "../../helpers/driver_trips.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "./trips_fixtures.ts";

function download(t: TestEnv, key: string, trip: string | number, file: string) {
  return t.app.request(`/api/business/trips/${trip}/proof/${file}`, {
    headers: { "X-Business-API-Key": key },
  });
}

async function partnerKey(t: TestEnv, business: string, scopes: string[]) {
  const r = await t.call("POST", `/operator/businesses/${business}/partner-keys`, {
    operator: true,
    body: { partner: "Shop connector", scopes },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.key as string;
}

Deno.test("trip proof: the delivered trip's photo and signature, byte for byte, to its business only", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const b = trip.business;
    const before = await download(t, b.api_key, trip.reference, "proof_photo");
    assert.equal(before.status, 404, "nothing recorded before the delivery");
    assert.equal((await before.json()).code, "not_found");
    await act(t, trip, "arrive_pickup");
    await act(t, trip, "pick_up", { force_reason: "no label" });
    const photo = pngFile("door.png");
    const signature = pngFile("signed.png");
    const form = new FormData();
    form.set("idempotency_key", "deliver-1");
    form.set("proof_photo", photo);
    form.set("signature", signature);
    const done = await t.call("POST", `/driver/trips/${trip.reference}/deliver`, {
      bearer: trip.driver.token,
      body: form,
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));

    const id = (await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key }))
      .body.data.id as number;
    for (const [file, sent] of [["proof_photo", photo], ["signature", signature]] as const) {
      const r = await download(t, b.api_key, id, file);
      assert.equal(r.status, 200, file);
      assert.equal(r.headers.get("Content-Type"), "image/png");
      assert.deepEqual(new Uint8Array(await r.arrayBuffer()), await sent.bytes());
    }
    const partner = await partnerKey(t, b.id, ["deliveries"]);
    assert.equal((await download(t, partner, trip.reference, "signature")).status, 200);
    const rewards = await partnerKey(t, b.id, ["rewards"]);
    const denied = await download(t, rewards, trip.reference, "signature");
    assert.equal(denied.status, 403);
    assert.equal((await denied.json()).code, "scope_denied");

    const other = await fundedBusiness(t);
    const hidden = await download(t, other.api_key, trip.reference, "proof_photo");
    assert.equal(hidden.status, 404, "another business's trip");
    const byId = await download(t, other.api_key, id, "proof_photo");
    assert.equal(byId.status, 404);
    const unknown = await download(t, b.api_key, trip.reference, "invoice");
    assert.equal(unknown.status, 422, "only proof_photo and signature");
  }));

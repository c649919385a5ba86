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
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { EVIDENCE_FILE_BYTES_MAX, readEvidence } from "../../../src/courier/flows/evidence.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";

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
    // The contract names the types and the hash header the answer has (before, only
    // application/octet-stream, and the hash in words alone).
    const doc = (await t.call("GET", "/api-docs/openapi.json")).body;
    const documented = doc.paths["/business/trips/{id}/proof/{file}"].get.responses["200"];
    assert.deepEqual(Object.keys(documented.content), ["image/jpeg", "image/png", "image/webp"]);
    assert.ok(documented.headers["X-Proof-SHA256"]);
    for (const [file, sent] of [["proof_photo", photo], ["signature", signature]] as const) {
      const r = await download(t, b.api_key, id, file);
      assert.equal(r.status, 200, file);
      assert.equal(r.headers.get("Content-Type"), "image/png");
      assert.ok(documented.content[r.headers.get("Content-Type")!]);
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

/** A PNG of its own bytes (`seed`), so each upload is a file of its own. */
function png(seed: number, size = 16): File {
  const bytes = new Uint8Array(size).fill(seed);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new File([bytes], `p${seed}.png`, { type: "image/png" });
}

async function held(t: TestEnv, business: string, file: File): Promise<boolean> {
  const sha256 = sha256Hex(await file.bytes());
  return await readEvidence(t.env.runtime, business, sha256) !== null;
}

Deno.test("trip proof: a deliver the trip refuses keeps no file; the accepted retry keeps both", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t, { delivery_code: "4411", cod_amount: 150 });
    const b = trip.business;
    const deliver = (
      fields: Record<string, string>,
      photo: File,
      signature: File,
      bearer?: string,
    ) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ delivery_code: "4411", cod_collected_amount: "150" })) {
        form.set(k, v);
      }
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      form.set("proof_photo", photo);
      form.set("signature", signature);
      return t.call("POST", `/driver/trips/${trip.reference}/deliver`, {
        bearer: bearer ?? trip.driver.token,
        body: form,
      });
    };
    // spec: business 3.1: refused before the pick-up (wrong status): nothing is kept.
    const early = await deliver({ idempotency_key: "d-early" }, png(1), png(2));
    assert.equal(early.body.code, "invalid_transition", JSON.stringify(early.body));
    await act(t, trip, "arrive_pickup");
    await act(t, trip, "pick_up", { force_reason: "no label" });
    const stranger = await createPoolDriver(t);
    const cases: [Record<string, string>, File, File, string, string?][] = [
      [
        { idempotency_key: "d-code", delivery_code: "9999" },
        png(3),
        png(4),
        "delivery_code_mismatch",
      ],
      [
        { idempotency_key: "d-cod", cod_collected_amount: "140" },
        png(5),
        png(6),
        "cod_amount_mismatch",
      ],
      [
        { idempotency_key: "d-cod2", cod_collected_amount: "1.234" },
        png(7),
        png(8),
        "validation_failed",
      ],
      [{ idempotency_key: "d-sig" }, png(9), new File(["hello"], "s.png"), "validation_failed"],
      [
        { idempotency_key: "d-big" },
        png(10),
        png(11, EVIDENCE_FILE_BYTES_MAX + 1),
        "evidence_file_too_large",
      ],
      [{ idempotency_key: "d-who" }, png(12), png(13), "not_found", stranger.token],
    ];
    const refusedFiles = [png(1), png(2)];
    for (const [fields, photo, signature, code, bearer] of cases) {
      const r = await deliver(fields, photo, signature, bearer);
      assert.equal(r.body.code, code, `${fields.idempotency_key}: ${JSON.stringify(r.body)}`);
      refusedFiles.push(photo, signature);
    }
    for (const f of refusedFiles) assert.equal(await held(t, b.id, f), false, f.name);

    const done = await deliver({ idempotency_key: "d-ok" }, png(20), png(21));
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data.status, "completed");
    assert.equal(await held(t, b.id, png(20)), true);
    assert.equal(await held(t, b.id, png(21)), true);
    const photo = await download(t, b.api_key, trip.reference, "proof_photo");
    assert.deepEqual(new Uint8Array(await photo.arrayBuffer()), await png(20).bytes());
    // The key again with other files is no replay: refused, keeping nothing new.
    const reused = await deliver({ idempotency_key: "d-ok" }, png(22), png(23));
    assert.equal(reused.body.code, "reference_conflict", JSON.stringify(reused.body));
    assert.equal(await held(t, b.id, png(22)), false);
    const replay = await deliver({ idempotency_key: "d-ok" }, png(20), png(21));
    assert.deepEqual(replay.body.data, done.body.data);
  }));

/**
 * Resolving an alert with a multipart form (courier 4.4: `resolution` and an `evidence_file`
 * upload): its texts are held to what a JSON body is held to.
 */
import assert from "node:assert/strict";
import { raiseAlert } from "../../../src/courier/flows/alerts.ts";
import { readEvidence } from "../../../src/courier/flows/evidence.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { courierWithScopes } from "../../helpers/courier.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

const PHOTO = new TextEncoder().encode("a photo of the parcel at the door");

Deno.test("alerts: a multipart resolution with text Postgres cannot keep is refused 422 naming it, no file kept, the alert open", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const alert = await raiseAlert(t.env.runtime, b.id, {
      kind: "no_scan",
      condition_key: `WB${crypto.randomUUID().slice(0, 8)}`,
      owner: "courier",
      subject: { type: "shipment", id: "WB1" },
      waybill: "WB1",
      message: "no physical scan for 26 hours: WB1",
    });
    const path = `/business/courier/alerts/${alert.id}`;
    const form = new FormData();
    form.append("resolution", "found\u0000it");
    // A form's text is sent as UTF-8: an unpaired surrogate arrives replaced; NUL arrives.
    form.append("evidence", "scan\u00007");
    form.append("evidence_file", new File([PHOTO], "pod.jpg", { type: "image/jpeg" }));
    const r = await t.call("POST", `${path}/resolve`, { key: b.api_key, body: form });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [
      "resolution",
      "evidence",
    ]);
    assert.equal(await readEvidence(t.env.runtime, b.id, sha256Hex(PHOTO)), null);
    const read = await t.call("GET", path, { key: b.api_key });
    assert.equal(read.body.data.status, "open");
  }));

import assert from "node:assert/strict";
import { evidenceFileActor, evidenceFileId } from "../../../actors/courier/evidence_file.ts";
import { raiseAlert, type RaiseAlertInput } from "../../../src/courier/flows/alerts.ts";
import { EVIDENCE_FILE_BYTES_MAX } from "../../../src/courier/flows/evidence.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { ALERT_DETAIL_BYTES_MAX } from "../../../actors/courier/alert.ts";
import { TRIP_ENDED_GRACE_MS } from "../../../actors/courier/network_run/mod.ts";
import { advance } from "../../helpers/receiver.ts";
import {
  bookWaybill,
  courierWithScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import {
  type Answer,
  type CreatedBusiness,
  type TestEnv,
  withTestEnv,
} from "../../helpers/test_env.ts";

const MINUTE = 60_000;

function input(overrides: Partial<RaiseAlertInput> = {}): RaiseAlertInput {
  return {
    kind: "no_scan",
    condition_key: `WB${crypto.randomUUID().slice(0, 8)}`,
    owner: "courier",
    subject: { type: "shipment", id: "WB1" },
    waybill: "WB1",
    message: "no physical scan for 26 hours: WB1",
    detail: { hours: 26 },
    ...overrides,
  };
}

/** Raises an alert for the courier and lets a minute pass, so raise times differ. */
async function raise(t: TestEnv, b: CreatedBusiness, overrides: Partial<RaiseAlertInput> = {}) {
  const a = await raiseAlert(t.env.runtime, b.id, input(overrides));
  t.clock.advanceBy(MINUTE);
  return a;
}

/** POSTs a multipart form. */
function postForm(t: TestEnv, path: string, key: string, form: FormData): Promise<Answer> {
  return t.call("POST", path, { key, body: form });
}

async function list(t: TestEnv, key: string, query = ""): Promise<Answer> {
  const r = await t.call("GET", `/business/courier/alerts${query}`, { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r;
}

const ids = (r: Answer): string[] => r.body.data.map((a: { id: string }) => a.id);

Deno.test("alerts: the list filters by status, kind and owner, newest first, in bounded pages", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const noScan = await raise(t, b);
    const customs = await raise(t, b, {
      kind: "customs_wait_exceeded",
      owner: "customs",
      condition_key: "WB2:2026-11-02",
      subject: { type: "shipment", id: "WB2" },
      waybill: "WB2",
      message: "customs wait over 16 working hours: WB2",
    });
    const billing = await raise(t, b, {
      kind: "billing_export_failed",
      owner: "billing",
      condition_key: "evt_1",
      subject: { type: "billing_event", id: "evt_1" },
      waybill: null,
      message: "billing event could not be sent: evt_1",
    });
    const ack = await t.call("POST", `/business/courier/alerts/${customs.id}/acknowledge`, {
      key: b.api_key,
    });
    assert.equal(ack.status, 200, JSON.stringify(ack.body));
    await t.settle();

    const all = await list(t, b.api_key);
    assert.deepEqual(ids(all), [billing.id, customs.id, noScan.id]);
    assert.equal(all.body.meta.next_cursor, null);
    const first = all.body.data[2];
    assert.equal(first.kind, "no_scan");
    assert.equal(first.status, "open");
    assert.equal(first.raised_at, "2026-11-02T08:00:00.000Z");
    assert.deepEqual(first.subject, { type: "shipment", id: "WB1" });
    assert.equal("history" in first, false, "the list carries summaries");

    assert.deepEqual(ids(await list(t, b.api_key, "?status=acknowledged")), [customs.id]);
    assert.deepEqual(ids(await list(t, b.api_key, "?status=open")), [billing.id, noScan.id]);
    assert.deepEqual(ids(await list(t, b.api_key, "?status=resolved")), []);
    assert.deepEqual(ids(await list(t, b.api_key, "?kind=no_scan")), [noScan.id]);
    assert.deepEqual(ids(await list(t, b.api_key, "?owner=billing")), [billing.id]);
    assert.deepEqual(ids(await list(t, b.api_key, "?status=open&owner=customs")), []);

    const page1 = await list(t, b.api_key, "?limit=2");
    assert.deepEqual(ids(page1), [billing.id, customs.id]);
    const cursor = page1.body.meta.next_cursor;
    assert.equal(typeof cursor, "string");
    const page2 = await list(t, b.api_key, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
    assert.deepEqual(ids(page2), [noScan.id]);
    assert.equal(page2.body.meta.next_cursor, null);

    for (const bad of ["?status=closed", "?kind=meteor", "?limit=501", "?limit=0", "?cursor=x"]) {
      const r = await t.call("GET", `/business/courier/alerts${bad}`, { key: b.api_key });
      assert.equal(r.status, 422, bad);
      assert.equal(r.body.code, "validation_failed", bad);
    }
  }));

Deno.test("alerts: an owner the service never uses is refused 422 naming the filter, not answered with an empty list", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    await raise(t, b, { owner: "billing", kind: "billing_export_failed", waybill: null });
    await t.settle();
    for (const owner of ["biling", "Billing", "staff:stf_1"]) {
      const r = await t.call("GET", `/business/courier/alerts?owner=${owner}`, { key: b.api_key });
      assert.equal(r.status, 422, owner);
      assert.equal(r.body.code, "validation_failed", owner);
      assert.match(r.body.message, /owner/, owner);
    }
    for (const owner of ["courier", "customs", "recipient", "billing", "operations"]) {
      const r = await t.call("GET", `/business/courier/alerts?owner=${owner}`, { key: b.api_key });
      assert.equal(r.status, 200, owner);
      assert.equal(r.body.data.length, owner === "billing" ? 1 : 0, owner);
    }
  }));

Deno.test("alerts: raising the same condition twice gives one alert", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const once = await raise(t, b, { condition_key: "WB9" });
    const twice = await raise(t, b, { condition_key: "WB9", message: "another text" });
    assert.equal(twice.id, once.id);
    assert.equal(twice.message, once.message);
    await t.settle();
    assert.deepEqual(ids(await list(t, b.api_key)), [once.id]);
  }));

Deno.test("alerts: assign, acknowledge and resolve record who acted; resolve needs both texts", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const alert = await raise(t, b);
    const path = `/business/courier/alerts/${alert.id}`;
    const key = b.api_key;

    const assigned = await t.call("POST", `${path}/assign`, { key, body: { to: "Neo (depot)" } });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    assert.equal(assigned.body.data.assigned_to, "Neo (depot)");
    assert.deepEqual(assigned.body.data.history.at(-1), {
      action: "assigned",
      by: "api_key",
      at: "2026-11-02T08:01:00.000Z",
      to: "Neo (depot)",
    });
    const noAssignee = await t.call("POST", `${path}/assign`, { key, body: { to: " " } });
    assert.equal(noAssignee.status, 422);

    const ack = await t.call("POST", `${path}/acknowledge`, { key });
    assert.equal(ack.status, 200);
    assert.equal(ack.body.data.status, "acknowledged");
    assert.equal(ack.body.data.acknowledged_by, "api_key");
    t.clock.advanceBy(MINUTE);
    const ackAgain = await t.call("POST", `${path}/acknowledge`, { key });
    assert.equal(ackAgain.status, 200);
    assert.equal(ackAgain.body.data.acknowledged_at, ack.body.data.acknowledged_at);
    assert.equal(ackAgain.body.data.actions_total, 3, "raised, assigned, acknowledged");

    const before = (await t.call("GET", path, { key })).body.data;
    const noEvidence = await t.call("POST", `${path}/resolve`, {
      key,
      body: { resolution: "scanned at depot" },
    });
    assert.equal(noEvidence.status, 422);
    assert.equal(noEvidence.body.code, "validation_failed");
    assert.equal(noEvidence.body.rule, "evidence_required");
    const noResolution = await t.call("POST", `${path}/resolve`, {
      key,
      body: { evidence: "scan log 77" },
    });
    assert.equal(noResolution.status, 422);
    assert.equal(noResolution.body.code, "validation_failed");
    assert.equal(noResolution.body.rule, "resolution_required");
    const empty = await t.call("POST", `${path}/resolve`, { key });
    assert.equal(empty.status, 422);
    assert.deepEqual((await t.call("GET", path, { key })).body.data, before, "nothing changed");

    const resolved = await t.call("POST", `${path}/resolve`, {
      key,
      body: { resolution: "scanned at depot", evidence: "scan log 77" },
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.equal(resolved.body.data.status, "resolved");
    assert.equal(resolved.body.data.resolution, "scanned at depot");
    assert.equal(resolved.body.data.evidence, "scan log 77");
    assert.equal(resolved.body.data.resolved_by, "api_key");
    assert.deepEqual(resolved.body.data.history.map((h: { action: string }) => h.action), [
      "raised",
      "assigned",
      "acknowledged",
      "resolved",
    ]);

    const twice = await t.call("POST", `${path}/resolve`, {
      key,
      body: { resolution: "again", evidence: "again" },
    });
    assert.equal(twice.status, 422);
    assert.equal(twice.body.code, "alert_already_resolved");
    const lateAssign = await t.call("POST", `${path}/assign`, { key, body: { to: "Kabo" } });
    assert.equal(lateAssign.body.code, "alert_already_resolved");

    await t.settle();
    assert.deepEqual(ids(await list(t, key, "?status=resolved")), [alert.id]);
    const missing = await t.call("GET", "/business/courier/alerts/alr_000000000000000000000000", {
      key,
    });
    assert.equal(missing.status, 404);
  }));

Deno.test("alerts: a resolution with text Postgres cannot keep is refused 422 naming it, and the alert stays open", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const alert = await raise(t, b);
    const path = `/business/courier/alerts/${alert.id}`;
    const r = await t.call("POST", `${path}/resolve`, {
      key: b.api_key,
      body: { resolution: "found\u0000it", evidence: "scan \ud800" },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [
      "resolution",
      "evidence",
    ]);
    const read = await t.call("GET", path, { key: b.api_key });
    assert.equal(read.body.data.status, "open");
  }));

Deno.test("alerts: resolve with an evidence_file upload stores the file content-addressed", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const alert = await raise(t, b);
    const path = `/business/courier/alerts/${alert.id}`;
    // Over two chunks, so the file is stored and read back in pieces.
    const bytes = new Uint8Array(70_001);
    for (let i = 0; i < bytes.length; i += 65_536) {
      crypto.getRandomValues(bytes.subarray(i, Math.min(i + 65_536, bytes.length)));
    }
    const sha256 = await sha256Hex(bytes);

    const noResolution = new FormData();
    noResolution.append("evidence_file", new File([bytes], "pod.jpg", { type: "image/jpeg" }));
    const refused = await postForm(t, `${path}/resolve`, b.api_key, noResolution);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, "validation_failed");
    assert.equal(refused.body.rule, "resolution_required");
    const stored = await t.env.runtime.ask(
      evidenceFileActor,
      b.id,
      evidenceFileId(b.id, sha256),
      { kind: "get" },
    );
    assert.equal(stored.ok, false, "a refused resolution stores no file");

    const noFile = new FormData();
    noFile.append("resolution", "delivered; photo taken");
    const noEvidence = await postForm(t, `${path}/resolve`, b.api_key, noFile);
    assert.equal(noEvidence.status, 422);
    assert.equal(noEvidence.body.code, "validation_failed");
    assert.equal(noEvidence.body.rule, "evidence_required");

    const form = new FormData();
    form.append("resolution", "delivered; photo taken");
    form.append("evidence_file", new File([bytes], "pod.jpg", { type: "image/jpeg" }));
    const r = await postForm(t, `${path}/resolve`, b.api_key, form);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.status, "resolved");
    assert.equal(r.body.data.evidence, `file:sha256:${sha256}`);
    assert.deepEqual(r.body.data.evidence_file, {
      sha256,
      name: "pod.jpg",
      size: bytes.length,
      content_type: "image/jpeg",
    });

    const file = await t.app.request(`/api${path}/evidence`, {
      headers: { "X-Business-API-Key": b.api_key },
    });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/jpeg");
    assert.equal(file.headers.get("X-Evidence-SHA256"), sha256);
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);

    // The same bytes for another alert are stored once and answer the same reference.
    const other = await raise(t, b);
    const again = new FormData();
    again.append("resolution", "same photo");
    again.append("evidence_file", new File([bytes], "copy.jpg", { type: "image/jpeg" }));
    const r2 = await postForm(t, `/business/courier/alerts/${other.id}/resolve`, b.api_key, again);
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.equal(r2.body.data.evidence_file.sha256, sha256);
    assert.equal(r2.body.data.evidence_file.name, "copy.jpg");
  }));

Deno.test("alerts: an evidence file over 5 MB is refused and the alert stays open", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, []);
    const alert = await raise(t, b);
    const form = new FormData();
    form.append("resolution", "delivered");
    const bytes = new Uint8Array(EVIDENCE_FILE_BYTES_MAX + 1);
    form.append("evidence_file", new File([bytes], "scan.pdf", { type: "application/pdf" }));
    const r = await postForm(t, `/business/courier/alerts/${alert.id}/resolve`, b.api_key, form);
    assert.equal(r.status, 413);
    assert.equal(r.body.code, "evidence_file_too_large");
    const after = await t.call("GET", `/business/courier/alerts/${alert.id}`, { key: b.api_key });
    assert.equal(after.body.data.status, "open");
  }));

Deno.test("alerts: another courier's alert does not exist for the caller", () =>
  withTestEnv(async (t) => {
    const a = await courierWithScopes(t, []);
    const b = await courierWithScopes(t, []);
    const alert = await raise(t, a);
    const path = `/business/courier/alerts/${alert.id}`;
    const key = b.api_key;

    assert.equal((await t.call("GET", path, { key })).status, 404);
    assert.equal((await t.call("POST", `${path}/assign`, { key, body: { to: "x" } })).status, 404);
    assert.equal((await t.call("POST", `${path}/acknowledge`, { key })).status, 404);
    const resolve = await t.call("POST", `${path}/resolve`, {
      key,
      body: { resolution: "mine now", evidence: "trust me" },
    });
    assert.equal(resolve.status, 404);
    assert.equal(resolve.body.code, "not_found");
    const form = new FormData();
    form.append("resolution", "mine now");
    form.append("evidence_file", new File(["x"], "x.txt", { type: "text/plain" }));
    assert.equal((await postForm(t, `${path}/resolve`, key, form)).status, 404);
    assert.equal((await t.call("GET", `${path}/evidence`, { key })).status, 404);

    // A raise of the same condition from another tenant cannot take the alert over either.
    await assert.rejects(
      () =>
        raiseAlert(t.env.runtime, b.id, input({ condition_key: "taken" })).then(() =>
          raiseAlert(t.env.runtime, a.id, input({ condition_key: "taken" }))
        ),
      /not_found|not raised/,
    );

    await t.settle();
    const theirs = await list(t, key);
    assert.equal(ids(theirs).includes(alert.id), false);
    const mine = (await t.call("GET", path, { key: a.api_key })).body.data;
    assert.equal(mine.status, "open", "untouched by the other courier");
    assert.equal(mine.actions_total, 1);
  }));

Deno.test("alerts: a business without the courier platform reads its own alerts (business 7)", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("GET", "/business/courier/alerts", { key: b.api_key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, []);
  }));

Deno.test("alerts: documents_missing is raised when customs' reason is long in escaped characters, its detail cut, never refused", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client);
    const key = courier.business.api_key;
    // A reason pasted with control characters: 500 characters, each six in JSON.
    const reason = "x" + "\u0001".repeat(498) + "x";
    const scanned = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
      key,
      body: { event: "documents_requested", facility_id: "TLOKWENG", reason },
    });
    assert.equal(scanned.status, 201, JSON.stringify(scanned.body));
    await t.settle();
    // spec: courier 2.9: each condition is raised once: a long detail is no reason to raise none.
    const r = await list(t, key, "?kind=documents_missing");
    assert.deepEqual(r.body.data.map((a: { waybill: string }) => a.waybill), [waybill]);
    const [alert] = r.body.data as { detail: unknown }[];
    assert.ok(JSON.stringify(alert!.detail).length <= ALERT_DETAIL_BYTES_MAX);
  }));

Deno.test("alerts: leg_unassigned and leg_trip_ended raised by two requests at once are one alert each", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const key = courier.business.api_key;
    const post = async (path: string, body: unknown, status = 200) => {
      const r = await t.call("POST", path, { key, body });
      assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
      return r.body.data;
    };
    const run = (await post("/business/network-runs", {
      facility_id: "GBE-HUB",
      kind: "linehaul",
      countries: ["BW"],
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
      vehicle: "B 123 ABC",
    }, 201)).id as string;
    const waybills = [await bookWaybill(t, client), await bookWaybill(t, client)];
    // spec: courier 2.9: each condition is raised once, however many requests bring it at once:
    // two stops added to a run with no driver, then two arrivals of the run, left on board for
    // the grace after it (leg_trip_ended).
    await Promise.all(
      waybills.map((waybill) =>
        post(`/business/network-runs/${run}/stops`, { kind: "deliver", waybill }, 201)
      ),
    );
    await post(`/business/network-runs/${run}/depart`, {});
    await Promise.all([1, 2].map(() => post(`/business/network-runs/${run}/arrive`, {})));
    await advance(t, TRIP_ENDED_GRACE_MS / 1000);
    await t.settle();
    const unassigned = await list(t, key, "?kind=leg_unassigned");
    assert.equal(unassigned.body.data.length, 1);
    const ended = await list(t, key, "?kind=leg_trip_ended");
    assert.deepEqual(
      ended.body.data.map((a: { waybill: string }) => a.waybill).sort(),
      [...waybills].sort(),
    );
  }));

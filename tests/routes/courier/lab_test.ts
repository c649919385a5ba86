/**
 * Laboratory samples (courier 2.10, 3.4, 4.5, 7): temperature readings need every field and are
 * append-only, °F converts to °C exactly, and a late sample, an out-of-range reading and a broken
 * seal each block the handover until someone with runs:override records the laboratory's decision.
 */
import assert from "node:assert/strict";
import { celsiusTenths } from "../../../actors/courier/lab_sample/mod.ts";
import { labHandedOver, labHandoverAllowed } from "../../../src/courier/flows/lab.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { openApiDocument } from "../../helpers/openapi_ops.ts";
import { bookWaybill, courierWithScopes } from "../../helpers/courier.ts";
import { advance } from "../../helpers/receiver.ts";

import { approve, HOUR, lab, profile, READING, reading, ready, record } from "./lab_fixtures.ts";

Deno.test("lab: °F converts to tenths of °C with exact integer arithmetic, rounded once", () => {
  assert.equal(celsiusTenths(46.4, "F"), 80); // floats give 7.999999999999999
  assert.equal(celsiusTenths(35.6, "F"), 20);
  assert.equal(celsiusTenths(98.6, "F"), 370);
  assert.equal(celsiusTenths(-40, "F"), -400);
  assert.equal(celsiusTenths(46.5, "F"), 81); // 8.0555...
  assert.equal(celsiusTenths(32.09, "F"), 1); // 0.05 exactly: half away from zero
  assert.equal(celsiusTenths(31.91, "F"), -1);
  assert.equal(celsiusTenths(8.05, "C"), 81);
  assert.equal(celsiusTenths(-0.05, "C"), -1);
  assert.equal(celsiusTenths(1e-7, "C"), 0);
});

Deno.test("lab: a temperature reading needs value, unit, source, device and time; nothing stored", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill);
    for (const field of ["value", "unit", "source", "device", "time"]) {
      const body: Record<string, unknown> = { ...READING };
      delete body[field];
      const r = await lab(t, courier, waybill, "temperature", body);
      assert.equal(r.status, 422, `${field}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.rule, "temperature_fields_required");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [field]);
      assert.deepEqual(r.body.missing, [field]);
      assert.match(r.body.message, new RegExp(`missing ${field}$`));
    }
    const blank = await lab(t, courier, waybill, "temperature", { ...READING, source: " " });
    assert.equal(blank.status, 422);
    assert.deepEqual(blank.body.missing, ["source"]);
    const none = await lab(t, courier, waybill, "temperature", {});
    assert.deepEqual(none.body.missing, ["value", "unit", "source", "device", "time"]);
    const bad = await lab(t, courier, waybill, "temperature", { ...READING, unit: "K" });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    // A reading from the future is a wrong clock: it would count as in time (a logger may run a
    // few minutes ahead).
    const ahead = (ms: number) => new Date(t.clock.now() + ms).toISOString();
    const future = await lab(t, courier, waybill, "temperature", {
      ...READING,
      time: "2031-01-01T00:00:00Z",
    });
    assert.equal(future.status, 422, JSON.stringify(future.body));
    assert.match(future.body.message, /time: a reading cannot be taken in the future/);
    const later = await lab(t, courier, waybill, "temperature", {
      ...READING,
      time: ahead(16 * 60_000),
    });
    assert.equal(later.status, 422);
    const s = await record(t, courier, waybill);
    assert.equal(s.readings_total, 0);
    assert.deepEqual(s.readings, []);
  }));

Deno.test("lab: readings are append-only; a second one adds; °F is stored as sent and in °C", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill);
    const first = await reading(t, courier, waybill, { value: 46.4, unit: "F" });
    assert.equal(first.data.readings_total, 1);
    assert.deepEqual(first.data.readings[0], {
      seq: 1,
      value: 46.4,
      unit: "F",
      source: "logger",
      device: "TL-9",
      time: "2026-11-02T08:00:00.000Z",
      celsius: 8,
      in_range: true,
      recorded_at: "2026-11-02T08:00:00.000Z",
      by: "api_key",
    });
    assert.deepEqual(first.data.handover.reasons, []);
    // The same reading sent again (a retry) is kept once; a new one adds.
    await reading(t, courier, waybill, { value: 46.4, unit: "F" });
    const second = await reading(t, courier, waybill, {
      value: 35.6,
      unit: "F",
      time: "2026-11-02T08:10:00Z",
    });
    assert.equal(second.data.readings_total, 2);
    assert.deepEqual(second.data.readings.map((r: { celsius: number }) => r.celsius), [8, 2]);
    assert.equal(second.data.lowest_c, 2);
    assert.equal(second.data.highest_c, 8);
    // No route edits or deletes a reading.
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const r = await t.call(method, `/business/shipments/${waybill}/lab/temperature`, {
        key: courier.business.api_key,
        body: READING,
      });
      // No such route: the path takes only what reads or adds (405, Allow without edits).
      assert.equal(r.status, 405, method);
      assert.doesNotMatch(r.headers.get("Allow") ?? "", /PUT|PATCH|DELETE/, method);
    }
    const s = await record(t, courier, waybill);
    assert.equal(s.readings_total, 2);
    assert.equal(s.readings[0].value, 46.4);
    // The profile is fixed once readings exist; the same one again is a harmless retry.
    await profile(t, courier, waybill);
    const changed = await lab(t, courier, waybill, "profile", { sample_type: "urine" });
    assert.equal(changed.status, 409);
    assert.equal(changed.body.code, "lab_profile_locked");
  }));

Deno.test("lab: an out-of-range reading blocks the handover until runs:override records a decision", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill);
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), { ok: true });
    const hot = await reading(t, courier, waybill, { value: 8.1 });
    assert.equal(hot.data.readings[0].in_range, false);
    assert.deepEqual(hot.data.handover.reasons, ["temperature_out_of_range"]);
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), {
      ok: false,
      reasons: ["temperature_out_of_range"],
    });
    await reading(t, courier, waybill, { value: 1.9, time: "2026-11-02T08:05:00Z" });
    const s = await record(t, courier, waybill);
    assert.equal(s.blocks.length, 1);
    assert.equal(s.blocks[0].occurrences, 2);
    assert.equal(s.out_of_range_total, 2);

    // The key without runs:override is refused and nothing changes.
    const narrowed = await t.call("PATCH", `/operator/businesses/${tenant}`, {
      operator: true,
      body: { api_key_scopes: ["billing:view-own"] },
    });
    assert.equal(narrowed.status, 200);
    const denied = await approve(t, courier, waybill, "accept", 403);
    assert.equal(denied.code, "scope_denied");
    assert.match(denied.message, /runs:override/);
    assert.equal((await labHandoverAllowed(runtime, tenant, waybill)).ok, false);
    const other = await courierWithScopes(t, []);
    const refused = await t.call("POST", `/business/shipments/${waybill}/lab/approve`, {
      key: other.api_key,
      body: { decision: "accept", note: "fine" },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "scope_denied");
    await t.call("PATCH", `/operator/businesses/${tenant}`, {
      operator: true,
      body: { api_key_scopes: ["runs:override"] },
    });

    const noNote = await lab(t, courier, waybill, "approve", { decision: "accept", note: " " });
    assert.equal(noNote.status, 422);
    assert.equal(noNote.body.code, "validation_failed");
    assert.equal(noNote.body.rule, "note_required");
    const accepted = await approve(t, courier, waybill, "accept");
    assert.equal(accepted.data.handover.allowed, true);
    assert.deepEqual(accepted.data.decisions[0].settled, ["temperature_out_of_range"]);
    assert.equal(accepted.data.decisions[0].decided_by, "Dr Mosweu");
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), { ok: true });
    const nothing = await approve(t, courier, waybill, "accept", 409);
    assert.equal(nothing.code, "nothing_to_approve");
    // A later exception blocks again.
    t.clock.advanceBy(3_600_000);
    await reading(t, courier, waybill, { value: 12, time: "2026-11-02T09:00:00Z" });
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), {
      ok: false,
      reasons: ["temperature_out_of_range"],
    });
  }));

Deno.test("lab: a reading is judged on its exact value: just over a bound is out of range", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill); // 2 to 8 °C
    // On the bounds exactly (46.4 °F is 8 °C): in range.
    const edge = await reading(t, courier, waybill, { value: 8 });
    assert.equal(edge.data.readings[0].in_range, true);
    const edgeF = await reading(t, courier, waybill, {
      value: 46.4,
      unit: "F",
      time: "2026-11-02T07:50:00Z",
    });
    assert.equal(edgeF.data.readings[1].in_range, true);
    assert.deepEqual(edgeF.data.handover.reasons, []);
    // 8.04 °C and 46.41 °F (8.005... °C) are above 8 °C, though both show as 8.0 °C.
    const over = await reading(t, courier, waybill, { value: 8.04, time: "2026-11-02T07:51:00Z" });
    assert.equal(over.data.readings[2].celsius, 8);
    assert.equal(over.data.readings[2].in_range, false);
    assert.deepEqual(over.data.handover.reasons, ["temperature_out_of_range"]);
    const overF = await reading(t, courier, waybill, {
      value: 46.41,
      unit: "F",
      time: "2026-11-02T07:52:00Z",
    });
    assert.equal(overF.data.readings[3].in_range, false);
    const under = await reading(t, courier, waybill, { value: 1.96, time: "2026-11-02T07:53:00Z" });
    assert.equal(under.data.readings[4].in_range, false);
    assert.equal(under.data.out_of_range_total, 3);
    assert.match(under.data.blocks[0].detail, /is 1\.96 °C, outside 2\.0 °C to 8\.0 °C/);
  }));

Deno.test("lab: a late sample blocks the handover until the laboratory accepts it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill, { deadline_at: "2026-11-02T09:00:00Z" });
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), { ok: true });
    await advance(t, 2 * HOUR);
    assert.deepEqual((await record(t, courier, waybill)).handover.reasons, ["late_sample"]);
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), {
      ok: false,
      reasons: ["late_sample"],
    });
    const s = await record(t, courier, waybill);
    assert.equal(s.blocks[0].reason, "late_sample");
    await approve(t, courier, waybill, "accept");
    // Lateness is settled once: later checks and readings do not reopen it.
    await reading(t, courier, waybill, { time: "2026-11-02T09:30:00Z" });
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), { ok: true });
  }));

Deno.test("lab: a reading taken after the deadline marks the sample late", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill, { deadline_at: "2026-11-02T07:00:00Z" });
    const r = await reading(t, courier, waybill, {});
    assert.deepEqual(r.data.handover.reasons, ["late_sample"]);
    assert.match(r.data.blocks[0].detail, /deadline 2026-11-02T07:00:00.000Z passed/);
  }));

Deno.test("lab: a sample handed over before its deadline is not marked late by what is recorded after", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill, { min_temp_c: null, max_temp_c: null });
    const call = async (path: string, body: unknown, status = 200) => {
      const r = await t.call("POST", path, { key: courier.business.api_key, body });
      assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
      return r.body.data;
    };
    const run = (await call("/business/network-runs", {
      facility_id: "GBE-HUB",
      kind: "linehaul",
      countries: ["BW"],
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
      vehicle: "B 123 ABC",
    }, 201)).id;
    const stop = (await call(`/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill,
    }, 201)).stops[0].id;
    await call(`/business/network-runs/${run}/depart`, {});
    await call(`/business/network-runs/${run}/stops/${stop}/deliver`, { lab_handover: true });
    // spec: courier 3.4: lateness is the sample's at its handover, which came in time; the
    // laboratory's own reading after the deadline says nothing about the courier.
    await advance(t, 8 * HOUR);
    const after = await reading(t, courier, waybill, { time: "2026-11-02T16:00:00Z" });
    assert.deepEqual(after.data.blocks, []);
    assert.deepEqual(after.data.handover.reasons, []);
    const kept = await record(t, courier, waybill);
    assert.deepEqual(kept.handover.reasons, []);
    assert.equal(kept.handed_over_at, "2026-11-02T08:00:00.000Z");
  }));

Deno.test("lab: once the deadline has passed, a new profile cannot move it and undo the lateness", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill, { deadline_at: "2026-11-02T09:00:00Z" });
    t.clock.advanceBy(2 * HOUR * 1000);
    // Nobody ticked or read since: the sample is late all the same (courier 3.4).
    assert.deepEqual((await record(t, courier, waybill)).handover.reasons, ["late_sample"]);
    const moved = await lab(t, courier, waybill, "profile", {
      sample_type: "blood",
      min_temp_c: 2,
      max_temp_c: 8,
      deadline_at: "2026-11-02T18:00:00Z",
      seal_id: "SEAL-001",
    });
    assert.equal(moved.status, 409, JSON.stringify(moved.body));
    assert.equal(moved.body.code, "lab_profile_locked");
    const s = await record(t, courier, waybill);
    assert.equal(s.deadline_at, "2026-11-02T09:00:00.000Z");
    assert.deepEqual(s.handover.reasons, ["late_sample"]);
    assert.deepEqual(await labHandoverAllowed(t.env.runtime, courier.business.id, waybill), {
      ok: false,
      reasons: ["late_sample"],
    });
    // The same profile again is still a harmless retry.
    await profile(t, courier, waybill, { deadline_at: "2026-11-02T09:00:00Z" });
  }));

Deno.test("lab: a broken seal blocks the handover; a rejection refuses it for good", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill);
    const intact = await lab(t, courier, waybill, "tick", { item: "seal", seal_id: "SEAL-001" });
    assert.equal(intact.status, 201, JSON.stringify(intact.body));
    assert.equal(intact.body.data.seal, "intact");
    const broken = await lab(t, courier, waybill, "tick", {
      item: "seal",
      ok: false,
      note: "tape cut",
    });
    assert.equal(broken.body.data.seal, "broken");
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), {
      ok: false,
      reasons: ["seal_broken"],
    });
    const rejected = await approve(t, courier, waybill, "reject");
    assert.equal(rejected.data.rejected, true);
    assert.deepEqual(await labHandoverAllowed(runtime, tenant, waybill), {
      ok: false,
      reasons: ["rejected_by_laboratory"],
    });
    const again = await approve(t, courier, waybill, "accept", 409);
    assert.equal(again.code, "lab_decision_final");

    // Another seal than the profile's counts as broken too.
    const other = await bookWaybill(t, client);
    await profile(t, courier, other);
    const swapped = await lab(t, courier, other, "tick", { item: "seal", seal_id: "SEAL-999" });
    assert.equal(swapped.body.data.seal, "broken");
    assert.match(swapped.body.data.blocks[0].detail, /SEAL-999 is not the profile's seal/);
  }));

Deno.test("lab: the laboratory's reading taken after the handover is kept and blocks nothing; one taken before still does", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill);
    const tenant = courier.business.id;
    await labHandedOver(t.env.runtime, tenant, waybill, Date.parse("2026-11-02T08:00:00Z"));
    // spec: courier 3.4: the handover is blocked by what happened in the courier's care; the
    // laboratory warming the sample up after it took it is no exception of the courier's.
    const after = await reading(t, courier, waybill, { value: 20, time: "2026-11-02T08:00:01Z" });
    assert.deepEqual(after.data.blocks, []);
    assert.deepEqual(after.data.handover.reasons, []);
    assert.equal(after.data.readings.at(-1).in_range, false, "kept as measured");
    assert.equal(after.data.readings_total, 1);
    // A logger's reading from before the handover, sent late, still tells of the journey.
    const before = await reading(t, courier, waybill, { value: 20, time: "2026-11-02T07:59:00Z" });
    assert.deepEqual(before.data.handover.reasons, ["temperature_out_of_range"]);
  }));

Deno.test("lab: the temperature route documents its missing-field refusal as it answers it: 422 validation_failed, rule temperature_fields_required", () =>
  withTestEnv(async (t) => {
    const op = (await openApiDocument(t)).paths["/business/shipments/{reference}/lab/temperature"]
      .post;
    const refused = op.responses["422"];
    const codes: string[] = refused.content["application/json"].schema.allOf[1].properties.code
      .enum;
    // Every "422 <code>" the summary or description names is a code the route answers.
    const named = `${op.summary} ${op.description ?? ""}`.matchAll(/\b422 `?([a-z_]+)/g);
    for (const [, code] of named) assert.ok(codes.includes(code!), `422 ${code} is not answered`);
    assert.ok(!codes.includes("temperature_fields_required"));
    assert.match(
      refused.description,
      /`validation_failed`:[^\n]*rule `temperature_fields_required`/,
    );
  }));

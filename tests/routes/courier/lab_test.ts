/**
 * Laboratory samples (courier 2.10, 3.4, 4.5, 7): temperature readings need every field and are
 * append-only, °F converts to °C exactly, a late sample, an out-of-range reading and a broken seal
 * each block the handover until someone with runs:override records the laboratory's decision, the
 * cold-chain charge is booked once, and another courier or driver finds nothing.
 */
import assert from "node:assert/strict";
import {
  celsiusTenths,
  LAB_BY_CHARS_MAX,
  LAB_DECISION_NOTE_CHARS_MAX,
  LAB_NAME_CHARS_MAX,
  LAB_NOTE_CHARS_MAX,
  LAB_READINGS_IN_STATE_MAX,
  labSampleActor,
  type LabSampleCommand,
  type LabSampleState,
} from "../../../actors/courier/lab_sample/mod.ts";
import { CHECKLIST_ITEMS_MAX } from "../../../actors/courier/compliance_checklists.ts";
import { labHandedOver, labHandoverAllowed } from "../../../src/courier/flows/lab.ts";
import { STATE_BYTES_MAX } from "../../../src/limits.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  courierWithScopes,
  newClient,
  newCourier,
  newDriver,
  topUp,
} from "../../helpers/courier.ts";
import { advance } from "../../helpers/receiver.ts";

const HOUR = 3600;
const NOW = Date.parse("2026-11-02T08:00:00Z");

async function ready(t: TestEnv, card: Record<string, unknown> = {}): Promise<[Courier, Client]> {
  const courier = await newCourier(t, card);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

function lab(t: TestEnv, courier: Courier, waybill: string, action: string, body: unknown) {
  return t.call("POST", `/business/shipments/${waybill}/lab/${action}`, {
    key: courier.business.api_key,
    body,
  });
}

async function profile(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown> = {},
) {
  const r = await lab(t, courier, waybill, "profile", {
    sample_type: "blood",
    min_temp_c: 2,
    max_temp_c: 8,
    deadline_at: "2026-11-02T14:00:00Z",
    seal_id: "SEAL-001",
    ...body,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

const READING = {
  value: 5.5,
  unit: "C",
  source: "logger",
  device: "TL-9",
  time: "2026-11-02T08:00:00Z",
};

async function reading(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown>,
  status = 201,
) {
  const r = await lab(t, courier, waybill, "temperature", { ...READING, ...body });
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

async function record(t: TestEnv, courier: Courier, waybill: string) {
  const r = await t.call("GET", `/business/shipments/${waybill}/lab`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

async function approve(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  decision: "accept" | "reject",
  status = 200,
) {
  const r = await lab(t, courier, waybill, "approve", {
    decision,
    note: `laboratory says ${decision}`,
    by: "Dr Mosweu",
  });
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

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

Deno.test("lab: a cold-chain profile books one cold-chain charge from the frozen rate card", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { cold_chain_fee: 45 });
    const waybill = await bookWaybill(t, client);
    const first = await profile(t, courier, waybill);
    assert.equal(first.cold_chain, true);
    assert.equal(first.cold_chain_charge.reference, `COLD-${waybill}`);
    assert.equal(first.cold_chain_charge.kind, "cold_chain");
    assert.equal(first.cold_chain_charge.amount, 45);
    assert.equal(first.cold_chain_charge.source_event, `sample.cold_chain:${waybill}`);
    assert.equal(first.cold_chain_charge.evidence_path, `shipment:${waybill}/lab/profile`);
    await profile(t, courier, waybill); // a retry
    await profile(t, courier, waybill, { max_temp_c: 6 }); // replaced before any reading
    const plain = await bookWaybill(t, client);
    const notCold = await profile(t, courier, plain, { min_temp_c: null, max_temp_c: null });
    assert.equal(notCold.cold_chain, false);
    assert.equal(notCold.cold_chain_charge, null);
    await t.settle();
    const bill = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    assert.equal(bill.status, 200, JSON.stringify(bill.body));
    const cold = bill.body.data.statement.entries.filter((e: { kind: string }) =>
      e.kind === "cold_chain"
    );
    assert.equal(cold.length, 1);
    assert.equal(cold[0].reference, `COLD-${waybill}`);
    assert.equal(cold[0].shipment, waybill);
    const events = await t.call(
      "GET",
      "/business/courier/billing/events?event_type=sample.cold_chain",
      {
        key: courier.business.api_key,
      },
    );
    assert.equal(events.status, 200, JSON.stringify(events.body));
    assert.equal(events.body.data.length, 1);
  }));

Deno.test("lab: profiles use the courier's checklists; required items not ticked are listed", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const published = await t.call("POST", "/business/compliance-checklists", {
      key: courier.business.api_key,
      body: {
        code: "LAB-BLOOD",
        name: "Blood sample handover",
        supplier: "laboratory",
        items: [
          { key: "label_matches", label: "Label matches the request form" },
          { key: "form_signed", label: "Request form signed" },
          { key: "photo", label: "Photo of the box", required: false },
        ],
      },
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const missing = await lab(t, courier, waybill, "profile", {
      sample_type: "blood",
      checklist_code: "NOPE",
    });
    assert.equal(missing.status, 404);
    const s = await profile(t, courier, waybill, { checklist_code: "LAB-BLOOD" });
    assert.equal(s.checklist.version, 1);
    assert.deepEqual(s.handover.missing_items, ["label_matches", "form_signed"]);
    const unknown = await lab(t, courier, waybill, "tick", { item: "temperature_ok" });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, "unknown_checklist_item");
    const ticked = await lab(t, courier, waybill, "tick", { item: "label_matches" });
    assert.equal(ticked.status, 201);
    assert.deepEqual(ticked.body.data.handover.missing_items, ["form_signed"]);
    assert.equal(ticked.body.data.handover.allowed, true, "the checklist informs, it never blocks");
  }));

Deno.test("lab: checklist_version without checklist_code is refused 422 naming it; nothing changes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const r = await lab(t, courier, waybill, "profile", {
      sample_type: "blood",
      checklist_version: 2,
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.ok(
      r.body.errors.some((e: { path: string }) => e.path === "checklist_version"),
      JSON.stringify(r.body),
    );
    const none = await t.call("GET", `/business/shipments/${waybill}/lab`, {
      key: courier.business.api_key,
    });
    assert.equal(none.status, 404, "no profile was set");
  }));

Deno.test("lab: another courier's shipment, an unknown one and a driver not carrying it get 404", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await profile(t, courier, waybill);
    const [other] = await ready(t);
    for (const action of ["profile", "tick", "temperature", "approve"]) {
      const r = await lab(t, other, waybill, action, {
        sample_type: "blood",
        item: "seal",
        decision: "accept",
        note: "x",
        ...READING,
      });
      assert.equal(r.status, 404, `${action}: ${JSON.stringify(r.body)}`);
    }
    const read = await t.call("GET", `/business/shipments/${waybill}/lab`, {
      key: other.business.api_key,
    });
    assert.equal(read.status, 404);
    assert.deepEqual(await labHandoverAllowed(t.env.runtime, other.business.id, waybill), {
      ok: true,
    });
    const unknown = await t.call("GET", "/business/shipments/NOPE123/lab", {
      key: courier.business.api_key,
    });
    assert.equal(unknown.status, 404);
    // A booked shipment without a laboratory record: nothing to read, nothing blocks.
    const plain = await bookWaybill(t, client);
    const none = await t.call("GET", `/business/shipments/${plain}/lab`, {
      key: courier.business.api_key,
    });
    assert.equal(none.status, 404);
    assert.deepEqual(await labHandoverAllowed(t.env.runtime, courier.business.id, plain), {
      ok: true,
    });

    const d = await newDriver(t, courier.business.id);
    for (const action of ["tick", "temperature"]) {
      const r = await t.call("POST", `/driver/shipments/${waybill}/lab/${action}`, {
        bearer: d.token,
        body: { item: "seal", ...READING },
      });
      assert.equal(r.status, 404, `${action}: ${JSON.stringify(r.body)}`);
    }
    const anonymous = await t.call("POST", `/driver/shipments/${waybill}/lab/tick`, {
      body: { item: "seal" },
    });
    assert.equal(anonymous.status, 401);
    assert.equal((await record(t, courier, waybill)).ticks_total, 0);
  }));

Deno.test("lab sample: state with every text at its cap stays below the store's value limit", () => {
  const ctx = { now: NOW, newId: (p: string) => `${p}_1` };
  const long = (n: number, c = "x") => c.repeat(n);
  const by = long(LAB_BY_CHARS_MAX + 20);
  let state: LabSampleState = labSampleActor.initial;
  const run = (command: LabSampleCommand) => {
    const d = labSampleActor.decide(state, command, ctx);
    assert.ok(d.ok, JSON.stringify(d));
    for (const e of d.events) state = labSampleActor.evolve(state, e);
  };
  const items = Array.from({ length: CHECKLIST_ITEMS_MAX }, (_, i) => ({
    key: `${i}`.padEnd(LAB_NAME_CHARS_MAX, "k"),
    required: true,
  }));
  run({
    kind: "profile",
    waybill: "W1",
    courier_id: "biz_1",
    profile: {
      sample_type: long(LAB_NAME_CHARS_MAX),
      laboratory: long(120),
      min_temp_c: -999.9,
      max_temp_c: 999.9,
      deadline_at: NOW + 1,
      seal_id: long(LAB_NAME_CHARS_MAX),
      checklist: { code: long(40), version: 1, items },
    },
    by,
  });
  for (const item of [...items.map((i) => i.key), "seal"]) {
    run({ kind: "tick", item, ok: false, note: long(LAB_NOTE_CHARS_MAX), seal_id: long(40), by });
  }
  for (let i = 0; i < LAB_READINGS_IN_STATE_MAX + 20; i++) {
    run({
      kind: "temperature",
      reading: {
        value: -123.45678901234567 - i,
        unit: "F",
        source: long(LAB_NAME_CHARS_MAX, "s"),
        device: `${i}`.padEnd(LAB_NAME_CHARS_MAX, "d"),
        time: -8_640_000_000_000_000 + i, // the longest ISO text a past time has
      },
      by,
    });
  }
  for (let i = 0; i < 10; i++) {
    run({
      kind: "temperature",
      reading: { value: 1000, unit: "C", source: "s", device: `late${i}`, time: NOW + 10 + i },
      by,
    });
    run({
      kind: "approve",
      decision: "accept",
      note: long(LAB_DECISION_NOTE_CHARS_MAX + 50),
      decided_by: long(200),
      by,
    });
  }
  const s = state as NonNullable<LabSampleState>;
  assert.equal(s.readings.length, LAB_READINGS_IN_STATE_MAX);
  assert.equal(s.readings_total, LAB_READINGS_IN_STATE_MAX + 30);
  const bytes = JSON.stringify(s).length;
  assert.ok(bytes < STATE_BYTES_MAX - 4_000, `worst-case lab state: ${bytes} bytes`);
});

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

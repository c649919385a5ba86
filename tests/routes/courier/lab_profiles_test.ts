/**
 * Laboratory profiles (courier 2.10, 4.5, 2.6): the cold-chain charge booked once, the courier's
 * checklists, a sample's state within the store's bound, and another courier or driver finds
 * nothing.
 */
import assert from "node:assert/strict";
import {
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
import { labHandoverAllowed } from "../../../src/courier/flows/lab.ts";
import { STATE_BYTES_MAX } from "../../../src/limits.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newDriver } from "../../helpers/courier.ts";

import { lab, NOW, profile, READING, ready, record } from "./lab_fixtures.ts";

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

Deno.test("lab: a delivered or cancelled shipment takes no new profile and no cold-chain charge; one set before answers again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { cold_chain_fee: 45 });
    const scan = async (waybill: string, body: Record<string, unknown>) => {
      const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    };
    const cancelled = await bookWaybill(t, client);
    await scan(cancelled, { event: "cancelled", reason: "order withdrawn" });
    const delivered = await bookWaybill(t, client);
    await profile(t, courier, delivered, { min_temp_c: null, max_temp_c: null });
    await scan(delivered, { event: "delivered", received_by: "Neo" });
    // spec: courier 2.6 rule 1, 3.4: the courier keeps no cold chain for a shipment it no longer
    // holds (or never held): nothing is profiled, nothing charged.
    for (const waybill of [cancelled, delivered]) {
      const r = await lab(t, courier, waybill, "profile", { sample_type: "blood", min_temp_c: 2 });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.code, "shipment_closed");
    }
    assert.equal(
      (await lab(t, courier, cancelled, "profile", { sample_type: "blood" })).status,
      409,
    );
    const none = await t.call("GET", `/business/shipments/${cancelled}/lab`, {
      key: courier.business.api_key,
    });
    assert.equal(none.status, 404, JSON.stringify(none.body));
    assert.equal((await record(t, courier, delivered)).cold_chain, false);
    // The profile set before, sent again (a retry after lost signal), answers as it did.
    const again = await profile(t, courier, delivered, { min_temp_c: null, max_temp_c: null });
    assert.equal(again.cold_chain_charge, null);
    await t.settle();
    const bill = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    const cold = bill.body.data.statement.entries.filter((e: { kind: string }) =>
      e.kind === "cold_chain"
    );
    assert.deepEqual(cold, []);
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

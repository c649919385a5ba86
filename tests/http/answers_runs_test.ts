/**
 * The documented success schemas (RouteSpec.response) of network runs, laboratory samples,
 * customs crossings and compliance checklists against real answers, checked by
 * tests/helpers/documented.ts: operations' and the driver's side, each answer's common variants.
 */
import assert from "node:assert/strict";
import { OffsetPageMeta, z } from "../../src/http/route.ts";
import {
  DriverRunAnswer,
  DriverRunListedAnswer,
  DriverStopActionAnswer,
  NetworkRunAnswer,
  StopActionAnswer,
} from "../../routes/courier/answers/runs.ts";
import { LabProfiledAnswer } from "../../routes/courier/lab.ts";
import { LabSampleAnswer } from "../../routes/courier/answers/lab.ts";
import {
  CustomsMovedAnswer,
  CustomsSuppliedAnswer,
  DriverCustomsSuppliedAnswer,
  ShipmentCustomsAnswer,
} from "../../routes/courier/answers/customs.ts";
import {
  ChecklistAnswer,
  ChecklistListedAnswer,
  ChecklistPublishedAnswer,
} from "../../routes/courier/answers/checklists.ts";
import { openCrossing, recordCrossing, vehicleLeft } from "../../src/courier/flows/customs.ts";
import { type Answer, type TestEnv, withTestEnv } from "../helpers/test_env.ts";
import { documented, documentedData } from "../helpers/documented.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  DOMESTIC,
  grantScopes,
  newClient,
  newCourier,
  newDriver,
  topUp,
} from "../helpers/courier.ts";

const CROSS_BORDER = { ...DOMESTIC, to_country: "ZA", recipient_address: "12 Long St, Rustenburg" };

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t, {
    errand_fee: 20,
    failed_collection_fee: 15,
    waiting_fee: 10,
    cold_chain_fee: 45,
  });
  await grantScopes(t, courier, "customs:approve");
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "5000");
  return [courier, client];
}

/** A driver with a planned run delivering `waybill`: their token. */
async function driverCarrying(t: TestEnv, courier: Courier, waybill: string): Promise<string> {
  const key = courier.business.api_key;
  const driver = await newDriver(t, courier.business.id);
  const run = await t.call("POST", "/business/network-runs", {
    key,
    body: {
      facility_id: "GBE-HUB",
      kind: "linehaul",
      countries: ["BW", "ZA"],
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 2 },
      driver_id: driver.id,
    },
  });
  assert.equal(run.status, 201, JSON.stringify(run.body));
  const stop = await t.call("POST", `/business/network-runs/${run.body.data.id}/stops`, {
    key,
    body: { kind: "deliver", waybill },
  });
  assert.equal(stop.status, 201, JSON.stringify(stop.body));
  return driver.token;
}

function receipt(key: string): FormData {
  const f = new FormData();
  f.set("amount", "150.25");
  f.set("currency", "BWP");
  f.set("idempotency_key", key);
  f.set("note", "diesel");
  f.set("receipt", new File([new TextEncoder().encode("fuel receipt")], "fuel.txt"));
  return f;
}

Deno.test("answers: network runs, operations' side and the driver's, as documented", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const key = courier.business.api_key;
    const driver = await newDriver(t, courier.business.id);
    const bearer = driver.token;
    const x = await bookWaybill(t, client, CROSS_BORDER);
    const [y, z2, w] = [
      await bookWaybill(t, client),
      await bookWaybill(t, client),
      await bookWaybill(t, client),
    ];

    const run = NetworkRunAnswer;
    const runAction = NetworkRunAnswer;
    const stopAction = StopActionAnswer;
    const driverRun = DriverRunAnswer;
    const driverRunAction = DriverRunAnswer;
    const driverStopAction = DriverStopActionAnswer;

    const post = (path: string, body: unknown) => t.call("POST", path, { key, body });
    const asDriver = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { bearer, ...(body === undefined ? {} : { body }) });

    // No vehicle and no driver yet: both null.
    const created = documented(
      run,
      await post("/business/network-runs", {
        facility_id: "GBE-HUB",
        kind: "linehaul",
        countries: ["BW", "ZA"],
        capacity: { kg: 100, m3: 2, pieces: 10 },
      }),
      201,
      "create run",
    );
    assert.equal(created.vehicle, null);
    assert.equal(created.driver_id, null);
    const id = created.id as string;
    const at = `/business/network-runs/${id}`;
    documented(
      run,
      await post(`${at}/stops`, {
        kind: "checkpoint",
        country: "BW",
        to_country: "ZA",
        border_post: "Tlokweng",
      }),
      201,
      "add checkpoint",
    );
    const deliverX = { kind: "deliver", waybill: x, idempotency_key: "stop-x" };
    documented(run, await post(`${at}/stops`, deliverX), 201, "add deliver");
    const again = documented(run, await post(`${at}/stops`, deliverX), 201, "add deliver again");
    assert.equal(again.stops.length, 2, "the same stop");
    const withWork = documented(
      run,
      await post(`${at}/stops`, {
        kind: "collect",
        work_order: {
          sender: "Molapo Pharmacy",
          recipient: "Gaborone hub",
          courier_client_id: client.id,
          reserved: { kg: 5, m3: 0.1, pieces: 2 },
        },
      }),
      201,
      "add collect",
    );
    assert.equal(withWork.stops[2].work_order.reserved.kg, 5);
    documented(run, await post(`${at}/stops`, { kind: "deliver", waybill: z2 }), 201, "add");
    const planned = documented(
      run,
      await post(`${at}/stops`, { kind: "deliver", waybill: w }),
      201,
      "add deliver",
    );
    const [checkpoint, stopX, collect, stopZ, stopW] = planned.stops.map((s: { id: string }) =>
      s.id
    );
    const assigned = documented(
      run,
      await post(`${at}/driver`, { driver_id: driver.id }),
      200,
      "assign driver",
    );
    assert.equal(assigned.driver_id, driver.id);
    documented(run, await t.call("GET", at, { key }), 200, "get run");
    const spent = documented(run, await post(`${at}/expenses`, receipt("e1")), 201, "expense");
    assert.equal(spent.expenses[0].amount, 150.25);
    documented(run, await post(`${at}/expenses`, receipt("e1")), 201, "expense again");

    documented(runAction, await post(`${at}/depart`, { idempotency_key: "go" }), 200, "depart");
    documented(runAction, await post(`${at}/depart`, { idempotency_key: "go" }), 200, "again");
    const presented = documented(
      stopAction,
      await post(`${at}/stops/${checkpoint}/border`, { idempotency_key: "b1" }),
      200,
      "border",
    );
    assert.ok(presented.stop.crossings.length > 0);
    const replayed = documented(
      stopAction,
      await post(`${at}/stops/${checkpoint}/border`, { idempotency_key: "b1" }),
      200,
      "border again",
    );
    assert.deepEqual(replayed, presented);
    documented(
      stopAction,
      await post(`${at}/stops/${checkpoint}/cross`, { side: "exit" }),
      200,
      "exit",
    );
    const entered = documented(
      stopAction,
      await post(`${at}/stops/${checkpoint}/cross`, { side: "entry" }),
      200,
      "entry",
    );
    assert.equal(entered.stop.status, "cleared");
    assert.ok(entered.stop.exit_at && entered.stop.entry_at);
    const collected = documented(
      stopAction,
      await post(`${at}/stops/${collect}/collect`, { waybill: y }),
      200,
      "collect",
    );
    assert.equal(collected.stop.collected[0].waybill, y);
    assert.equal(collected.items[0].load.kg, 2.5);

    // The driver's side.
    const delivered = documented(
      driverStopAction,
      await asDriver("POST", `/driver/network-runs/${id}/stops/${stopX}/deliver`, {
        idempotency_key: "k1",
        received_by: "Neo",
      }),
      200,
      "driver deliver",
    );
    assert.equal(delivered.items[0].state, "delivered");
    const deliveredAgain = documented(
      driverStopAction,
      await asDriver("POST", `/driver/network-runs/${id}/stops/${stopX}/deliver`, {
        idempotency_key: "k1",
        received_by: "Neo",
      }),
      200,
      "driver deliver again",
    );
    assert.deepEqual(deliveredAgain, delivered);
    documented(
      driverStopAction,
      await asDriver("POST", `/driver/network-runs/${id}/stops/${stopZ}/fail`, {
        reason: "nobody home",
      }),
      200,
      "driver fail",
    );
    const seen = documented(
      driverRun,
      await asDriver("GET", `/driver/network-runs/${id}`),
      200,
      "driver run",
    );
    assert.ok(seen.stops[0].exit_at, "the border times");
    assert.equal(seen.stops[2].work_order.sender, "Molapo Pharmacy");
    assert.deepEqual(seen.stops[2].collected[0].waybill, y);

    // A second run with its vehicle and driver, planned.
    const other = documented(
      run,
      await post("/business/network-runs", {
        facility_id: "GBE-HUB",
        kind: "linehaul",
        countries: ["BW"],
        capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
        vehicle: "B 123 ABC",
        driver_id: driver.id,
      }),
      201,
      "create run with vehicle and driver",
    );
    await t.settle();
    const listed = documented(
      z.array(DriverRunListedAnswer),
      await asDriver("GET", "/driver/network-runs"),
      200,
      "driver runs",
    );
    assert.deepEqual(listed.map((r: { id: string }) => r.id).sort(), [id, other.id].sort());

    documented(
      driverRun,
      await t.call("POST", `/driver/network-runs/${id}/expenses`, { bearer, body: receipt("e2") }),
      201,
      "driver expense",
    );
    documented(
      driverRunAction,
      await asDriver("POST", `/driver/network-runs/${id}/report`, {
        waybill: y,
        condition: "damaged",
        note: "box crushed",
      }),
      200,
      "driver report",
    );
    documented(
      driverRunAction,
      await asDriver("POST", `/driver/network-runs/${id}/arrive`, {}),
      200,
      "arrive",
    );
    documented(
      driverRunAction,
      await asDriver("POST", `/driver/network-runs/${id}/unload`, {}),
      200,
      "unload",
    );

    // Operations' other run actions.
    documented(
      runAction,
      await post(`${at}/reorder`, {
        order: [collect, checkpoint, stopX, stopZ, stopW],
      }),
      200,
      "reorder",
    );
    documented(
      runAction,
      await post(`${at}/waiting`, { stop_id: stopZ, minutes: 30 }),
      200,
      "waiting",
    );
    const moved = documented(
      runAction,
      await post(`${at}/transfer`, { waybills: [w], to_run: other.id }),
      200,
      "transfer",
    );
    const transferred = moved.items.find((i: { waybill: string }) => i.waybill === w);
    assert.equal(transferred.to_run, other.id);
    const reported = documented(
      runAction,
      await post(`${at}/report`, { waybill: z2, condition: "returned", note: "back to sender" }),
      200,
      "report",
    );
    assert.equal(
      reported.items.find((i: { waybill: string }) => i.waybill === y).exception,
      "box crushed",
    );
    const closed = documented(runAction, await post(`${at}/close`, {}), 200, "close");
    assert.equal(closed.status, "closed");
    assert.ok(closed.closed_at);
  }));

Deno.test("answers: laboratory samples and compliance checklists, as documented", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const key = courier.business.api_key;
    const CHECKLISTS = "/business/compliance-checklists";
    const checklist = ChecklistAnswer;
    const publishedSchema = ChecklistPublishedAnswer;
    const body = {
      code: "LAB-BLOOD",
      name: "Blood sample handover",
      supplier: "laboratory",
      items: [{ key: "label_matches", label: "Label matches the request form" }],
    };
    const first = documented(
      publishedSchema,
      await t.call("POST", CHECKLISTS, { key, body }),
      201,
      "publish",
    );
    assert.equal(first.published, true);
    const retry = documented(
      publishedSchema,
      await t.call("POST", CHECKLISTS, { key, body }),
      200,
      "publish again",
    );
    assert.equal(retry.published, false);
    const items = [...body.items, { key: "photo", label: "Photo of the box", required: false }];
    documented(
      publishedSchema,
      await t.call("POST", CHECKLISTS, { key, body: { ...body, items } }),
      201,
      "v2",
    );
    await t.call("POST", CHECKLISTS, {
      key,
      body: { ...body, code: "BW-ZA", supplier: "clearing_agent", name: "Export papers" },
    });
    const one = documented(
      checklist,
      await t.call("GET", `${CHECKLISTS}/LAB-BLOOD`, { key }),
      200,
      "one",
    );
    assert.equal(one.versions.length, 2);
    await t.settle();
    const page: Answer = await t.call("GET", `${CHECKLISTS}?limit=10`, { key });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual(Object.keys(page.body).sort(), ["data", "meta", "success"]);
    assert.ok(
      OffsetPageMeta.strict().safeParse(page.body.meta).success,
      JSON.stringify(page.body.meta),
    );
    const rows = documentedData(z.array(ChecklistListedAnswer), page, "list");
    assert.deepEqual(rows.map((r: { code: string }) => r.code), ["BW-ZA", "LAB-BLOOD"]);

    const sample = LabSampleAnswer;
    const lab = (waybill: string, action: string, b: unknown) =>
      t.call("POST", `/business/shipments/${waybill}/lab/${action}`, { key, body: b });
    const cold = await bookWaybill(t, client);
    const plain = await bookWaybill(t, client);
    const profiled = documented(
      LabProfiledAnswer,
      await lab(cold, "profile", {
        sample_type: "blood",
        laboratory: "Gaborone Central Lab",
        min_temp_c: 2,
        max_temp_c: 8,
        deadline_at: "2026-11-02T14:00:00Z",
        seal_id: "SEAL-001",
        checklist_code: "LAB-BLOOD",
      }),
      200,
      "cold-chain profile",
    );
    assert.equal(profiled.cold_chain_charge.amount, 45);
    assert.equal(profiled.checklist.version, 2);
    const bare = documented(
      LabProfiledAnswer,
      await lab(plain, "profile", { sample_type: "urine" }),
      200,
      "plain profile",
    );
    assert.equal(bare.cold_chain_charge, null);
    assert.equal(bare.checklist, null);
    documented(
      sample,
      await lab(cold, "tick", { item: "seal", seal_id: "SEAL-001" }),
      201,
      "tick seal",
    );
    documented(
      sample,
      await lab(cold, "tick", { item: "photo", ok: false, note: "no camera" }),
      201,
      "tick",
    );
    const reading = {
      value: 5.5,
      unit: "C",
      source: "logger",
      device: "TL-9",
      time: "2026-11-02T08:00:00Z",
    };
    documented(sample, await lab(cold, "temperature", reading), 201, "reading");
    const hot = documented(
      sample,
      await lab(cold, "temperature", {
        ...reading,
        value: 53.6,
        unit: "F",
        time: "2026-11-02T07:55:00Z",
      }),
      201,
      "out of range",
    );
    assert.equal(hot.readings[1].celsius, 12);
    assert.deepEqual(hot.handover.reasons, ["temperature_out_of_range"]);
    const decided = documented(
      sample,
      await lab(cold, "approve", { decision: "accept", note: "lab accepted", by: "Dr Mosweu" }),
      200,
      "approve",
    );
    assert.deepEqual(decided.decisions[0].settled, ["temperature_out_of_range"]);
    documented(sample, await t.call("GET", `/business/shipments/${cold}/lab`, { key }), 200, "get");
    const unranged = documented(sample, await lab(plain, "temperature", reading), 201, "no range");
    assert.equal(unranged.readings[0].in_range, null);

    // The driver of a run carrying the sample.
    const bearer = await driverCarrying(t, courier, cold);
    const asDriver = (action: string, b: unknown) =>
      t.call("POST", `/driver/shipments/${cold}/lab/${action}`, { bearer, body: b });
    documented(sample, await asDriver("tick", { item: "label_matches" }), 201, "driver tick");
    documented(
      sample,
      await asDriver("temperature", { ...reading, time: "2026-11-02T08:01:00Z" }),
      201,
      "driver reading",
    );
  }));

Deno.test("answers: customs crossings, operations' side and the driver's, as documented", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const key = courier.business.api_key;
    const x = await bookWaybill(t, client, CROSS_BORDER);
    const customs = ShipmentCustomsAnswer;
    const supplied = CustomsSuppliedAnswer;
    const moved = CustomsMovedAnswer;

    const booked = documented(
      customs,
      await t.call("GET", `/business/shipments/${x}/customs`, { key }),
      200,
      "booked crossing",
    );
    const id = booked.crossings[0].id as string;
    assert.equal(booked.crossings[0].run_id, null);
    const domestic = await bookWaybill(t, client);
    const none = documented(
      customs,
      await t.call("GET", `/business/shipments/${domestic}/customs`, { key }),
      200,
      "domestic",
    );
    assert.deepEqual(none.crossings, []);

    const papers = {
      documents: [{ name: "commercial invoice", reference: "INV-1" }, { name: "permit" }],
    };
    const supply = () => t.call("POST", `/business/customs/${id}/supply`, { key, body: papers });
    documented(supplied, await supply(), 200, "supply");
    assert.equal(documented(supplied, await supply(), 200, "supply again").replayed, true);
    const move = (body: Record<string, unknown>) =>
      t.call("POST", `/business/customs/${id}/move`, { key, body });
    documented(moved, await move({ action: "hold", reason: "inspection" }), 200, "hold");
    documented(
      moved,
      await move({ action: "request_documents", reason: "permit" }),
      200,
      "request",
    );
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS 1",
    };
    const paid = documented(moved, await move(duty), 200, "duties");
    assert.equal(paid.move.amount, 125.5);
    assert.equal(paid.duties[0].amount, 125.5);
    assert.equal(paid.charge_reference, `DUT-${id}-1`);
    assert.equal(documented(moved, await move(duty), 200, "duties again").replayed, true);
    documented(
      moved,
      await move({
        action: "duties",
        amount: 12,
        currency: "ZAR",
        payer: "recipient",
        evidence: "counter",
      }),
      200,
      "recipient duties",
    );
    const cleared = documented(
      moved,
      await move({ action: "clear", customs_reference: "ZA-CUS-1" }),
      200,
      "clear",
    );
    assert.equal(cleared.charge_reference, `CUS-${id}`);

    // At a run's border stop: the run, the exit and entry, the vehicle gone before the release.
    const at = await openCrossing(t.env.runtime, courier.business.id, {
      waybill: x,
      country: "BW",
      to_country: "ZA",
      border_post: "Ramatlabama",
      run_id: "run_test",
      stop_id: "stop_ramatlabama",
      by: "driver:test",
    });
    assert.equal(at, id, "the first border stop presents the crossing opened at booking");
    await recordCrossing(t.env.runtime, courier.business.id, at, "exit", "api_key");
    await recordCrossing(t.env.runtime, courier.business.id, at, "entry", "api_key");
    await vehicleLeft(t.env.runtime, courier.business.id, at, "api_key");
    const released = documented(
      moved,
      await t.call("POST", `/business/customs/${at}/move`, {
        key,
        body: { action: "release", evidence: "release note 7" },
      }),
      200,
      "release",
    );
    assert.equal(released.released_after_departure, true);
    assert.ok(released.exit_at && released.entry_at && released.vehicle_left_at);
    const refusedAt = await openCrossing(t.env.runtime, courier.business.id, {
      waybill: x,
      country: "ZA",
      to_country: "MZ",
      border_post: "Lebombo",
      run_id: "run_test",
      stop_id: "stop_lebombo",
      by: "driver:test",
    });
    const refused = documented(
      moved,
      await t.call("POST", `/business/customs/${refusedAt}/move`, {
        key,
        body: { action: "refuse", reason: "no permit" },
      }),
      200,
      "refuse",
    );
    assert.ok(refused.refused_at);
    await t.settle();
    const all = documented(
      customs,
      await t.call("GET", `/business/shipments/${x}/customs`, { key }),
      200,
      "every crossing",
    );
    assert.equal(all.crossings.length, 2);
    assert.equal(all.crossings[0].run_id, "run_test");

    // The driver of a run carrying the shipment.
    const bearer = await driverCarrying(t, courier, x);
    const byDriver = documented(
      DriverCustomsSuppliedAnswer,
      await t.call("POST", `/driver/customs/${id}/supply`, {
        bearer,
        body: { documents: [{ name: "vehicle papers", reference: null }] },
      }),
      200,
      "driver supply",
    );
    assert.equal(byDriver.documents.length, 3);
  }));

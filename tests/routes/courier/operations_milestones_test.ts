/**
 * Milestones and health through the operations API (courier 2.8, 2.9, 3.2): the manual clock
 * brings at-risk and overdue alerts once; a collection booked after the cut-off, customs holding
 * for papers and a parcel going back to the sender wait on whom they should.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookShipment, bookWaybill, grantScopes } from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { alerts, board, HOUR, ready, scan } from "./operations_fixtures.ts";

Deno.test("operations: at risk at 75 % of the window, overdue at the deadline, alerts once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await advance(t, 6 * HOUR); // 75 % of 8 working hours
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=milestone_at_risk")).length === 1,
      "at risk",
    );
    let row = (await board(t, courier)).data[0]!;
    assert.equal(row["health"], "at_risk");
    assert.equal(row["overdue"], false);
    await advance(t, 2 * HOUR);
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=milestone_overdue")).length === 1,
      "overdue",
    );
    row = (await board(t, courier)).data[0]!;
    assert.equal(row["health"], "late");
    assert.match(String(row["health_reason"]), /collection overdue/);
    assert.equal(row["overdue"], true);
    assert.equal((await board(t, courier, "?overdue=1")).data.length, 1);
    assert.equal((await board(t, courier, "?health=on_schedule")).data.length, 0);
    assert.equal((await board(t, courier, "?open_alerts=1")).data.length, 1);
    assert.equal(row["open_alerts"], 2);
    const [overdue] = await alerts(t, courier, "?kind=milestone_overdue");
    assert.equal(overdue!.waybill, waybill);
    assert.equal(overdue!.owner, "courier");
    // Times in an alert's detail read as ISO 8601, like every time the API states.
    const detail = (overdue as unknown as { detail: { due_at: string } }).detail;
    assert.equal(new Date(detail.due_at).toISOString(), detail.due_at);

    // A long silence: one no_scan alert; time-outs never cancel or complete the shipment (1.4).
    await advance(t, 72 * HOUR);
    await until(t, async () => (await alerts(t, courier, "?kind=no_scan")).length === 1, "no scan");
    await advance(t, 24 * HOUR);
    // Collection and, later, the promise: each milestone's deadline raises exactly one alert.
    const overdueKeys = (await alerts(t, courier, "?kind=milestone_overdue"))
      .map((a) => (a as unknown as { detail: { milestone: string } }).detail.milestone).sort();
    assert.deepEqual(overdueKeys, ["collection", "promise"], "raised once each");
    assert.equal((await alerts(t, courier, "?kind=no_scan")).length, 1, "raised once");
    const still = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(still.body.data.status, "booked");
    assert.equal(still.body.data.closed, false);
    // Its alerts read as the alert list shows them: times in ISO 8601, not epoch milliseconds.
    const byId = (list: { id: string }[]) => [...list].sort((x, y) => x.id.localeCompare(y.id));
    const listed = (await t.call("GET", "/business/courier/alerts", {
      key: courier.business.api_key,
    })).body.data.filter((a: { waybill: string | null }) => a.waybill === waybill);
    assert.ok(listed.length >= 3, "at risk, overdue, no scan");
    assert.deepEqual(byId(still.body.data.alerts), byId(listed));
    assert.equal(still.body.data.alerts[0].raised_at, listed[0].raised_at);

    const report = await t.call("GET", "/business/courier/operations/report", {
      key: courier.business.api_key,
    });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.equal(report.body.data.open_shipments.total, 1);
    assert.equal(report.body.data.ageing_days["3-5"], 1);
    // Collection raised on Monday; the promise's raised when the clock jumped past it on
    // Thursday, exactly 24 hours ago: not older.
    assert.equal(report.body.data.open_alerts.by_kind.milestone_overdue.unacknowledged, 2);
    assert.equal(report.body.data.open_alerts.by_kind.milestone_overdue.older_than_24h, 1);
  }));

Deno.test("operations: booked after the cut-off, collection is neither at risk nor late before its promised day (courier 2.8)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await advance(t, 5 * HOUR); // Monday 15:00 in Gaborone, after the 14:00 cut-off
    const booked = await bookShipment(t, client);
    assert.equal((booked as unknown as { collection_on: string }).collection_on, "2026-11-03");
    const row = (await board(t, courier)).data[0]!;
    assert.equal(row["next_milestone"], "collection");
    // Tuesday 00:00 local + 8 working hours: 08:00 local on the promised day.
    assert.equal(row["next_due_at"], "2026-11-03T06:00:00.000Z");
    const detail = await t.call("GET", `/business/courier/operations/${booked.waybill}`, {
      key: courier.business.api_key,
    });
    const collection = detail.body.data.obligations.find((o: { milestone: string }) =>
      o.milestone === "collection"
    );
    assert.equal(collection.opened_at, "2026-11-02T13:00:00.000Z");
    assert.equal(collection.at_risk_at, "2026-11-03T04:00:00.000Z");

    // Monday 23:00:01 local, 8 hours and a second after booking: nothing is owed yet.
    await advance(t, 8 * HOUR + 1);
    await t.settle();
    assert.equal((await board(t, courier)).data[0]!["health"], "on_schedule");
    assert.deepEqual(await alerts(t, courier, "?kind=milestone_at_risk"), []);
    assert.deepEqual(await alerts(t, courier, "?kind=milestone_overdue"), []);

    // Tuesday 06:00 local: 75 % of the window used; 08:00: overdue.
    await advance(t, 7 * HOUR - 1);
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=milestone_at_risk")).length === 1,
      "at risk",
    );
    assert.equal((await board(t, courier)).data[0]!["health"], "at_risk");
    assert.deepEqual(await alerts(t, courier, "?kind=milestone_overdue"), []);
    await advance(t, 2 * HOUR);
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=milestone_overdue")).length === 1,
      "overdue",
    );
    assert.equal((await board(t, courier)).data[0]!["health"], "late");

    // No scan is owed before collection is either: the 24 hours count from Tuesday 00:00 local,
    // not from the booking (Tuesday 15:00:01 local is 24 hours and a second after it).
    await advance(t, 7 * HOUR + 1);
    await t.settle();
    assert.deepEqual(await alerts(t, courier, "?kind=no_scan"), []);
    await advance(t, 9 * HOUR - 1); // Wednesday 00:00 local
    await until(t, async () => (await alerts(t, courier, "?kind=no_scan")).length === 1, "no scan");
    const [noScan] = await alerts(t, courier, "?kind=no_scan");
    assert.match(JSON.stringify(noScan), /2026-11-02T22:00:00\.000Z/);
  }));

Deno.test("operations: customs holds for papers, waits, is exceeded once per working day", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    for (const event of ["collected", "departed_to_border", "arrived_at_border"]) {
      await scan(t, courier, waybill, { event, holder: "Driver Thabo" });
    }
    await scan(t, courier, waybill, { event: "presented_to_customs", facility_id: "TLOKWENG" });
    let row = (await board(t, courier)).data[0]!;
    assert.equal(row["status"], "customs_processing");
    assert.equal(row["health"], "waiting_customs");
    assert.equal(row["next_owner"], "customs");
    await scan(t, courier, waybill, { event: "customs_hold" }, 422); // a hold needs a reason
    await scan(t, courier, waybill, { event: "documents_requested" }, 422); // so does a request
    // spec: courier 3.2: customs holds for papers (a plain `customs_hold` stays with customs).
    await scan(t, courier, waybill, {
      event: "documents_requested",
      reason: "commercial invoice missing",
    });
    row = (await board(t, courier)).data[0]!;
    assert.equal(row["status"], "customs_hold");
    assert.equal(row["health"], "waiting_courier");
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=documents_missing")).length === 1,
      "documents",
    );
    await scan(t, courier, waybill, { event: "documents_supplied" });
    row = (await board(t, courier)).data[0]!;
    assert.equal(row["health"], "waiting_customs");
    // 16 working hours of customs wait, then one alert per working day over.
    await advance(t, 17 * HOUR);
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=customs_wait_exceeded")).length === 1,
      "day 1",
    );
    await advance(t, 24 * HOUR);
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=customs_wait_exceeded")).length === 2,
      "day 2",
    );
    await grantScopes(t, courier, "customs:approve");
    await scan(t, courier, waybill, { event: "cleared" });
    row = (await board(t, courier)).data[0]!;
    assert.equal(row["status"], "cleared");
  }));

Deno.test("operations: papers asked for again while still missing raise documents_missing once; asked for after they were supplied, again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    for (const event of ["collected", "departed_to_border", "arrived_at_border"]) {
      await scan(t, courier, waybill, { event, holder: "Driver Thabo" });
    }
    await scan(t, courier, waybill, { event: "presented_to_customs", facility_id: "TLOKWENG" });
    const ask = { event: "documents_requested", reason: "commercial invoice missing" };
    await scan(t, courier, waybill, ask);
    t.clock.advanceBy(60_000);
    // spec: courier 2.9: the same papers still missing are one condition, raised once.
    await scan(t, courier, waybill, ask);
    await scan(t, courier, waybill, { ...ask, reason: "invoice still missing" });
    const missing = async () =>
      (await alerts(t, courier, "?kind=documents_missing")).filter((a) => a.waybill === waybill);
    assert.equal((await missing()).length, 1, "one alert while the papers are missing");
    // Supplied, then asked for again: the condition recurs, so it is raised again.
    await scan(t, courier, waybill, { event: "documents_supplied" });
    t.clock.advanceBy(60_000);
    await scan(t, courier, waybill, ask);
    await until(t, async () => (await missing()).length === 2, "asked again after supplied");
  }));

Deno.test("operations: a parcel going back to the sender reads as the courier's return, not the customer's wait", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    for (const event of ["collected", "received_at_destination", "out_for_delivery"]) {
      await scan(t, courier, waybill, { event, facility_id: "GBE-HUB" });
    }
    await scan(t, courier, waybill, { event: "delivery_attempted", note: "nobody home" });
    await scan(t, courier, waybill, { event: "returning" });
    // Decided (3.2 silent on returning): the recipient is owed nothing; the courier owns the way
    // back. Days on, past the promise, it is neither waiting on the customer nor late on it.
    for (const days of [0, 5]) {
      await advance(t, days * 24 * HOUR);
      const row = (await board(t, courier, `?q=${waybill}`)).data[0]!;
      assert.equal(row["status"], "returning");
      assert.equal(row["health"], "on_schedule", JSON.stringify(row));
      assert.equal(row["health_reason"], "returning to the sender");
      assert.equal(row["next_owner"], "courier");
    }
    const report = await t.call("GET", "/business/courier/operations/report", {
      key: courier.business.api_key,
    });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.deepEqual(report.body.data.open_shipments.by_next_owner, { courier: 1 });
    assert.deepEqual(report.body.data.open_shipments.by_health, { on_schedule: 1 });
    // Physically scanned, a booked shipment is in the courier's hands: not cancellable.
    const other = await bookWaybill(t, client);
    await scan(t, courier, other, { event: "scan", facility_id: "GBE-HUB" });
    const refused = await scan(t, courier, other, { event: "cancelled", reason: "asked" }, 422);
    assert.equal(refused.code, "not_cancellable");
  }));

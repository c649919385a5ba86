/**
 * The shipment lifecycle through the operations API (courier 1.4, 3.2, 4.4): scans move the
 * headline, custody and milestones; the manual clock brings at-risk and overdue alerts and moves
 * health; customs waits; the board's rows, filters, views, detail and report; tenancy.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  bookWaybill,
  type Client,
  clientKey,
  type Courier,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";

const HOUR = 3600;

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

async function scan(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown>,
  status = 201,
) {
  const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

async function board(t: TestEnv, courier: Courier, query = "") {
  await t.settle();
  const r = await t.call("GET", `/business/courier/operations${query}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { data: Record<string, unknown>[]; meta: { by_health: Record<string, number> } };
}

async function alerts(t: TestEnv, courier: Courier, query = "") {
  await t.settle();
  const r = await t.call("GET", `/business/courier/alerts${query}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as { kind: string; waybill: string; owner: string; status: string }[];
}

Deno.test("operations: a scan moves headline, custody and milestones; the board shows it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, { client_order_reference: "ORD-77" });
    const first = await board(t, courier);
    assert.equal(first.data.length, 1);
    const row = first.data[0]!;
    assert.equal(row["waybill"], waybill);
    assert.equal(row["status"], "booked");
    assert.equal(row["health"], "on_schedule");
    assert.equal(row["next_milestone"], "collection");
    assert.equal(row["next_owner"], "courier");
    // Booked Monday 10:00 in Gaborone: 8 working hours to collect, so 18:00 local.
    assert.equal(row["next_due_at"], "2026-11-02T16:00:00.000Z");
    assert.deepEqual(row["pieces"], { count: 1, places: 1 });
    assert.equal(first.meta.by_health["on_schedule"], 1);

    const after = await scan(t, courier, waybill, {
      event: "collected",
      holder: "Driver Thabo",
      note: "from the pharmacy counter",
    });
    assert.equal(after.data.status, "collected");
    assert.deepEqual(after.data.custody, { holder: "Driver Thabo", facility_id: null });
    assert.equal(after.data.trail.length, 1);
    await scan(t, courier, waybill, { event: "received_at_depot", facility_id: "GBE-HUB" });
    const detail = await t.call("GET", `/business/courier/operations/ORD-77`, {
      key: courier.business.api_key,
    });
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    const d = detail.body.data;
    assert.equal(d.waybill, waybill);
    assert.equal(d.status, "at_origin_facility");
    assert.deepEqual(d.obligations.map((o: { milestone: string }) => o.milestone).sort(), [
      "depot_dwell",
      "promise",
    ]);
    assert.equal(d.pieces[0].facility_id, "GBE-HUB");
    assert.deepEqual(d.trail.map((e: { event: string }) => e.event), [
      "collected",
      "received_at_depot",
    ]);
    // The frozen terms read as the service level, calendar and prices read elsewhere.
    const terms = d.frozen_terms.service_terms;
    assert.equal(typeof terms.price_adjustment_pct, "number");
    assert.equal("price_adjustment_bp" in terms, false);
    assert.equal(new Date(terms.created_at).toISOString(), terms.created_at);
    assert.equal(new Date(terms.calendar.created_at).toISOString(), terms.calendar.created_at);
    const pricing = d.frozen_terms.pricing;
    assert.equal(typeof pricing.total, "number");
    assert.equal("total_minor" in pricing, false);
    assert.ok(pricing.lines.every((l: { amount: unknown }) => typeof l.amount === "number"));
    const byFacility = await board(t, courier, "?facility_id=GBE-HUB");
    assert.equal(byFacility.data.length, 1);
    assert.equal((await board(t, courier, "?facility_id=ELSEWHERE")).data.length, 0);

    // Bad input changes nothing.
    await scan(t, courier, waybill, { event: "teleported" }, 422);
    await scan(t, courier, waybill, { event: "exception" }, 422);
    await scan(t, courier, waybill, { event: "scan", pieces: ["NOPE-1"] }, 422);
    await scan(t, courier, waybill, { event: "cancelled", reason: "changed mind" }, 422);

    // Another courier sees none of it.
    const other = await newCourier(t);
    const hidden = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: other.business.api_key,
    });
    assert.equal(hidden.status, 404);
    const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
      key: other.business.api_key,
      body: { event: "scan" },
    });
    assert.equal(r.status, 404);
    assert.equal((await board(t, other)).data.length, 0);
  }));

Deno.test("operations: a waybill typed in lower case names the same shipment on every read, as search does", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const typed = waybill.toLowerCase();
    assert.notEqual(typed, waybill);
    const key = courier.business.api_key;
    const scanned = await scan(t, courier, typed, { event: "collected", holder: "Thabo" });
    assert.equal(scanned.data.waybill, waybill);
    for (
      const path of [
        `/business/courier/operations/${typed}`,
        `/business/shipments/${typed}/customs`,
      ]
    ) {
      const r = await t.call("GET", path, { key });
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.data.waybill, waybill);
    }
    const pdf = async (path: string, headers: Record<string, string>) => {
      const r = await t.app.request(`/api${path}`, { headers });
      await r.body?.cancel();
      return r.status;
    };
    assert.equal(
      await pdf(`/business/shipments/${typed}/packing-slip`, { "X-Business-API-Key": key }),
      200,
    );
    const own = await t.call("GET", `/client/shipments/${typed}`, { headers: clientKey(client) });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.data.waybill, waybill);
    assert.equal(await pdf(`/client/shipments/${typed}/label`, clientKey(client)), 200);
    // Another client's shipment stays unknown, however it is spelled.
    const other = await newClient(t, courier);
    const theirs = await t.call("GET", `/client/shipments/${typed}`, { headers: clientKey(other) });
    assert.equal(theirs.status, 404);
  }));

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

Deno.test("operations report: today is the courier's day (its calendar's timezone), or the one asked for", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    for (const event of ["collected", "out_for_delivery"]) {
      await scan(t, courier, waybill, { event, holder: "Driver Thabo" });
    }
    // Delivered at 23:50 on Monday in Gaborone (21:50Z), then read at 00:30 on Tuesday there.
    await advance(t, (Date.parse("2026-11-02T21:50:00Z") - t.clock.now()) / 1000);
    await scan(t, courier, waybill, { event: "delivered", received_by: "Neo" });
    await advance(t, 40 * 60);
    await t.settle();
    const report = async (query = "") => {
      const r = await t.call("GET", `/business/courier/operations/report${query}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.today;
    };
    const gaborone = await report();
    assert.equal(gaborone.date, "2026-11-03");
    assert.equal(gaborone.timezone, "Africa/Gaborone");
    assert.equal(gaborone.deliveries, 0, "delivered yesterday, there");
    const utc = await report("?timezone=UTC");
    assert.equal(utc.date, "2026-11-02");
    assert.equal(utc.deliveries, 1);
    const bad = await t.call("GET", "/business/courier/operations/report?timezone=Mars/Olympus", {
      key: courier.business.api_key,
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path), ["timezone"]);
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

Deno.test("operations: delivered closes it; cancelled only before collection; views saved", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const a = await bookWaybill(t, client);
    const b = await bookWaybill(t, client);
    for (const event of ["collected", "received_at_destination", "out_for_delivery"]) {
      await scan(t, courier, a, { event });
    }
    await scan(t, courier, a, { event: "delivery_attempted", note: "nobody home" });
    let row = (await board(t, courier, `?q=${a}`)).data[0]!;
    assert.equal(row["status"], "awaiting_redelivery");
    // A waybill typed in lower case finds the same row.
    assert.deepEqual((await board(t, courier, `?q=${a.toLowerCase()}`)).data, [row]);
    assert.equal(row["health"], "waiting_customer");
    assert.equal(row["next_owner"], "recipient");
    await scan(t, courier, a, { event: "out_for_delivery" });
    await scan(t, courier, a, { event: "delivered", received_by: "Neo Kgosi" });
    await scan(t, courier, a, { event: "scan" }, 409);
    assert.equal((await board(t, courier, `?q=${a}`)).data.length, 0, "closed rows are hidden");
    row = (await board(t, courier, `?q=${a}&include_closed=1`)).data[0]!;
    assert.equal(row["health"], "delivered");
    assert.equal(row["closed"], true);

    await scan(t, courier, b, { event: "cancelled" }, 422);
    await scan(t, courier, b, { event: "cancelled", reason: "client asked" });
    row = (await board(t, courier, `?q=${b}&include_closed=1`)).data[0]!;
    assert.equal(row["status"], "cancelled");
    assert.equal(row["health"], "closed");

    const saved = await t.call("POST", "/business/courier/operations/views", {
      key: courier.business.api_key,
      body: { name: "closed ones", filters: { include_closed: "1", health: "delivered" } },
    });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    // Its time in ISO 8601, as every time the API states.
    assert.deepEqual(saved.body.data, {
      name: "closed ones",
      filters: { include_closed: "1", health: "delivered" },
      by: "api_key",
      saved_at: new Date(t.clock.now()).toISOString(),
    });
    const viaView = await board(t, courier, "?view=closed%20ones");
    assert.deepEqual(viaView.data.map((r) => r["waybill"]), [a]);
    const listed = await t.call("GET", "/business/courier/operations/views", {
      key: courier.business.api_key,
    });
    assert.deepEqual(listed.body.data, [saved.body.data]);
    const deleted = await t.call("DELETE", "/business/courier/operations/views/closed%20ones", {
      key: courier.business.api_key,
    });
    assert.equal(deleted.status, 200);
    const gone = await t.call("GET", "/business/courier/operations?view=closed%20ones", {
      key: courier.business.api_key,
    });
    assert.equal(gone.status, 404);
  }));

Deno.test("operations: pieces in different places with no exception raise pieces_separated", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
    const waybill = await bookWaybill(t, client, { parcels: [parcel, parcel] });
    await scan(t, courier, waybill, { event: "received_at_depot", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, {
      event: "scan",
      facility_id: "FRANCISTOWN",
      pieces: [`${waybill}-2`],
    });
    await until(
      t,
      async () => (await alerts(t, courier, "?kind=pieces_separated")).length === 1,
      "separated",
    );
    const row = (await board(t, courier)).data[0]!;
    assert.deepEqual(row["pieces"], { count: 2, places: 2 });
  }));

/**
 * The shipment lifecycle through the operations API (courier 1.4, 3.2, 4.4): scans move the
 * headline, custody and milestones; the board's rows, filters, views, detail and report; a
 * waybill in any case; delivery, cancellation and pieces apart (operations_fixtures.ts).
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  bookWaybill,
  clientKey,
  newClient,
  newCourier,
} from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { alerts, board, ready, scan } from "./operations_fixtures.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";

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

Deno.test("operations: a shipment whose read meets a busy actor answers 503 actor_busy, not 404, to operations and to its tracking link", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { waybill, tracking_url } = await bookShipment(t, client);
    const key = courier.business.api_key;
    const token = tracking_url.split("/").at(-1)!;
    const calls = [
      () => t.call("GET", `/business/courier/operations/${waybill}`, { key }),
      () => t.call("GET", `/s/${token}`),
    ];
    for (const call of calls) {
      let busy = { status: 0, body: {} as { code?: string; error?: string } };
      const failed = await whileFlaky(t.env, {
        fails: commandKind("get", shipmentActor.type),
        refuse: true,
      }, async () => {
        busy = await call();
      });
      assert.equal(failed, 1);
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
      // Tracking answers name the code `error` (CONTRACT "Errors").
      assert.equal(busy.body.code ?? busy.body.error, "actor_busy");
      assert.equal((await call()).status, 200);
    }
  }));

/**
 * The customer tracking view (courier 2.11): progress without customs notes, values or money, the
 * expected date of a shipment cancelled, returned, going back or reported lost or damaged, and the
 * last verified place (tracking_fixtures.ts).
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookShipment, grantScopes, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { advance } from "../../helpers/receiver.ts";
import { scan } from "./tracking_fixtures.ts";

Deno.test("tracking: the public view shows progress and never customs notes, values or money", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client, {
      declared_value: 1234,
      client_order_reference: "SHOP-1",
    });
    const token = tracking_url.split("/").at(-1)!;
    const view = async () => {
      const r = await t.call("GET", `/s/${token}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    let v = await view();
    assert.equal(v.waybill, waybill);
    assert.equal(v.status, "booked");
    assert.equal(v.current_milestone, "collection");
    assert.equal(v.last_verified, null);
    assert.equal(v.delivery_attempts, 0);
    assert.equal(v.delay, null);
    assert.ok(v.expected_by);
    assert.ok(v.next_step);

    await scan(t, courier, waybill, { event: "collected", holder: "Driver Thabo" });
    await scan(t, courier, waybill, { event: "departed_to_border", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, { event: "presented_to_customs", facility_id: "TLOKWENG" });
    await scan(t, courier, waybill, {
      event: "customs_hold",
      reason: "SECRET-CUSTOMS-NOTE invoice undervalued",
      note: "SECRET-CUSTOMS-NOTE",
    });
    v = await view();
    assert.equal(v.status, "customs_hold");
    assert.equal(v.last_verified.place, "TLOKWENG");
    const text = JSON.stringify(v);
    for (
      const forbidden of [
        "SECRET-CUSTOMS-NOTE",
        "1234",
        "declared",
        "amount",
        "price",
        "total",
        "BWP",
        "currency",
        "specimen",
        "Driver Thabo",
      ]
    ) {
      assert.ok(!text.includes(forbidden), `tracking view shows ${forbidden}: ${text}`);
    }
    await grantScopes(t, courier, "customs:approve");
    await scan(t, courier, waybill, { event: "cleared" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
    v = await view();
    assert.equal(v.delivery_attempts, 1);
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivered", received_by: "Neo Kgosi" });
    v = await view();
    assert.equal(v.status, "delivered");
    assert.equal(v.pod.received_by, "Neo Kgosi");
    assert.ok(v.pod.delivered_at);

    const unknown = await t.call("GET", "/s/not-a-real-token-at-all");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.success, false);
    assert.equal(unknown.body.error, "not_found");
  }));

Deno.test("tracking: a cancelled or returned shipment is expected by no date and delayed by nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const view = async (trackingUrl: string) => {
      const r = await t.call("GET", `/s/${trackingUrl.split("/").at(-1)!}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    const cancelled = await bookShipment(t, client);
    const returned = await bookShipment(t, client);
    assert.ok((await view(cancelled.tracking_url)).expected_by, "an open shipment is expected");
    await scan(t, courier, cancelled.waybill, { event: "cancelled", reason: "order withdrawn" });
    await scan(t, courier, returned.waybill, { event: "collected" });
    await scan(t, courier, returned.waybill, { event: "returning" });
    await scan(t, courier, returned.waybill, { event: "returned" });
    // spec: courier 2.11: expected_by tells the customer when the parcel will arrive; a parcel
    // that will never arrive (cancelled, back with the sender) is expected on no day.
    const closed = [
      { trackingUrl: cancelled.tracking_url, status: "cancelled" },
      { trackingUrl: returned.tracking_url, status: "returned" },
    ];
    for (const { trackingUrl, status } of closed) {
      const v = await view(trackingUrl);
      assert.equal(v.status, status);
      assert.equal(v.expected_by, null, `${status}: ${JSON.stringify(v)}`);
      assert.equal(v.delay, null);
      assert.equal(v.pod, null);
    }
  }));

Deno.test("tracking: a shipment on its way back to the sender is expected by no date and delayed by nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client);
    await scan(t, courier, waybill, { event: "collected", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
    await scan(t, courier, waybill, { event: "returning", facility_id: "GBE-HUB" });
    await advance(t, 5 * 24 * 3600); // past the promise: still no date, no delay
    const r = await t.call("GET", `/s/${tracking_url.split("/").at(-1)!}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    // spec: courier 2.11: expected_by and delay tell the customer when the parcel arrives; one
    // going back to the sender will not arrive, as one returned or cancelled will not.
    assert.equal(v.status, "returning");
    assert.equal(v.expected_by, null, JSON.stringify(v));
    assert.equal(v.delay, null, JSON.stringify(v));
    assert.equal(v.current_milestone, null, JSON.stringify(v));
    assert.equal(v.delivery_attempts, 1);
    assert.equal(v.last_verified.place, "GBE-HUB");
    assert.equal(v.pod, null);
  }));

Deno.test("tracking: a parcel reported lost or damaged is expected by no date, and the customer reads what happens next", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client, { declared_value: 1234 });
    await scan(t, courier, waybill, { event: "collected", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, {
      event: "lost_or_damaged",
      reason: "SECRET-NOTE crushed in the van, claim 1234",
    });
    const r = await t.call("GET", `/s/${tracking_url.split("/").at(-1)!}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    // spec: courier 2.11: no expected day for a parcel that may never arrive, and a plain delay
    // and next step, with no internal note and no money.
    assert.equal(v.status, "lost_or_damaged");
    assert.equal(v.expected_by, null, JSON.stringify(v));
    assert.equal(v.current_milestone, null, JSON.stringify(v));
    assert.match(v.delay ?? "", /lost or damaged/, JSON.stringify(v));
    assert.match(v.next_step ?? "", /sender will be in touch/, JSON.stringify(v));
    assert.equal(JSON.stringify(v).includes("SECRET-NOTE"), false);
    assert.equal(JSON.stringify(v).includes("1234"), false);
    assert.equal(v.last_verified.place, "GBE-HUB");
  }));

Deno.test("tracking: a scan with no place keeps the last verified place and the time it was verified there", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client);
    const view = async () => {
      const r = await t.call("GET", `/s/${tracking_url.split("/").at(-1)!}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    await scan(t, courier, waybill, { event: "collected", holder: "Driver Thabo" });
    // No place verified yet: the scan's time, no place.
    const collected = (await view()).last_verified;
    assert.equal(collected.place, null);
    await advance(t, 3600);
    await scan(t, courier, waybill, { event: "received_at_depot", facility_id: "GBE-HUB" });
    const atHub = (await view()).last_verified;
    assert.equal(atHub.place, "GBE-HUB");
    assert.ok(atHub.scanned_at > collected.scanned_at);
    await advance(t, 3600);
    await scan(t, courier, waybill, { event: "returning" });
    await advance(t, 3600);
    await scan(t, courier, waybill, { event: "scan", holder: "Driver Thabo" });
    // spec: courier 2.11: "last verified place and scan time": the place, and when it was
    // verified there; a scan that verified no place changes neither.
    assert.deepEqual((await view()).last_verified, atHub);
  }));

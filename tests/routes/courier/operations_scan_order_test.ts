/**
 * Scans operations record that cannot have happened from the shipment's headline (courier 3.2,
 * 2.6 rule 3, 4.4): refused 409 and nothing changes, so no later charge follows them.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, grantScopes } from "../../helpers/courier.ts";
import { ready, scan } from "./operations_fixtures.ts";
import { CROSS_BORDER, move } from "./customs_fixtures.ts";
import { bookingCrossingIdOf } from "../../../src/courier/flows/customs.ts";

Deno.test("operations scans: a delivery attempt on a shipment never out for delivery is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await scan(t, courier, waybill, { event: "collected" });
    const refused = await scan(t, courier, waybill, { event: "delivery_attempted" }, 409);
    assert.equal(refused.code, "scan_out_of_order");
    assert.match(refused.message, /collected/);
    const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.body.data.status, "collected");
    assert.equal(r.body.data.attempts, 0);
    assert.equal(r.body.data.trail_total, 1);
    // The attempt once out for delivery is recorded, and scanned again it is the same attempt.
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
  }));

Deno.test("operations scans: returned on a shipment the courier never had is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const refused = await scan(t, courier, waybill, { event: "returned" }, 409);
    assert.equal(refused.code, "scan_out_of_order");
    await scan(t, courier, waybill, { event: "collected" });
    await scan(t, courier, waybill, { event: "returning" });
    await scan(t, courier, waybill, { event: "returned" });
  }));

Deno.test("operations scans: a parcel customs holds is not out for delivery, attempted or delivered", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    for (const event of ["collected", "departed_to_border", "presented_to_customs"]) {
      await scan(t, courier, waybill, { event });
    }
    await scan(t, courier, waybill, { event: "customs_hold", reason: "inspection" });
    for (const event of ["out_for_delivery", "delivery_attempted", "delivered"]) {
      const refused = await scan(t, courier, waybill, { event }, 409);
      assert.equal(refused.code, "held_by_customs", event);
      assert.match(refused.message, /held by customs/);
    }
    const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.body.data.status, "customs_hold");
    await grantScopes(t, courier, "customs:approve");
    await scan(t, courier, waybill, { event: "cleared" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
  }));

Deno.test("operations scans: a parcel whose booking crossing customs refused is not delivered", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = bookingCrossingIdOf(courier.business.id, waybill);
    await move(t, courier, id, { action: "refuse", reason: "prohibited goods" });
    await scan(t, courier, waybill, { event: "collected" });
    const refused = await scan(t, courier, waybill, { event: "delivered" }, 409);
    assert.equal(refused.code, "held_by_customs");
    assert.match(refused.message, new RegExp(`crossing ${id} is refused`));
  }));

Deno.test("operations scans: a customs outcome on a shipment with no crossing is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve", "customs:submit-documents");
    const waybill = await bookWaybill(t, client);
    await scan(t, courier, waybill, { event: "collected" });
    for (const event of ["cleared", "released", "documents_supplied"]) {
      const refused = await scan(t, courier, waybill, { event }, 409);
      assert.equal(refused.code, "scan_out_of_order", event);
      assert.match(refused.message, /no customs crossing/);
    }
    // A cross-border shipment has its crossing from booking: customs may clear it early.
    const abroad = await bookWaybill(t, client, CROSS_BORDER);
    await scan(t, courier, abroad, { event: "cleared" });
  }));

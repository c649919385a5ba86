/**
 * Courier 4.3 routes of routes/courier/billing_events.ts: the billing event outbox and its
 * paging. Delivery, acknowledgement and export end to end: tests/outbound/billing_events_test.ts.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, postCharge, topUp } from "../../helpers/courier.ts";
import { until } from "../../helpers/receiver.ts";

Deno.test("billing events list: a cursor whose time no store can hold is refused 422, never a 500", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client);
    await postCharge(t, courier, client, { reference: "CX-1", shipment: waybill });
    const key = courier.business.api_key;
    const listed = async () =>
      (await t.call("GET", "/business/courier/billing/events", { key })).body.data.length;
    await until(t, async () => (await t.settle(), await listed()) === 2, "both events listed");
    for (const at of ["99999999999999999999", "9223372036854775808", "9".repeat(190)]) {
      const r = await t.call("GET", `/business/courier/billing/events?cursor=${at}|evt_x`, { key });
      assert.equal(r.status, 422, `${at}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.errors[0].path, "cursor");
    }
    // The cursor a page gives still pages on.
    const first = await t.call("GET", "/business/courier/billing/events?limit=1", { key });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await t.call(
      "GET",
      `/business/courier/billing/events?limit=1&cursor=${
        encodeURIComponent(first.body.meta.next_cursor)
      }`,
      { key },
    );
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.data.length, 1);
    assert.notEqual(second.body.data[0].event_id, first.body.data[0].event_id);
  }));

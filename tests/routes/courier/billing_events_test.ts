/**
 * Courier 4.3 routes of routes/courier/billing_events.ts: the billing event outbox and its
 * paging. Delivery, acknowledgement and export end to end: tests/outbound/billing_events_test.ts.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, postCharge, topUp } from "../../helpers/courier.ts";
import { until } from "../../helpers/receiver.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";

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

Deno.test("billing events: an acknowledgement or requeue while the event is busy answers 503, never 404", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    await bookWaybill(t, client);
    const key = courier.business.api_key;
    const listed = async () =>
      (await t.call("GET", "/business/courier/billing/events", { key })).body.data;
    await until(t, async () => (await t.settle(), await listed()).length === 1, "the event");
    const [event] = await listed();
    const path = `/business/courier/billing/events/${event.event_id}`;
    const asks = [
      { path: `${path}/acknowledge`, body: { state: "acknowledged", external_reference: "R-1" } },
      { path: `${path}/requeue`, body: { reason: "resend" } },
    ];
    for (const ask of asks) {
      // The event's actor answers actor_busy once, as a full mailbox does.
      const failed = await whileFlaky(t.env, {
        fails: commandKind("get", outboundEventActor.type),
        refuse: true,
      }, async () => {
        const r = await t.call("POST", ask.path, { key, body: ask.body });
        // spec: courier 4.3: the event exists; a 404 would tell the courier's system to give up
        // an acknowledgement it must send again.
        assert.equal(r.status, 503, `${ask.path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "actor_busy");
      });
      assert.equal(failed, 1);
      const again = await t.call("POST", ask.path, { key, body: ask.body });
      assert.equal(again.status, 200, `${ask.path}: ${JSON.stringify(again.body)}`);
    }
  }));

Deno.test("billing endpoint: a URL keeps only what was checked: control characters and other ports are refused", () =>
  withTestEnv(async (t) => {
    // issue 35 item 7, as the business webhook URL (tests/routes/business/account_test.ts).
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const put = (url: string) =>
      t.call("PUT", "/business/courier/billing/endpoint", { key, body: { url } });
    for (
      const url of [
        "https://billing.example.com/a\tb",
        "https://billing.example.com/a\nX-Injected: 1",
        "https://billing.example.com/\u0000",
        "https://billing.example.com:8443/x",
        "https://billing.example.com:80/x",
      ]
    ) {
      const bad = await put(url);
      assert.equal(bad.status, 422, JSON.stringify(url));
      assert.equal(bad.body.code, "validation_failed");
      assert.equal(bad.body.errors[0].path, "url");
    }
    const now = await t.call("GET", "/business/courier/billing/endpoint", { key });
    assert.equal(now.body.data.billing_endpoint_url, null, "nothing refused was kept");
    // What is kept is the address as checked, not the text as sent.
    const kept = await put("HTTPS://Billing.Example.COM:443/x");
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.equal(kept.body.data.billing_endpoint_url, "https://billing.example.com/x");
    const after = await t.call("GET", "/business/courier/billing/endpoint", { key });
    assert.equal(after.body.data.billing_endpoint_url, "https://billing.example.com/x");
  }));

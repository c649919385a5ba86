/**
 * The events a shipment's life sends (courier 6.1, 6.2): stage webhooks to the client,
 * `shipment.estimate_changed` as an estimated day moves over working days, and the courier's
 * completion billing event with POD.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";
import { scan } from "./tracking_fixtures.ts";

/** Prices DOMESTIC for the client and books its economy option (3 working days in transit). */
async function bookEconomy(t: TestEnv, client: Client): Promise<string> {
  return (await bookShipment(t, client, {}, { service_level: "economy" })).waybill;
}

Deno.test("lifecycle events: stage webhooks, estimate_changed, and the completion billing event", () =>
  withTestEnv(async (t) => {
    const clientHook = startReceiver();
    const billing = startReceiver();
    try {
      const courier = await newCourier(t);
      const r = await t.call("PUT", "/business/courier/billing/endpoint", {
        key: courier.business.api_key,
        body: { url: billing.url },
      });
      assert.equal(r.status, 200);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const hook = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: clientHook.url },
      });
      assert.equal(hook.status, 201);
      const { waybill } = await bookShipment(t, client, {
        declared_value: 1234,
        client_order_reference: "SHOP-1",
      });
      await scan(t, courier, waybill, { event: "collected" });
      await scan(t, courier, waybill, { event: "out_for_delivery" });
      await advance(t, 48 * 3600); // Wednesday: a failed attempt now moves the estimate
      await scan(t, courier, waybill, { event: "delivery_attempted", note: "gate locked" });
      await scan(t, courier, waybill, { event: "out_for_delivery" });
      await scan(t, courier, waybill, { event: "delivered", received_by: "Neo Kgosi" });
      await advance(t, 0);
      // spec: courier 6.2: at-least-once, deduped on the id: an attempt still in flight when the
      // clock jumps may be sent again. And the events of one pump go side by side: the last
      // stage's may arrive before the one ahead of it, so wait for all of them.
      const events = () => [
        ...new Map(clientHook.deliveries.map((d) => {
          const body = JSON.parse(d.body);
          return [body.id as string, body.event as string];
        })).values(),
      ];
      await until(t, async () => {
        await advance(t, 0); // events made since are due now
        const stages = events().filter((e) => e !== "shipment.estimate_changed");
        return stages.length >= 6 && events().includes("shipment.estimate_changed");
      }, `client stage webhooks (so far ${events().join(", ")})`);
      assert.deepEqual(events().filter((e) => e !== "shipment.estimate_changed").sort(), [
        "shipment.awaiting_redelivery",
        "shipment.booked",
        "shipment.collected",
        "shipment.delivered",
        "shipment.out_for_delivery",
        "shipment.out_for_delivery",
      ]);
      const moved = clientHook.deliveries.map((d) => JSON.parse(d.body))
        .find((b) => b.event === "shipment.estimate_changed");
      assert.ok(moved.data.estimated_delivery_on);
      assert.equal(moved.data.waybill, waybill);

      const completion = () =>
        billing.deliveries.map((d) => JSON.parse(d.body)).find((b) =>
          b.event_type === "shipment.delivered"
        );
      await until(t, async () => {
        await advance(t, 0);
        return completion() !== undefined;
      }, "the completion billing event");
      const body = completion();
      assert.equal(body.api_version, "v1");
      assert.equal(body.shipment.waybill, waybill);
      assert.equal(body.shipment.pod, true);
      assert.equal(body.shipment.status, "delivered");
      assert.ok(body.shipment.delivered_at);
      assert.equal(body.shipment.base_charge, "78.00");
      assert.equal(body.shipment.tax, "10.92");
      assert.equal(body.shipment.currency, "BWP");
      assert.deepEqual(body.shipment.adjustments, []);
      assert.ok(body.shipment.price_lines.length >= 2);
      assert.equal(body.client.id, client.id);
      // spec: courier 4.3: the outbox by client holds the completion of the client's shipment.
      await t.env.settle();
      const outbox = await t.call(
        "GET",
        `/business/courier/billing/events?client_id=${client.id}&event_type=shipment.delivered`,
        { key: courier.business.api_key },
      );
      assert.equal(outbox.status, 200);
      assert.deepEqual(
        outbox.body.data.map((e: { event_id: string; client_id: string }) => [
          e.event_id,
          e.client_id,
        ]),
        [[body.event_id, client.id]],
      );
      const other = await newClient(t, courier);
      const none = await t.call(
        "GET",
        `/business/courier/billing/events?client_id=${other.id}&event_type=shipment.delivered`,
        { key: courier.business.api_key },
      );
      assert.deepEqual(none.body.data, []);
    } finally {
      await clientHook.close();
      await billing.close();
    }
  }));

Deno.test("estimate: an estimated day over undelivered moves to the next working day, one shipment.estimate_changed per move", () =>
  withTestEnv(async (t) => {
    const clientHook = startReceiver();
    try {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const hook = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: clientHook.url },
      });
      assert.equal(hook.status, 201);
      // Booked Monday 2 November, 10:00 in Gaborone: economy estimates Thursday 5.
      const open = await bookEconomy(t, client);
      const done = await bookEconomy(t, client);
      await scan(t, courier, open, { event: "collected" });
      for (const event of ["collected", "out_for_delivery"]) {
        await scan(t, courier, done, { event });
      }
      await scan(t, courier, done, { event: "delivered", received_by: "Neo Kgosi" });

      const row = async (waybill: string) => {
        await t.settle();
        const r = await t.call(
          "GET",
          `/business/courier/operations?q=${waybill}&include_closed=1`,
          {
            key: courier.business.api_key,
          },
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.data[0] as {
          estimated_delivery_on: string;
          promise: { earliest_delivery: string; latest_delivery: string };
        };
      };
      /** The estimate moves the client heard of, one per event id (deliveries may repeat). */
      const moves = (waybill: string) => {
        const byId = new Map<string, string>();
        for (const d of clientHook.deliveries) {
          const body = JSON.parse(d.body);
          if (body.event === "shipment.estimate_changed" && body.data.waybill === waybill) {
            byId.set(body.id, body.data.estimated_delivery_on);
          }
        }
        return [...byId.values()];
      };
      const promise = { earliest_delivery: "2026-11-05", latest_delivery: "2026-11-06" };
      assert.equal((await row(open)).estimated_delivery_on, "2026-11-05");

      // One second before Thursday is over in Gaborone (22:00 UTC): nothing moves yet.
      const thursdayOver = Date.parse("2026-11-05T22:00:00Z");
      await advance(t, (thursdayOver - t.clock.now()) / 1000 - 1);
      assert.equal((await row(open)).estimated_delivery_on, "2026-11-05");
      await advance(t, 1);
      await until(t, () => moves(open).length === 1, "the first estimate move");
      assert.deepEqual(moves(open), ["2026-11-06"]);
      let r = await row(open);
      assert.equal(r.estimated_delivery_on, "2026-11-06");
      assert.deepEqual(r.promise, promise, "the frozen promise never moves");
      const read = await t.call("GET", `/client/shipments/${open}`, { headers: clientKey(client) });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.body.data.estimated_delivery_on, "2026-11-06");

      // Friday over: past the weekend to Monday, one move.
      await advance(t, 24 * 3600);
      await until(t, () => moves(open).length === 2, "the second estimate move");
      // Through the weekend to Monday's start: the estimate stands, no more events. A stage
      // webhook after it arrives once whatever this shipment's changes made before it has.
      await advance(t, 48 * 3600);
      await scan(t, courier, open, { event: "out_for_delivery" });
      const stages = () =>
        clientHook.deliveries.map((d) => JSON.parse(d.body))
          .filter((b) => b.event === "shipment.out_for_delivery" && b.data.waybill === open);
      await until(t, async () => {
        await advance(t, 0);
        return stages().length > 0;
      }, "the out_for_delivery stage webhook");
      assert.deepEqual(moves(open), ["2026-11-06", "2026-11-09"]);
      r = await row(open);
      assert.equal(r.estimated_delivery_on, "2026-11-09");
      assert.deepEqual(r.promise, promise);

      // Delivered on Monday the 2nd: its estimate never moves, and no event says it did.
      assert.equal((await row(done)).estimated_delivery_on, "2026-11-05");
      assert.deepEqual(moves(done), []);
    } finally {
      await clientHook.close();
    }
  }));

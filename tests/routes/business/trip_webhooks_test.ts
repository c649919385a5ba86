/**
 * Business API 6 end to end: a booking and its cancellation reach the business's webhook URL,
 * signed, each carrying the booking's external_reference (2.1, 2.7), with an id that stays the
 * same if the item is handled again; another business's URL gets nothing.
 */
import assert from "node:assert/strict";
import { verifyV1, verifyV2 } from "../../../src/domain/signatures.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

Deno.test("trip webhooks: trip.created and trip.cancelled reach the URL, signed, with the external_reference", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    const other = startReceiver();
    try {
      const b = await fundedBusiness(t);
      const c = await fundedBusiness(t);
      const pairs: [string, string][] = [[b.api_key, receiver.url], [c.api_key, other.url]];
      for (const [key, url] of pairs) {
        const r = await t.call("PATCH", "/business/profile", { key, body: { webhook_url: url } });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const booked = await book(t, b.api_key, { ...PARCEL, external_reference: "ORD-77" });
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      const trip = booked.body.data;
      const cancelled = await t.call("POST", `/business/trips/${trip.id}/cancel`, {
        key: b.api_key,
        body: { reason: "customer changed their mind" },
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      await until(t, () => receiver.deliveries.length >= 2, "the two trip webhooks");

      const bodies = receiver.deliveries.map((d) => JSON.parse(d.body));
      assert.deepEqual(bodies.map((x) => x.event).sort(), ["trip.cancelled", "trip.created"]);
      for (const [i, d] of receiver.deliveries.entries()) {
        const body = bodies[i];
        assert.equal(body.external_reference, "ORD-77");
        assert.equal(body.id, body.event_id);
        assert.equal(d.headers.get("X-Service-Delivery"), body.id);
        assert.equal(d.headers.get("X-Service-Event"), body.event);
        const ts = Number(d.headers.get("X-Service-Timestamp"));
        const sig = d.headers.get("X-Service-Signature");
        assert.deepEqual(await verifyV1(b.webhook_secret, d.body, sig), { ok: true });
        const v2 = d.headers.get("X-Service-Signature-V2");
        assert.deepEqual(await verifyV2(b.webhook_secret, d.body, v2, ts), { ok: true });
      }
      const cancel = bodies.find((x) => x.event === "trip.cancelled");
      assert.equal(cancel.data.reference, trip.reference);
      assert.equal(cancel.data.reason, "customer changed their mind");
      assert.equal(cancel.data.cancelled_by, "api_key", "the principal that cancelled");
      await t.settle();
      assert.equal(other.deliveries.length, 0, "another business's URL gets nothing");
    } finally {
      await receiver.close();
      await other.close();
    }
  }));

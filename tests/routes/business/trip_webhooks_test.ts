/**
 * Business API 6 end to end: a booking and its cancellation reach the business's webhook URL,
 * signed, each carrying the booking's external_reference (2.1, 2.7), with an id that stays the
 * same if the item is handled again; another business's URL gets nothing. Each carries the trip's
 * tracking_url as reads answer it, null once the link is revoked (2.2, 2.4 rule 6). A batch's
 * stops carry the batch's reference (2.3).
 */
import assert from "node:assert/strict";
import { verifyV1, verifyV2 } from "../../../src/domain/signature_verification.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { LINE, postBatch } from "./batch_fixtures.ts";
import { book, fundedBusiness, hooked, PARCEL } from "./trips_fixtures.ts";

Deno.test("trip webhooks: trip.created and trip.cancelled reach the URL, signed, with the external_reference and the tracking_url, null once revoked", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    const other = startReceiver();
    try {
      const b = await fundedBusiness(t);
      const c = await fundedBusiness(t);
      for (const [who, to] of [[b, receiver], [c, other]] as const) {
        const r = await t.call("PATCH", "/business/profile", {
          key: who.api_key,
          body: { webhook_url: to.url },
        });
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
      const revoked = await revokedThenCancelled(t, b.api_key);
      // Each trip: trip.created, trip.cancelled, and trip.cancelled again once refunded.
      await until(t, () => receiver.deliveries.length >= 6, "the two trips' webhooks");

      const deliveries = receiver.deliveries
        .filter((d) => JSON.parse(d.body).data.reference === trip.reference);
      const bodies = deliveries.map((d) => JSON.parse(d.body));
      assert.deepEqual(bodies.map((x) => x.event).sort(), [
        "trip.cancelled",
        "trip.cancelled",
        "trip.created",
      ]);
      for (const [i, d] of deliveries.entries()) {
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
      const cancels = bodies.filter((x) => x.event === "trip.cancelled");
      // spec: business 6: trip.cancelled includes the refund status: pending as the trip is
      // cancelled (the wallet credits it after), refunded when trip.cancelled reports the credit.
      assert.deepEqual(cancels.map((x) => x.data.refund_status).sort(), ["pending", "refunded"]);
      assert.notEqual(cancels[0].id, cancels[1].id, "two facts, two ids");
      const cancel = cancels.find((x) => x.data.refund_status === "pending");
      const refunded = cancels.find((x) => x.data.refund_status === "refunded");
      const read = await t.call("GET", `/business/trips/${trip.id}`, { key: b.api_key });
      assert.match(trip.tracking_url, /\/api\/trip-track\/trk_/);
      assert.equal(read.body.data.tracking_url, trip.tracking_url);
      for (const x of bodies) assert.equal(x.data.tracking_url, trip.tracking_url, x.event);
      assert.equal(cancel.data.reference, trip.reference);
      assert.equal(cancel.data.reason, "customer changed their mind");
      assert.equal(cancel.data.cancelled_by, "business", "the business cancelled it");
      assert.equal(Number(cancel.data.refund_amount), trip.billing_amount);
      assert.equal(refunded.data.refund_status, "refunded");
      assert.equal(Number(refunded.data.refund_amount), trip.billing_amount);
      assert.equal(refunded.data.reason, "customer changed their mind");
      // spec: business 2.4 rule 6: a webhook after the link was revoked says tracking_url null.
      const sent = receiver.deliveries.map((d) => JSON.parse(d.body))
        .filter((x) => x.data.reference === revoked.reference);
      const urlOf = (event: string) => sent.find((x) => x.event === event)?.data.tracking_url;
      assert.equal(urlOf("trip.created"), revoked.tracking_url, "on while it was booked");
      assert.equal(urlOf("trip.cancelled"), null, "revoked before the cancellation");
      assert.ok(
        sent.filter((x) => x.event === "trip.cancelled").every((x) => !x.data.tracking_url),
      );
      await t.settle();
      assert.equal(other.deliveries.length, 0, "another business's URL gets nothing");
    } finally {
      await receiver.close();
      await other.close();
    }
  }));

/** A second trip whose tracking link is revoked before it is cancelled (business 2.4 rule 6). */
async function revokedThenCancelled(t: TestEnv, key: string) {
  const booked = await book(t, key, { ...PARCEL, external_reference: "ORD-78" });
  const trip = booked.body.data;
  const revoked = await t.call("POST", `/business/trips/${trip.id}/tracking-link/revoke`, { key });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assert.equal(revoked.body.data.tracking_url, null);
  const cancelled = await t.call("POST", `/business/trips/${trip.id}/cancel`, { key, body: {} });
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  return trip as { reference: string; tracking_url: string };
}

Deno.test("trip webhooks: a batch's stops carry the batch's reference and their place in it", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const references = [{ external_reference: "BATCH-9" }, { batch_reference: "RUN-4" }];
      for (const reference of references) {
        const made = await postBatch(t, b.api_key, {
          segment: "parcel",
          stops: LINE,
          ...reference,
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      }
      await until(t, () => receiver.deliveries.length >= 6, "the stops' trip.created");
      const created = receiver.deliveries.map((d) => JSON.parse(d.body))
        .filter((x) => x.event === "trip.created");
      const of = (ref: string) =>
        created.filter((x) => x.external_reference === ref)
          .map((x) => x.data.batch.position).sort();
      // spec: business 2.7: every event carries the business's reference: a stop's is its batch's.
      assert.deepEqual(of("BATCH-9"), [1, 2, 3]);
      assert.deepEqual(of("RUN-4"), [1, 2, 3]);
      for (const x of created) {
        assert.equal(x.data.external_reference, null, "no reference of its own");
        assert.equal(x.data.batch.stops, 3);
      }
    } finally {
      await receiver.close();
    }
  }));

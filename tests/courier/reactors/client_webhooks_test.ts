/**
 * Client webhooks (courier 2.12, 6.2) and signing-secret rotation (courier 6.1): a client's own
 * shipments only, customer-safe fields only, signed with the client's own secret; after a
 * rotation the previous key still verifies during its grace period, and not after; an event whose
 * making fails for a moment is still made, once.
 */
import assert from "node:assert/strict";
import {
  outboundEventActor,
  type OutboundEventEvent,
} from "../../../actors/platform/outbound_event/mod.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { ClientWebhooks } from "../../../src/courier/reactors/client_webhooks.ts";
import { verifyV2, verifyV3 } from "../../../src/domain/signature_verification.ts";
import { WEBHOOK_SECRET_GRACE_MS } from "../../../src/limits.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, clientKey, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";
import { flakyRuntime } from "../../helpers/faults.ts";

Deno.test("client webhook: own shipments only, customer-safe, signed with the client's secret", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const courier = await newCourier(t);
      const withHook = await newClient(t, courier);
      const without = await newClient(t, courier);
      await topUp(t, courier, withHook, "500");
      await topUp(t, courier, without, "500");

      const refused = await t.call("POST", "/client/webhook", {
        headers: clientKey(withHook),
        body: { url: "http://10.0.0.5/hook" },
      });
      assert.equal(refused.status, 422, "a private address is refused");
      const set = await t.call("POST", "/client/webhook", {
        headers: clientKey(withHook),
        body: { url: `${receiver.url}/client` },
      });
      assert.equal(set.status, 201, JSON.stringify(set.body));
      const secret: string = set.body.data.webhook_secret;
      assert.match(secret, /^whsec_/);

      const mine = await bookWaybill(t, withHook, { client_order_reference: "SHOP-7" });
      await bookWaybill(t, without);
      const eventId = await eventIdOf("client_webhook", courier.business.id, mine, "booked");
      await until(t, async () => {
        const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
          kind: "get",
        });
        return got.ok;
      }, "the webhook event");
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "the client webhook");

      assert.equal(receiver.deliveries.length, 1, "the other client's shipment is not sent here");
      const d = receiver.deliveries[0]!;
      assert.equal(d.headers.get("X-Service-Event"), "shipment.booked");
      assert.equal(d.headers.get("X-Service-Delivery"), eventId);
      // spec: courier 9.1, every delivery says its version, in a header and in the body.
      assert.equal(d.headers.get("X-Service-Api-Version"), "v1");
      const now = Number(d.headers.get("X-Service-Timestamp"));
      assert.deepEqual(
        await verifyV2(secret, d.body, d.headers.get("X-Service-Signature-V2"), now),
        { ok: true },
      );
      // Never the courier's secret.
      assert.deepEqual(
        await verifyV2(
          courier.business.webhook_secret,
          d.body,
          d.headers.get("X-Service-Signature-V2"),
          now,
        ),
        { ok: false, reason: "bad_signature" },
      );
      const body = JSON.parse(d.body);
      assert.deepEqual(Object.keys(body).sort(), [
        "api_version",
        "client",
        "data",
        "event",
        "event_id",
        "id",
        "timestamp",
      ]);
      assert.equal(body.id, eventId);
      assert.equal(body.api_version, "v1");
      assert.equal(body.event_id, eventId);
      assert.equal(body.event, "shipment.booked");
      assert.deepEqual(Object.keys(body.data).sort(), [
        "at",
        "client_order_reference",
        "condition",
        "stage",
        "status",
        "waybill",
      ]);
      assert.equal(body.data.waybill, mine);
      assert.equal(body.data.client_order_reference, "SHOP-7");
      assert.equal(body.data.stage, "booked");
      assert.doesNotMatch(d.body, /amount|price|declared|total|BWP/);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("secret rotation: the previous key verifies during the grace period only", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const courier = await newCourier(t);
      const key = courier.business.api_key;
      const r = await t.call("PUT", "/business/courier/billing/endpoint", {
        key,
        body: { url: receiver.url },
      });
      assert.equal(r.status, 200);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const profile = await t.call("GET", "/business/profile", { key });
      const oldKeyId: string = profile.body.data.webhook_key_id;
      assert.match(oldKeyId, /^whk_/);
      const rotated = await t.call("POST", "/business/webhook-secret/regenerate", { key });
      assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
      const fresh: { webhook_secret: string; key_id: string } = rotated.body.data;

      const verifyWith = async (held: Record<string, string>, at: number) => {
        const d = receiver.deliveries.at(-1)!;
        return await verifyV3({
          secrets: held,
          rawBody: d.body,
          headers: d.headers,
          nowSeconds: Math.floor(at / 1000),
        });
      };
      // Within the grace period: a receiver holding only the old key still verifies.
      await bookWaybill(t, client);
      await advance(t, 0);
      await until(t, () => receiver.deliveries.length === 1, "a delivery in the grace period");
      const d1 = receiver.deliveries[0]!;
      assert.equal(d1.headers.get("X-Service-Key-Id"), fresh.key_id);
      const previousKeyId = d1.headers.get("X-Service-Previous-Key-Id");
      assert.ok(previousKeyId);
      assert.equal(previousKeyId, oldKeyId);
      assert.deepEqual(
        await verifyWith({ [fresh.key_id]: fresh.webhook_secret }, t.clock.now()),
        { ok: true },
      );
      assert.deepEqual(
        await verifyWith({ [previousKeyId]: courier.business.webhook_secret }, t.clock.now()),
        { ok: true },
      );

      // After it: only the new key signs.
      await advance(t, WEBHOOK_SECRET_GRACE_MS / 1000 + 1);
      await bookWaybill(t, client);
      await advance(t, 0);
      await until(t, () => receiver.deliveries.length === 2, "a delivery after the grace period");
      assert.equal(receiver.deliveries[1]!.headers.get("X-Service-Previous-Key-Id"), null);
      assert.deepEqual(
        await verifyWith({ [previousKeyId]: courier.business.webhook_secret }, t.clock.now()),
        { ok: false, reason: "unknown_key" },
      );
      assert.deepEqual(
        await verifyWith({ [fresh.key_id]: fresh.webhook_secret }, t.clock.now()),
        { ok: true },
      );
    } finally {
      await receiver.close();
    }
  }));

Deno.test("client webhook: an event whose commit fails once is made within the delivery, once", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    // The environment's own maker stops; this one's first event commit fails (a store hiccup).
    await t.env.reactors["client_webhooks"]!.close();
    const flaky = flakyRuntime(t.env.runtime, {
      fails: (type, command) =>
        type === outboundEventActor.type &&
        (command as { event?: { stream?: string } }).event?.stream === "client_webhook",
    });
    const errors: unknown[] = [];
    const webhooks = new ClientWebhooks({
      runtime: flaky.runtime,
      bus: t.env.bus,
      retry: { delaysMs: [0, 0, 0] }, // no real waiting: the test drives the bus
      onError: (e) => errors.push(e),
    });
    try {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const set = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: `${receiver.url}/client` },
      });
      assert.equal(set.status, 201, JSON.stringify(set.body));
      const waybill = await bookWaybill(t, client);
      await t.env.bus.flush();
      assert.equal(flaky.failed(), 1, "the first try failed");
      assert.deepEqual(errors, []);
      const eventId = eventIdOf("client_webhook", courier.business.id, waybill, "booked");
      let created = 0;
      for await (const { event } of t.env.runtime.events(outboundEventActor, eventId)) {
        if ((event as OutboundEventEvent).kind === "created") created++;
      }
      assert.equal(created, 1);
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "the client webhook");
    } finally {
      await webhooks.close();
      await receiver.close();
    }
  }));

Deno.test("client webhook: each stage says the status and condition the shipment had at it, when its scans commit together", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const set = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: `${receiver.url}/client` },
      });
      assert.equal(set.status, 201, JSON.stringify(set.body));
      const waybill = await bookWaybill(t, client);
      // Scans sent at once are decided one after the other and may commit as one batch: one
      // change on the bus carrying several stages, and the shipment as the last one left it.
      const stages = [
        "collected",
        "received_at_depot",
        "departed",
        "received_at_destination",
        "out_for_delivery",
      ] as const;
      const recorded = await Promise.all(
        stages.map((event) =>
          t.env.runtime.ask(shipmentActor, courier.business.id, waybill, {
            kind: "record",
            scan: { event, by: "ops" },
          })
        ),
      );
      assert.ok(recorded.every((r) => r.ok), JSON.stringify(recorded));
      const bodies = () => [
        ...new Map(receiver.deliveries.map((d) => {
          const body = JSON.parse(d.body);
          return [body.id as string, body];
        })).values(),
      ];
      await until(t, async () => {
        await advance(t, 0);
        return bodies().length >= stages.length + 1;
      }, "a webhook per stage");
      // spec: courier 2.12: data holds the stage and the shipment's status and condition at it
      // (`at`): a stage reached before a later one never reports the later status.
      for (const body of bodies()) {
        assert.equal(body.data.status, body.data.stage, JSON.stringify(body));
        assert.equal(body.data.condition, "on_schedule", JSON.stringify(body));
      }
    } finally {
      await receiver.close();
    }
  }));

/** What the billing events tests share: an endpoint set, a booking's event, a waiting event. */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { type TestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, type Receiver, startReceiver, until } from "../../helpers/receiver.ts";

export async function setEndpoint(t: TestEnv, courier: Courier, url: string | null) {
  const r = await t.call("PUT", "/business/courier/billing/endpoint", {
    key: courier.business.api_key,
    body: { url },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** The billing event of a booking, once the emitter has made it. */
export async function bookedEvent(t: TestEnv, courier: Courier, client: Client, waybill: string) {
  const id = await eventIdOf("billing", courier.business.id, client.id, waybill);
  await until(t, async () => {
    const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, id, {
      kind: "get",
    });
    return got.ok;
  }, `billing event ${id}`);
  return id;
}

/**
 * A booking's billing event with no endpoint set anywhere: its first attempt found none and it
 * waits for its hourly try (courier 3.1). `state` reads the event.
 */
export async function waitingForEndpoint(t: TestEnv) {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  const waybill = await bookWaybill(t, client);
  const eventId = await bookedEvent(t, courier, client, waybill);
  const state = async () => {
    const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
      kind: "get",
    });
    assert.ok(got.ok && got.reply);
    return got.reply;
  };
  await advance(t, 0);
  await until(t, async () => (await state()).endpoint_missing_at != null, "no endpoint");
  return { courier, eventId, state };
}

export async function withReceiver(fn: (r: Receiver) => Promise<void>) {
  const receiver = startReceiver();
  try {
    await fn(receiver);
  } finally {
    await receiver.close();
  }
}

/** The courier's billing_endpoint_missing alerts in one status, as its team lists them. */
export async function endpointAlerts(t: TestEnv, courier: Courier, status: "open" | "resolved") {
  await t.settle();
  const r = await t.call(
    "GET",
    `/business/courier/alerts?kind=billing_endpoint_missing&status=${status}`,
    { key: courier.business.api_key },
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    id: string;
    subject: { id: string };
    resolution: string | null;
    evidence: string | null;
    resolved_by: string | null;
  }[];
}

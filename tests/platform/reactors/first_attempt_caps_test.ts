/**
 * The engine's first attempts for events not made yet (OutboundDelivery.attemptFirst, issue 36
 * item 2): a tenant whose endpoint holds its answers has at most TENANT_INFLIGHT_ATTEMPTS_MAX
 * under way; past that none is made (the caller makes the actor, attempted by the capped pumps),
 * and other tenants are not held back.
 */
import assert from "node:assert/strict";
import {
  type NewOutboundEvent,
  outboundEventActor,
} from "../../../actors/platform/outbound_event/mod.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import {
  OutboundDelivery,
  TENANT_INFLIGHT_ATTEMPTS_MAX,
} from "../../../src/platform/reactors/deliver.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";

Deno.test("OutboundDelivery: first attempts of a tenant whose endpoint holds them stop at its share; others go on", async () => {
  const clock = new ManualClock();
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock,
    definitions: [outboundEventActor],
    onError: () => {},
  });
  await runtime.start();
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const gate = Promise.withResolvers<void>();
  const sent: string[] = [];
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey,
    clock,
    allowLoopback: true,
    // The slow tenant's endpoint answers once the gate opens; the other's at once.
    send: async (request) => {
      sent.push(request.url.pathname);
      if (request.url.pathname === "/slow") await gate.promise;
      return { status: 200 };
    },
  });
  const targetOf = async (tenant: string) => ({
    url: `http://127.0.0.1:9/${tenant}`,
    key_id: "whk_1",
    sealed_secret: await seal(dataKey, "whsec_x", sealOwner("business_webhook", tenant, tenant)),
  });
  const eventOf = (n: number): NewOutboundEvent => ({
    event_id: `evt_${n}`,
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: "{}",
    recipient: { kind: "courier" },
  });
  try {
    const slow = await targetOf("slow");
    const held = Array.from(
      { length: TENANT_INFLIGHT_ATTEMPTS_MAX },
      (_, n) => delivery.attemptFirst("slow", eventOf(n), slow),
    );
    while (sent.length < TENANT_INFLIGHT_ATTEMPTS_MAX) await new Promise((r) => setTimeout(r, 1));
    assert.equal(await delivery.attemptFirst("slow", eventOf(99), slow), null, "over its share");
    const other = await delivery.attemptFirst("fast", eventOf(100), await targetOf("fast"));
    assert.equal(other?.outcome.result, "delivered");
    gate.resolve();
    const done = await Promise.all(held);
    assert.ok(done.every((d) => d?.outcome.result === "delivered"));
    // The share is free again once they are answered.
    assert.notEqual(await delivery.attemptFirst("slow", eventOf(101), slow), null);
    assert.equal(sent.length, TENANT_INFLIGHT_ATTEMPTS_MAX + 2);
  } finally {
    await delivery.close();
    await runtime.close();
    store.close();
  }
});

/**
 * The outbound engine's caps on attempts under way, across overlapping pumps: one tenant whose
 * endpoint holds its answers takes at most its share, the engine as a whole never more than its
 * bound, and events skipped for a cap stay due and are delivered once the endpoint answers.
 */
import assert from "node:assert/strict";
import {
  type NewOutboundEvent,
  outboundEventActor,
} from "../../../actors/platform/outbound_event/mod.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import {
  INFLIGHT_ATTEMPTS_MAX,
  OutboundDelivery,
  TENANT_INFLIGHT_ATTEMPTS_MAX,
} from "../../../src/platform/reactors/deliver.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";

/**
 * A loopback receiver keeping the requests of the `held` tenants open until `release()`, and
 * answering others at once; `/<tenant>` paths tell the tenants apart. It counts the requests open
 * at once, per tenant and in all.
 */
function openHoldingReceiver(held: ReadonlySet<string>) {
  const open = new Map<string, number>();
  const openMax = new Map<string, number>();
  const hits = new Map<string, number>();
  let openTotal = 0;
  let openTotalMax = 0;
  let arrivals = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  let gate = Promise.withResolvers<void>();
  let holding = true;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req): Promise<Response> => {
      const tenant = new URL(req.url).pathname.slice(1);
      const eventId = req.headers.get("x-service-event-id") ?? "";
      await req.arrayBuffer();
      hits.set(eventId, (hits.get(eventId) ?? 0) + 1);
      const now = (open.get(tenant) ?? 0) + 1;
      open.set(tenant, now);
      openMax.set(tenant, Math.max(openMax.get(tenant) ?? 0, now));
      openTotalMax = Math.max(openTotalMax, ++openTotal);
      arrivals++;
      for (const w of waiters.filter((w) => arrivals >= w.n)) w.resolve();
      if (holding && held.has(tenant)) await gate.promise;
      open.set(tenant, (open.get(tenant) ?? 1) - 1);
      openTotal--;
      return new Response("ok");
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    urlOf: (tenant: string) => `${base}/${tenant}`,
    open,
    openMax,
    hits,
    get openTotalMax() {
      return openTotalMax;
    },
    /** Resolves once `n` requests have arrived in all. */
    arrived(n: number): Promise<void> {
      const w = Promise.withResolvers<void>();
      if (arrivals >= n) w.resolve();
      else waiters.push({ n, resolve: w.resolve });
      return w.promise;
    },
    release() {
      holding = false;
      gate.resolve();
      gate = Promise.withResolvers<void>();
    },
    close: () => server.shutdown(),
  };
}

Deno.test("OutboundDelivery: a slow tenant holds at most its share, the engine its bound, over overlapping pumps", async () => {
  const clock = new ManualClock();
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const errors: unknown[] = [];
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock,
    definitions: [outboundEventActor],
    onError: (e) => errors.push(e),
  });
  await runtime.start();
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey,
    clock,
    allowLoopback: true,
    onError: (e) => errors.push(e),
  });
  const slow = ["biz_slow", "biz_s1", "biz_s2", "biz_s3", "biz_s4"];
  const receiver = openHoldingReceiver(new Set(slow));
  const events: { tenant: string; id: string }[] = [];
  const createFor = async (tenant: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `evt_${tenant}_${i}`;
      const event: NewOutboundEvent = {
        event_id: id,
        stream: "billing",
        event_type: "shipment.booked",
        raw_body: `{"event_id":"${id}"}`,
        target: {
          url: receiver.urlOf(tenant),
          key_id: "key_1",
          sealed_secret: await seal(
            dataKey,
            "whsec_caps",
            sealOwner("outbound_target", tenant, id),
          ),
        },
      };
      const r = await runtime.ask(outboundEventActor, tenant, id, { kind: "create", event });
      assert.ok(r.ok);
      events.push({ tenant, id });
    }
    await bus.flush();
  };
  const statusOf = async (tenant: string, id: string) => {
    const r = await runtime.ask(outboundEventActor, tenant, id, { kind: "get" });
    assert.ok(r.ok && r.reply);
    return r.reply.status;
  };
  const pumps: Promise<number>[] = [];
  try {
    // One tenant with many due events and an endpoint that does not answer; two pumps at once,
    // as the pump loop starts one while the last still waits.
    await createFor("biz_slow", 30);
    pumps.push(delivery.pump(), delivery.pump());
    await receiver.arrived(TENANT_INFLIGHT_ATTEMPTS_MAX);
    assert.equal(delivery.attemptsInFlight, TENANT_INFLIGHT_ATTEMPTS_MAX);
    assert.equal(receiver.openMax.get("biz_slow"), TENANT_INFLIGHT_ATTEMPTS_MAX);
    assert.equal(delivery.dueCount, 30 - TENANT_INFLIGHT_ATTEMPTS_MAX, "the rest stay due");

    // Another tenant's event is delivered meanwhile, by the next pump.
    await createFor("biz_other", 1);
    assert.equal(await delivery.pump(), 1);
    assert.equal(await statusOf("biz_other", "evt_biz_other_0"), "delivered");
    assert.equal(receiver.open.get("biz_slow"), TENANT_INFLIGHT_ATTEMPTS_MAX, "still held");

    // More slow tenants than the engine has room for: it never runs more than its bound.
    const slowMore = slow.slice(1);
    assert.ok(slow.length * TENANT_INFLIGHT_ATTEMPTS_MAX > INFLIGHT_ATTEMPTS_MAX);
    for (const tenant of slowMore) await createFor(tenant, 10);
    pumps.push(delivery.pump(), delivery.pump());
    // The first tenant's share, the other tenant's event, then the engine filled.
    await receiver.arrived(1 + INFLIGHT_ATTEMPTS_MAX);
    assert.equal(delivery.attemptsInFlight, INFLIGHT_ATTEMPTS_MAX);

    // The endpoint answers: everything skipped is attempted, once each, and delivered.
    receiver.release();
    await Promise.all(pumps);
    while ((await delivery.pump()) > 0) await bus.flush();
    for (const { tenant, id } of events) {
      assert.equal(await statusOf(tenant, id), "delivered", id);
      assert.equal(receiver.hits.get(id), 1, `${id} sent once`);
    }
    assert.equal(delivery.dueCount, 0);
    assert.equal(delivery.attemptsInFlight, 0);
    for (const [tenant, max] of receiver.openMax) {
      assert.ok(max <= TENANT_INFLIGHT_ATTEMPTS_MAX, `${tenant} had ${max} open at once`);
    }
    assert.ok(receiver.openTotalMax <= INFLIGHT_ATTEMPTS_MAX, `${receiver.openTotalMax} at once`);
    assert.deepEqual(errors, []);
  } finally {
    receiver.release();
    await delivery.close();
    await runtime.close();
    await bus.drain();
    store.close();
    await receiver.close();
  }
});

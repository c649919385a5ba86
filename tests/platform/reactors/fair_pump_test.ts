/**
 * The outbound engine's fairness (issue 42 item 4), with small bounds: one tenant's dead endpoint
 * with many pending events delays no other tenant's delivery, and a recipient's backlog made due
 * at once when it sets an endpoint goes out at the bounded rate, pump after pump.
 */
import assert from "node:assert/strict";
import {
  type NewOutboundEvent,
  outboundEventActor,
  type Recipient,
} from "../../../actors/platform/outbound_event/mod.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import { type DeliveryTarget, OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import type { DeliveryLimits } from "../../../src/platform/reactors/delivery_limits.ts";
import type { OutboundRequest } from "../../../src/outbound/pinned_post.ts";
import { ATTEMPT_LEASE_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";

const HOUR = 60 * 60_000;
/** Where the fake sender answers 500: a dead endpoint. */
const DEAD = "/dead";

interface Engine {
  readonly clock: ManualClock;
  readonly runtime: ActorRuntime;
  readonly delivery: OutboundDelivery;
  readonly dataKey: CryptoKey;
  /** The paths sent to, in order. */
  readonly sent: string[];
  /** Fires due timers, lets the bus deliver, runs one pump; answers the attempts made. */
  step(): Promise<number>;
  create(tenant: string, event: NewOutboundEvent, endpointMissing?: boolean): Promise<void>;
  statusOf(tenant: string, id: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * An engine whose sender records each request's path and answers at once: 500 on DEAD, 200
 * elsewhere, so no socket is opened. `targets`: where recipients' events go now.
 */
async function openEngine(
  limits: Partial<DeliveryLimits>,
  targets?: (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>,
): Promise<Engine> {
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
  const sent: string[] = [];
  const send = (request: OutboundRequest) => {
    sent.push(request.url.pathname);
    return Promise.resolve({ status: request.url.pathname === DEAD ? 500 : 200 });
  };
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey,
    clock,
    allowLoopback: true,
    send,
    limits,
    ...(targets ? { targets } : {}),
    onError: (e) => errors.push(e),
  });
  return {
    clock,
    runtime,
    delivery,
    dataKey,
    sent,
    async step() {
      await runtime.fireDueTimers();
      await bus.flush();
      const attempted = await delivery.pump();
      await bus.flush();
      return attempted;
    },
    async create(tenant, event, endpointMissing = false) {
      const r = await runtime.ask(outboundEventActor, tenant, event.event_id, {
        kind: "create",
        event,
        ...(endpointMissing ? { endpoint_missing: true } : {}),
      });
      assert.ok(r.ok, JSON.stringify(r));
    },
    async statusOf(tenant, id) {
      const r = await runtime.ask(outboundEventActor, tenant, id, { kind: "get" });
      assert.ok(r.ok && r.reply);
      return r.reply.status;
    },
    async close() {
      await delivery.close();
      await runtime.close();
      await bus.drain();
      store.close();
      assert.deepEqual(errors, [], "no runtime or delivery errors");
    },
  };
}

/** A billing event of `tenant` to a fixed target at `path`. */
async function fixedEvent(e: Engine, tenant: string, id: string, path: string) {
  const owner = sealOwner("outbound_target", tenant, id);
  return {
    event_id: id,
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: `{"event_id":"${id}"}`,
    target: {
      url: `http://127.0.0.1:9${path}`,
      key_id: "key_1",
      sealed_secret: await seal(e.dataKey, "whsec_fair", owner),
    },
  } satisfies NewOutboundEvent;
}

Deno.test("OutboundDelivery: a tenant's dead endpoint with hundreds of due events delays no other tenant's event", async () => {
  const limits = { dueSetMax: 50, tenantDueSetMax: 20, inflightMax: 8, tenantInflightMax: 4 };
  const e = await openEngine(limits);
  try {
    // Tenant A: 300 events made due, to an endpoint answering 500, before B's one event.
    for (let i = 0; i < 300; i++) {
      await e.create("biz_a", await fixedEvent(e, "biz_a", `evt_a${i}`, DEAD));
    }
    await e.create("biz_b", await fixedEvent(e, "biz_b", "evt_b", "/b"));
    const first = await e.step();
    assert.equal(await e.statusOf("biz_b", "evt_b"), "delivered", "B attempted in the first pump");
    assert.equal(e.sent.filter((p) => p === "/b").length, 1);
    // A's hints beyond its share of the set were left out: it was attempted no more than that.
    assert.equal(e.sent.filter((p) => p === DEAD).length, limits.tenantDueSetMax);
    assert.equal(first, limits.tenantDueSetMax + 1);
    assert.equal(e.delivery.dueCount, 0);

    // A's events left out come back by their leases (those attempted, by their retry).
    e.clock.advanceBy(ATTEMPT_LEASE_MS);
    assert.equal(await e.step(), limits.tenantDueSetMax);
    let attempts = 0;
    for (let i = 0; i < 300; i++) {
      const r = await e.runtime.read(outboundEventActor, "biz_a", `evt_a${i}`, { kind: "get" });
      attempts += r.ok ? r.reply?.attempts_total ?? 0 : 0;
    }
    assert.equal(attempts, 2 * limits.tenantDueSetMax);
  } finally {
    await e.close();
  }
});

Deno.test("OutboundDelivery: an endpoint set hours into a wait gets its backlog at the bounded rate, not at once", async () => {
  const limits = { recipientAttemptsPerSecondMax: 3 };
  let courierEndpoint = false;
  let e: Engine | undefined = undefined;
  const targets = async (tenant: string, recipient: Recipient) => {
    if (recipient.kind === "courier" && !courierEndpoint) return null;
    const [path, owner] = recipient.kind === "client"
      ? [`/client/${recipient.client_id}`, sealOwner("client_webhook", tenant, recipient.client_id)]
      : ["/courier", sealOwner("business_webhook", tenant, tenant)];
    return {
      url: `http://127.0.0.1:9${path}`,
      key_id: "key_1",
      sealed_secret: await seal(e!.dataKey, "whsec_fair", owner),
    };
  };
  e = await openEngine(limits, targets);
  const event = (id: string, recipient: Recipient): NewOutboundEvent => ({
    event_id: id,
    stream: recipient.kind === "courier" ? "billing" : "client_webhook",
    event_type: "shipment.booked",
    raw_body: `{"event_id":"${id}"}`,
    recipient,
  });
  try {
    // Ten billing events wait for the courier's endpoint (courier 3.1: tried again hourly).
    const ids = Array.from({ length: 10 }, (_, i) => `evt_wait${i}`);
    for (const id of ids) await e.create("biz_a", event(id, { kind: "courier" }), true);
    e.clock.advanceBy(3 * HOUR + 30 * 60_000);
    // Their hourly tries find none, and send nothing (each is counted at the bound too: a
    // lookup and a write).
    let tried = await e.step();
    while (e.delivery.dueCount > 0 && tried < 20) {
      e.clock.advanceBy(1000);
      tried += await e.step();
    }
    assert.equal(tried, 10);
    assert.deepEqual(e.sent, []);
    e.clock.advanceBy(1000);

    // The endpoint is set: every waiting event is due at once (delivery_targets.ts asks each).
    courierEndpoint = true;
    for (const id of ids) {
      const r = await e.runtime.ask(outboundEventActor, "biz_a", id, { kind: "endpoint_set" });
      assert.ok(r.ok);
    }
    // A client's event due at the same moment is not held behind the courier's backlog.
    await e.create("biz_a", event("evt_client", { kind: "client", client_id: "cli_1" }));
    assert.equal(await e.step(), 3 + 1, "the first pump: the bound, and the client's event");
    assert.deepEqual(e.sent.filter((p) => p === "/courier").length, 3);
    assert.equal(await e.statusOf("biz_a", "evt_client"), "delivered");
    assert.equal(await e.step(), 0, "nothing more within the same second");
    assert.equal(e.delivery.dueCount, 7, "the rest stay due");

    // Later pumps send the rest, at most the bound each second.
    const perSecond: number[] = [];
    while (e.delivery.dueCount > 0 && perSecond.length < 10) {
      e.clock.advanceBy(1000);
      perSecond.push(await e.step());
    }
    assert.deepEqual(perSecond, [3, 3, 1]);
    for (const id of ids) assert.equal(await e.statusOf("biz_a", id), "delivered", id);
    assert.equal(e.sent.filter((p) => p === "/courier").length, 10, "each sent once");
  } finally {
    await e.close();
  }
});

Deno.test("OutboundDelivery: a recipient's fresh events are live traffic, not held to the backlog's rate; their retries are", async () => {
  const limits = { recipientAttemptsPerSecondMax: 3 };
  let e: Engine | undefined = undefined;
  const targets = async (tenant: string, _recipient: Recipient) => ({
    url: `http://127.0.0.1:9${DEAD}`,
    key_id: "key_1",
    sealed_secret: await seal(
      e!.dataKey,
      "whsec_fair",
      sealOwner("client_webhook", tenant, "cli_1"),
    ),
  });
  e = await openEngine(limits, targets);
  try {
    const ids = Array.from({ length: 10 }, (_, i) => `evt_live${i}`);
    for (const id of ids) {
      await e.create("biz_a", {
        event_id: id,
        stream: "client_webhook",
        event_type: "shipment.booked",
        raw_body: `{"event_id":"${id}"}`,
        recipient: { kind: "client", client_id: "cli_1" },
      });
    }
    // Ten first attempts due in one second: all made in the first pump, past the rate of 3.
    assert.equal(await e.step(), 10);
    assert.equal(e.sent.length, 10);
    // Each failed (a dead endpoint): their retries, a minute on, are a backlog, at the rate.
    e.clock.advanceBy(60_000);
    assert.equal(await e.step(), 3, "the retries due at once go at the bound");
  } finally {
    await e.close();
  }
});

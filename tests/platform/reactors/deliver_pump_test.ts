/**
 * How the outbound delivery engine works through its events: a restart resumes pending attempts
 * from KV, different events' changes are handled side by side and one event's in order, and an
 * alert hook that fails once is called again within the delivery.
 */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { subjectOf } from "../../../src/bus/bus.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import { ATTEMPT_LEASE_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import {
  create,
  MINUTE,
  newEvent,
  openHarness,
  openReceiver,
  openRuntime,
  setup,
  TENANT,
} from "./deliver_fixtures.ts";

Deno.test("outbound delivery: a restart resumes pending attempts from KV", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const receiver = openReceiver([500]);
  try {
    const retry = await newEvent(dataKey, receiver.url);
    const lost = await newEvent(dataKey, receiver.url);
    const first = await openHarness({ clock, dataKey, path });
    try {
      await create(first, retry);
      assert.equal(await first.step(), 1); // 500: retry due at +1 min
      await create(first, lost);
      // Its attempt comes due, but the process stops before performing it.
      await first.runtime.fireDueTimers();
      assert.equal(first.delivery.dueCount, 1);
    } finally {
      await first.close();
    }
    const second = await openHarness({ clock, dataKey, path });
    try {
      assert.equal(await second.step(), 0, "nothing is due yet");
      assert.equal((await second.get(lost.event_id)).status, "pending");
      // The retry at +1 min, and the lost attempt once its lease is over.
      clock.advanceBy(Math.max(MINUTE, ATTEMPT_LEASE_MS));
      assert.equal(await second.step(), 2, "both attempts run after the restart");
      assert.equal((await second.get(retry.event_id)).status, "delivered");
      assert.equal((await second.get(retry.event_id)).attempts.length, 2);
      const resumed = await second.get(lost.event_id);
      assert.equal(resumed.status, "delivered");
      assert.equal(resumed.attempts.length, 1);
      assert.equal(receiver.hits.length, 3);
    } finally {
      await second.close();
    }
  } finally {
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OutboundDelivery: changes of different events are handled side by side, one event's in order", async () => {
  const clock = new ManualClock();
  const { store, bus, runtime } = await openRuntime(clock);
  const entered: string[] = [];
  const gate = Promise.withResolvers<void>();
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    clock,
    allowLoopback: true,
    onEndpointMissing: async (_tenant, event) => {
      entered.push(event.event_id);
      await gate.promise;
    },
  });
  const change = (id: string, version: number) => ({
    env: "test",
    tenant: TENANT,
    type: outboundEventActor.type,
    id,
    version,
    events: [{ seq: version, at: 0, event: { kind: "endpoint_missing" } }],
    snapshot: { event_id: `${id}#${version}`, stream: "billing" },
  });
  try {
    // Not awaited: a handler taken in sequence would hold each publish until the gate opens.
    const published = ([["e1", 1], ["e2", 1], ["e1", 2], ["e3", 1]] as const).map(([id, version]) =>
      bus.publish(subjectOf("test", TENANT, outboundEventActor.type, id), change(id, version))
    );
    for (let turn = 0; turn < 50 && entered.length < 3; turn++) {
      await new Promise((r) => setTimeout(r, 0));
    }
    // Taken one at a time, the first alert's wait would have kept the other events out.
    assert.deepEqual(entered, ["e1#1", "e2#1", "e3#1"], "e1's second change waits for its first");
    gate.resolve();
    await Promise.all(published);
    await bus.flush();
    assert.deepEqual(entered, ["e1#1", "e2#1", "e3#1", "e1#2"]);
  } finally {
    gate.resolve();
    await delivery.close();
    await runtime.close();
    await bus.drain();
    store.close();
  }
});

Deno.test("OutboundDelivery: an alert hook that fails once is called again within the delivery", async () => {
  const clock = new ManualClock();
  const { store, bus, runtime } = await openRuntime(clock);
  const calls: string[] = [];
  const errors: unknown[] = [];
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    clock,
    allowLoopback: true,
    // spec: courier 6.3: the alert of a failed event is raised, never lost to a moment's failure.
    onFailed: (_tenant, event) => {
      calls.push(event.event_id);
      if (calls.length === 1) throw new Error("alert store unreachable");
    },
    onError: (e) => errors.push(e),
    retry: { delaysMs: [0, 0] }, // no real waiting: the test drives the bus
  });
  try {
    await bus.publish(subjectOf("test", TENANT, outboundEventActor.type, "e1"), {
      env: "test",
      tenant: TENANT,
      type: outboundEventActor.type,
      id: "e1",
      version: 9,
      events: [{ seq: 9, at: 0, event: { kind: "event_failed", at: 0 } }],
      snapshot: { event_id: "e1", stream: "billing" },
    });
    await bus.flush();
    assert.deepEqual(calls, ["e1", "e1"], "called again before the flush is over");
    assert.deepEqual(errors, []);
  } finally {
    await delivery.close();
    await runtime.close();
    await bus.drain();
    store.close();
  }
});

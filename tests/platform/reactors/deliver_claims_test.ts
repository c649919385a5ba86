/**
 * The outbound delivery engine on several instances: a claim lets one of them send a due event
 * and holds it until its lease ends; an event with no endpoint known is noted once per due
 * attempt, without a claim.
 */
import assert from "node:assert/strict";
import {
  ATTEMPT_TIMER,
  type NewOutboundEvent,
  outboundEventActor,
  type OutboundEventState,
} from "../../../actors/platform/outbound_event/mod.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import { ATTEMPT_LEASE_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import type { Ctx } from "../../../src/runtime/actor.ts";
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

/** A billing event for the courier's own endpoint, looked up at each attempt. */
function courierEvent(eventId: string): NewOutboundEvent {
  return {
    event_id: eventId,
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: "{}",
    recipient: { kind: "courier" },
  };
}

Deno.test("two instances on one bus: both hear the due event, the claim lets one send it", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  // A second delivery engine on the same runtime and bus, as a second instance would be.
  const errors: unknown[] = [];
  const second = new OutboundDelivery({
    runtime: h.runtime,
    bus: h.bus,
    dataKey,
    clock,
    allowLoopback: true,
    onError: (e) => {
      errors.push(e);
    },
  });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    await h.runtime.fireDueTimers();
    // Both pumps run at once, each with the event in its due set.
    const [a, b] = await Promise.all([
      h.delivery.attempt(TENANT, event.event_id),
      second.attempt(TENANT, event.event_id),
    ]);
    assert.equal([a, b].filter(Boolean).length, 1, "exactly one instance attempted");
    assert.equal(receiver.hits.length, 1);
    assert.equal((await h.get(event.event_id)).status, "delivered");
    assert.deepEqual(errors, []);
  } finally {
    await second.close();
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound event actor: a claim holds the event for one attempt until its lease ends", () => {
  const ctx = (now: number): Ctx => ({ now, newId: (p) => `${p}_x` });
  const event = courierEvent("evt_claim");
  let state: OutboundEventState = null;
  const apply = (d: ReturnType<typeof outboundEventActor.decide>) => {
    assert.ok(d.ok);
    for (const e of d.events) state = outboundEventActor.evolve(state, e);
  };
  apply(outboundEventActor.decide(state, { kind: "create", event }, ctx(0)));
  apply(outboundEventActor.decide(state, { kind: "claim", attempt_id: "att_a" }, ctx(1)));
  const taken = outboundEventActor.decide(state, { kind: "claim", attempt_id: "att_b" }, ctx(2));
  assert.equal(taken.ok ? "accepted" : taken.code, "claimed");
  // The holder dies: after the lease another attempt may take it.
  apply(
    outboundEventActor.decide(
      state,
      { kind: "claim", attempt_id: "att_b" },
      ctx(2 + ATTEMPT_LEASE_MS),
    ),
  );
  apply(outboundEventActor.decide(state, {
    kind: "record_attempt",
    attempt_id: "att_b",
    outcome: { result: "no_endpoint" },
  }, ctx(3 + ATTEMPT_LEASE_MS)));
  const s = state as OutboundEventState;
  assert.ok(s);
  assert.equal(s.status, "pending");
  assert.equal(s.round_attempts, 0);
  assert.equal(s.claim, null);
  assert.equal(s.next_attempt_at, 3 + ATTEMPT_LEASE_MS + 60 * MINUTE);
});

Deno.test("outbound event actor: a missing endpoint is noted once per due attempt, never during a claim", () => {
  const ctx = (now: number): Ctx => ({ now, newId: (p) => `${p}_x` });
  const event = courierEvent("evt_none");
  let state: OutboundEventState = null;
  const decide = (command: Parameters<typeof outboundEventActor.decide>[1], now: number) => {
    const d = outboundEventActor.decide(state, command, ctx(now));
    assert.ok(d.ok);
    for (const e of d.events) state = outboundEventActor.evolve(state, e);
    return d.events.map((e) => e.kind);
  };
  decide({ kind: "create", event }, 0);
  // Two instances heard the attempt due at 0: the first notes it, the second changes nothing.
  assert.deepEqual(decide({ kind: "endpoint_missing", due_at: 0 }, 5), ["endpoint_missing"]);
  assert.deepEqual(decide({ kind: "endpoint_missing", due_at: 0 }, 6), []);
  assert.equal(state!.next_attempt_at, 5 + 60 * MINUTE);
  // The hourly retry is a new due attempt; one under way in a claim is left alone.
  const retry = 5 + 60 * MINUTE;
  decide({ kind: "claim", attempt_id: "att_a" }, retry);
  assert.deepEqual(decide({ kind: "endpoint_missing", due_at: retry }, retry + 1), []);
  assert.deepEqual(
    decide({ kind: "endpoint_missing", due_at: retry }, retry + ATTEMPT_LEASE_MS),
    ["endpoint_missing"],
  );
});

Deno.test("outbound event actor: made with no endpoint known, its first attempt is noted in the same commit", () => {
  const event = courierEvent("evt_none");
  const d = outboundEventActor.decide(null, { kind: "create", event, endpoint_missing: true }, {
    now: 7,
    newId: (p) => `${p}_x`,
  });
  assert.ok(d.ok);
  // No attempt is due: nothing is sent, the schedule is not spent, it waits an hour.
  assert.deepEqual(d.events.map((e) => e.kind), ["created", "endpoint_missing"]);
  assert.deepEqual(d.timers, [{ op: "set", name: ATTEMPT_TIMER, at: 7 + 60 * MINUTE }]);
  let state: OutboundEventState = null;
  for (const e of d.events) state = outboundEventActor.evolve(state, e);
  assert.equal(state!.status, "pending");
  assert.equal(state!.round_attempts, 0);
  assert.equal(state!.endpoint_missing_at, 7);
  assert.equal(state!.next_attempt_at, 7 + 60 * MINUTE);
  // The same event made again, by a second instance or a replayed change, changes nothing.
  const again = outboundEventActor.decide(
    state,
    { kind: "create", event, endpoint_missing: true },
    {
      now: 9,
      newId: (p) => `${p}_x`,
    },
  );
  assert.ok(again.ok);
  assert.deepEqual(again.events, []);
});

Deno.test("two instances, no endpoint: the attempt is noted once, without a claim", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const { store, bus, runtime } = await openRuntime(clock);
  const deliveries = [0, 1].map(() =>
    new OutboundDelivery({
      runtime,
      bus,
      dataKey,
      clock,
      allowLoopback: true,
      targets: () => Promise.resolve(null),
    })
  );
  try {
    const r = await runtime.ask(outboundEventActor, TENANT, "evt_nowhere", {
      kind: "create",
      event: {
        event_id: "evt_nowhere",
        stream: "billing",
        event_type: "shipment.booked",
        raw_body: "{}",
        recipient: { kind: "courier" },
      },
    });
    assert.ok(r.ok);
    await bus.flush();
    await Promise.all(deliveries.map((d) => d.pump()));
    await bus.flush();
    const kinds: string[] = [];
    for await (const e of runtime.events(outboundEventActor, "evt_nowhere")) {
      kinds.push((e.event as { kind: string }).kind);
    }
    assert.deepEqual(kinds, ["created", "attempt_due", "endpoint_missing"]);
  } finally {
    for (const d of deliveries) await d.close();
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

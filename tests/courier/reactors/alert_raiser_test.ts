/**
 * The shipment alert raiser (courier 2.9, 6.3): each `alert_due` a shipment commits becomes its
 * alert once. A raise that fails for a moment is raised again within the delivery, so the bus's
 * flush (which the runtime's recovery markers wait for) covers it; one that keeps failing is
 * reported after a bounded number of tries and never holds the flush for ever, and is deferred:
 * kept and raised by a later try on the clock (src/platform/reactors/deferred.ts).
 */
import assert from "node:assert/strict";
import { alertActor, type AlertEvent } from "../../../actors/courier/alert.ts";
import { deferredWorkActor, deferredWorkId } from "../../../actors/platform/deferred_work.ts";
import { DeferredWorks } from "../../../src/platform/reactors/deferred.ts";
import { DEFERRED_WORK_RETRY_MS } from "../../../src/limits.ts";
import {
  type AlertDue,
  shipmentActor,
  type ShipmentEvent,
} from "../../../actors/courier/shipment/mod.ts";
import { accept, type ActorDefinition } from "../../../src/runtime/actor.ts";
import { type ActorChange, subjectOf } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { RetriesExhausted } from "../../../src/bus/retry.ts";
import { alertIdOf } from "../../../src/courier/flows/alerts.ts";
import { ShipmentAlertRaiser } from "../../../src/courier/reactors/alert_raiser.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { flakyRuntime } from "../../helpers/faults.ts";

const TENANT = "biz_courier";
const WAYBILL = "WB-ALERT-1";
/** No real waiting between tries: the tests drive the bus, never a clock. */
const NO_WAIT = { delaysMs: [0, 0, 0] };

const DUE: AlertDue = {
  kind: "no_scan",
  condition_key: `${WAYBILL}:no_scan`,
  owner: "courier",
  message: "no scan for 24 hours",
  detail: {},
};

interface Setup {
  readonly runtime: ActorRuntime;
  readonly bus: MemoryBus;
  readonly clock: ManualClock;
}

async function withRuntime(run: (s: Setup) => Promise<void>): Promise<void> {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const clock = new ManualClock();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock,
    definitions: [alertActor, deferredWorkActor],
  });
  await runtime.start();
  try {
    await run({ runtime, bus, clock });
  } finally {
    await runtime.close();
    await bus.drain();
    store.close();
  }
}

/** A shipment's change carrying one `alert_due`, as the runtime publishes it after the commit. */
async function publishAlertDue(bus: MemoryBus): Promise<void> {
  const event: ShipmentEvent = { kind: "alert_due", alert: DUE };
  const change: ActorChange = {
    env: "test",
    tenant: TENANT,
    type: "shipment",
    id: WAYBILL,
    version: 7,
    events: [{ seq: 7, at: 0, event }],
  };
  await bus.publish(subjectOf("test", TENANT, "shipment", WAYBILL), change);
}

/** The `raised` events the alert's actor committed. */
async function raises(runtime: ActorRuntime): Promise<number> {
  let n = 0;
  for await (
    const { event } of runtime.events(alertActor, alertIdOf(DUE.kind, DUE.condition_key))
  ) {
    if ((event as AlertEvent).kind === "raised") n++;
  }
  return n;
}

Deno.test("alert raiser: a raise that fails once is raised within the delivery, once", () =>
  withRuntime(async ({ runtime, bus }) => {
    const flaky = flakyRuntime(runtime, { fails: (type) => type === alertActor.type });
    const errors: unknown[] = [];
    const raiser = new ShipmentAlertRaiser({
      runtime: flaky.runtime,
      bus,
      retry: NO_WAIT,
      onError: (e) => errors.push(e),
    });
    try {
      await publishAlertDue(bus);
      await bus.flush();
      assert.equal(flaky.failed(), 1, "the first raise failed");
      assert.equal(await raises(runtime), 1, "raised by the flush's end");
      assert.deepEqual(errors, []);
      // The change again (a recovery republishing it): still the one alert.
      await publishAlertDue(bus);
      await bus.flush();
      assert.equal(await raises(runtime), 1);
    } finally {
      await raiser.close();
    }
  }));

Deno.test("alert raiser: a raise that keeps failing is reported and does not hold the flush", () =>
  withRuntime(async ({ runtime, bus }) => {
    const flaky = flakyRuntime(runtime, {
      fails: (type) => type === alertActor.type,
      times: Infinity,
    });
    const errors: [unknown, string][] = [];
    const raiser = new ShipmentAlertRaiser({
      runtime: flaky.runtime,
      bus,
      retry: NO_WAIT,
      onError: (e, where) => errors.push([e, where]),
    });
    try {
      await publishAlertDue(bus);
      await bus.flush();
      assert.equal(flaky.failed(), 4, "one try and one per wait");
      assert.equal(errors.length, 1);
      const [error, where] = errors[0]!;
      assert.ok(error instanceof RetriesExhausted);
      assert.equal(error.attempts, 4);
      assert.match(error.message, /injected failure 4/);
      assert.equal(where, `no_scan of ${WAYBILL}`);
      assert.equal(await raises(runtime), 0);
    } finally {
      await raiser.close();
    }
  }));

Deno.test("alert raiser: a raise still failing after its retries is deferred and raised by a later try, once", () =>
  withRuntime(async ({ runtime, bus, clock }) => {
    // Fails through the delivery's four tries and the first deferred try's four, then works.
    const flaky = flakyRuntime(runtime, { fails: (type) => type === alertActor.type, times: 8 });
    const deferral = new DeferredWorks({ runtime, bus, onError: () => {} });
    const raiser = new ShipmentAlertRaiser({
      runtime: flaky.runtime,
      bus,
      retry: NO_WAIT,
      onError: () => {},
      deferral,
    });
    const id = deferredWorkId("alert_raiser", subjectOf("test", TENANT, "shipment", WAYBILL), 7);
    const work = async () => {
      const got = await runtime.ask(deferredWorkActor, TENANT, id, { kind: "get" });
      assert.ok(got.ok && got.reply);
      return got.reply;
    };
    const later = async (ms: number) => {
      clock.advanceBy(ms);
      const fired = await runtime.fireDueTimers();
      await bus.flush();
      return fired;
    };
    try {
      await publishAlertDue(bus);
      await bus.flush();
      assert.equal(flaky.failed(), 4);
      assert.equal(await raises(runtime), 0);
      assert.equal((await work()).status, "waiting", "kept, not lost");

      assert.equal(await later(DEFERRED_WORK_RETRY_MS[0]! - 1), 0, "not before its time");
      assert.equal(await later(1), 1);
      assert.equal(flaky.failed(), 8, "the first deferred try failed too");
      assert.equal(await raises(runtime), 0);
      const waiting = await work();
      assert.equal(waiting.status, "waiting");
      assert.equal(waiting.attempts, 1);
      assert.match(waiting.last_error ?? "", /injected failure 8/);

      assert.equal(await later(DEFERRED_WORK_RETRY_MS[1]!), 1);
      assert.equal(await raises(runtime), 1, "raised by the next try");
      assert.equal((await work()).status, "done");
      assert.equal(await later(DEFERRED_WORK_RETRY_MS.at(-1)!), 0, "no try after it is done");
      assert.equal(await raises(runtime), 1);
    } finally {
      await raiser.close();
      await deferral.close();
    }
  }));

/**
 * Stands in for a shipment's decisions: commits the `alert_due` it is told to, as a shipment's
 * check or scan does, on the real runtime, KV file and bus (the raiser reads nothing else).
 */
const dueShipment: ActorDefinition<
  number,
  { readonly kind: "due"; readonly alert: AlertDue },
  ShipmentEvent,
  number
> = {
  type: shipmentActor.type,
  version: 1,
  initial: 0,
  decide: (_state, command) =>
    command.kind === "due"
      ? accept([{ kind: "alert_due", alert: command.alert }], (s) => s)
      : accept([], (s) => s),
  evolve: (state) => state + 1,
};

/** Every kind a shipment's own decisions raise (courier 2.9), each with its condition. */
const SHIPMENT_DUES: readonly AlertDue[] = (
  [
    "milestone_at_risk",
    "milestone_overdue",
    "customs_wait_exceeded",
    "no_scan",
    "pieces_separated",
    "documents_missing",
  ] as const
).map((kind, i) => ({
  kind,
  condition_key: `WB-R${i}:${kind}:1`,
  owner: "courier",
  message: `${kind} of WB-R${i}`,
  detail: { n: i },
}));

function openOn(path: string, bus: MemoryBus, clock: ManualClock) {
  return KvActorStore.open(path).then((store) => ({
    store,
    runtime: new ActorRuntime({
      env: "test",
      store,
      bus,
      clock,
      definitions: [alertActor, deferredWorkActor, dueShipment],
      onError: () => {},
    }),
  }));
}

async function raisesOf(runtime: ActorRuntime, due: AlertDue): Promise<number> {
  let n = 0;
  const id = await alertIdOf(due.kind, due.condition_key);
  for await (const { event } of runtime.events(alertActor, id)) {
    if ((event as AlertEvent).kind === "raised") n++;
  }
  return n;
}

Deno.test("alert raiser: alerts a crash kept off the bus after their shipment's commit are raised once at restart, delivered again or at once, of every kind", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const clock = new ManualClock();
  try {
    // The process dies between each shipment's commit and its publication: the bus is gone.
    const downBus = new MemoryBus();
    const first = await openOn(path, downBus, clock);
    await first.runtime.start();
    await downBus.drain();
    for (const [i, alert] of SHIPMENT_DUES.entries()) {
      const r = await first.runtime.ask(dueShipment, TENANT, `WB-R${i}`, { kind: "due", alert });
      assert.ok(r.ok);
    }
    first.store.close();
    await first.runtime.close().catch(() => {});

    // spec: courier 2.9: each condition is raised once: the environment restarts on the same
    // KV file and republishes what the crash kept off the bus; the raiser raises it.
    const bus = new MemoryBus();
    const second = await openOn(path, bus, clock);
    const raiser = new ShipmentAlertRaiser({ runtime: second.runtime, bus, retry: NO_WAIT });
    try {
      await second.runtime.start();
      await bus.flush();
      for (const due of SHIPMENT_DUES) assert.equal(await raisesOf(second.runtime, due), 1);
      // The same changes delivered again, twice at once (a redelivery, another instance): one
      // alert each.
      for (const [i, due] of SHIPMENT_DUES.entries()) {
        const change: ActorChange = {
          env: "test",
          tenant: TENANT,
          type: "shipment",
          id: `WB-R${i}`,
          version: 1,
          events: [{ seq: 1, at: 0, event: { kind: "alert_due", alert: due } }],
        };
        const subject = subjectOf("test", TENANT, "shipment", `WB-R${i}`);
        await Promise.all([bus.publish(subject, change), bus.publish(subject, change)]);
      }
      await bus.flush();
      for (const due of SHIPMENT_DUES) assert.equal(await raisesOf(second.runtime, due), 1);
    } finally {
      await raiser.close();
      await second.runtime.close();
      await bus.drain();
      second.store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

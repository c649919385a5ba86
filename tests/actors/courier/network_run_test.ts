/** The run actor's own rules, pure (courier 3.4, 4.5): bounded state, capacity, the close rule. */
import assert from "node:assert/strict";
import {
  asRun,
  networkRunActor,
  type NetworkRunState,
  RUN_STATE_BUDGET,
  runAt,
  type RunCommand,
  STOPS_MAX,
  type StoredRunEvent,
} from "../../../actors/courier/network_run/mod.ts";
import type { Ctx } from "../../../src/runtime/actor.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";

const ctx: Ctx = { now: Date.parse("2026-11-02T08:00:00Z"), newId: (p) => `${p}_x` };
const BIG = { grams: 10_000_000, cm3: 10_000_000_000, pieces: 100_000, cold_slots: 0 };

function apply(state: NetworkRunState, command: RunCommand) {
  const d = networkRunActor.decide(state, command, ctx);
  if (!d.ok) return { state, refused: d };
  let next = state;
  for (const e of d.events) next = networkRunActor.evolve(next, e);
  return { state: next, refused: null };
}

function created(): NetworkRunState {
  return apply(null, {
    kind: "create",
    run: {
      id: "run_1",
      courier_id: "biz_1",
      facility_id: "GBE-HUB",
      kind: "delivery",
      countries: ["BW"],
      capacity: BIG,
      vehicle: null,
      driver_id: "drv_1",
    },
    by: "test",
  }).state;
}

Deno.test("network run: stops are added until the state budget or STOPS_MAX, then refused cleanly", () => {
  let state = created();
  let added = 0;
  for (let i = 0; i < STOPS_MAX + 50; i++) {
    const r = apply(state, {
      kind: "add_stop",
      stop: {
        id: `stop_${String(i).padStart(16, "0")}`,
        kind: "deliver",
        waybill: `WB${String(i).padStart(12, "0")}`,
        work_order: null,
        country: null,
        to_country: null,
        border_post: null,
        load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
      },
      by: "test",
    });
    if (r.refused) {
      assert.equal(r.refused.code, "run_full");
      break;
    }
    state = r.state;
    added++;
  }
  assert.equal(added, STOPS_MAX, "a run takes its full STOPS_MAX deliver stops");
  assert.ok(added <= STOPS_MAX);
  assert.ok(new TextEncoder().encode(JSON.stringify(state)).length <= RUN_STATE_BUDGET);
});

Deno.test("network run: a run closes only when every item has an end state", () => {
  let state = created();
  state = apply(state, {
    kind: "add_stop",
    stop: {
      id: "stop_a",
      kind: "deliver",
      waybill: "WB1",
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
    },
    by: "t",
  }).state;
  const refused = apply(state, { kind: "close", by: "t" }).refused;
  assert.equal(refused?.code, "items_without_end_state");
  state = apply(state, { kind: "depart", by: "t" }).state;
  state = apply(state, { kind: "stop_deliver", stop_id: "stop_a", lab_handover: false, by: "t" })
    .state;
  const closed = apply(state, { kind: "close", by: "t" });
  assert.equal(closed.refused, null);
  assert.equal(closed.state?.status, "closed");
});

Deno.test("network run: a stop that is done cannot fail afterwards", () => {
  let state = created();
  state = apply(state, {
    kind: "add_stop",
    stop: {
      id: "stop_a",
      kind: "deliver",
      waybill: "WB1",
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
    },
    by: "t",
  }).state;
  state = apply(state, { kind: "depart", by: "t" }).state;
  state = apply(state, { kind: "stop_deliver", stop_id: "stop_a", lab_handover: false, by: "t" })
    .state;
  const failed = apply(state, { kind: "stop_fail", stop_id: "stop_a", reason: "nobody", by: "t" });
  assert.equal(failed.refused?.code, "stop_already_done");
  assert.equal(failed.state, state);
});

Deno.test("network run: a run of STOPS_MAX stops is stored over several values, each delivery replayed applies once, and it reads back whole", async () => {
  const dir = await Deno.makeTempDir();
  const open = async () => {
    const store = await KvActorStore.open(`${dir}/kv.sqlite`);
    const bus = new MemoryBus();
    const runtime = new ActorRuntime({
      env: "test",
      store,
      bus,
      clock: new ManualClock(),
      definitions: [networkRunActor],
      onError: () => {},
    });
    await runtime.start();
    return {
      runtime,
      async close() {
        await runtime.close();
        await bus.flush();
        store.close();
      },
    };
  };
  const T = "biz_1";
  const first = await open();
  try {
    const ask = async (command: RunCommand, key?: string) => {
      const r = await first.runtime.ask(
        networkRunActor,
        T,
        "run_1",
        command,
        key ? { idempotencyKey: key, permanent: true } : undefined,
      );
      assert.ok(r.ok, JSON.stringify(r));
      return r;
    };
    await ask({
      kind: "create",
      run: {
        id: "run_1",
        courier_id: T,
        facility_id: "GBE-HUB",
        kind: "delivery",
        countries: ["BW"],
        capacity: BIG,
        vehicle: null,
        driver_id: "drv_1",
      },
      by: "test",
    });
    for (let i = 0; i < STOPS_MAX; i++) {
      await ask({
        kind: "add_stop",
        stop: {
          id: `stop_${i}`,
          kind: "deliver",
          waybill: `WB${String(i).padStart(12, "0")}`,
          work_order: null,
          country: null,
          to_country: null,
          border_post: null,
          load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
        },
        by: "test",
      });
    }
    await ask({ kind: "depart", by: "test" });
    // Driver and operations deliver concurrently, each stop twice with the same key.
    const deliveries = Array.from({ length: STOPS_MAX * 2 }, (_, n) => n % STOPS_MAX);
    const answers = await Promise.all(
      deliveries.map((i) =>
        first.runtime.ask(networkRunActor, T, "run_1", {
          kind: "stop_deliver",
          stop_id: `stop_${i}`,
          lab_handover: false,
          by: i % 2 ? "driver" : "operations",
        }, { idempotencyKey: `deliver:stop_${i}`, permanent: true })
      ),
    );
    assert.ok(answers.every((a) => a.ok));
    assert.equal(answers.filter((a) => a.ok && a.replayed).length, STOPS_MAX);
    // What is kept under a stop action's key is its seq, not its answer (a store value is
    // at most 64 KiB); the first asker got the answer.
    const kept = await first.runtime.replyUnder(networkRunActor, "run_1", "deliver:stop_0");
    assert.ok(kept && !("answer" in (kept.reply as object)), JSON.stringify(kept));
    assert.equal(typeof (kept.reply as { seq: number }).seq, "number");
    assert.ok(answers.some((a) => a.ok && !a.replayed && "answer" in (a.reply as object)));
  } finally {
    await first.close();
  }
  const second = await open();
  try {
    const r = await second.runtime.ask(networkRunActor, T, "run_1", { kind: "get" });
    assert.ok(r.ok);
    const run = asRun(r.reply);
    assert.equal(run.stops.length, STOPS_MAX);
    assert.ok(run.stops.every((s) => s.status === "done"));
    assert.ok(run.items.every((i) => i.state === "delivered"));
    const closed = await second.runtime.ask(networkRunActor, T, "run_1", {
      kind: "close",
      by: "t",
    });
    assert.ok(closed.ok);
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("network run: a run departs once; a departure recorded again after arriving, before it did, still replays", () => {
  let state = created();
  state = apply(state, {
    kind: "add_stop",
    stop: {
      id: "stop_a",
      kind: "deliver",
      waybill: "WB1",
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
    },
    by: "t",
  }).state;
  state = apply(state, { kind: "depart", by: "t" }).state;
  state = apply(state, { kind: "arrive", by: "t" }).state;
  const again = networkRunActor.decide(state, { kind: "depart", by: "t" }, ctx);
  assert.ok(again.ok);
  assert.deepEqual(again.events, [], "the departure sent again changes nothing");
  // An event log written when a run could depart again after arriving reads back as it was.
  const at = ctx.now;
  const { departed_at: _none, ...before } = created()!;
  const events: StoredRunEvent[] = [
    { kind: "run_created", run: before },
    { kind: "applied", change: { kind: "depart", by: "t" }, at },
    { kind: "applied", change: { kind: "arrive", by: "t" }, at: at + 1 },
    { kind: "applied", change: { kind: "depart", by: "t" }, at: at + 2 },
  ];
  const run = runAt(events.map((event, i) => ({ seq: i + 1, event })), 4);
  assert.equal(run?.status, "departed");
  assert.equal(run?.departed_at, at + 2);
});

Deno.test("network run: a full run still ends an item as its shipment ended (item_closed is never run_full)", () => {
  let state = apply(created(), {
    kind: "add_stop",
    stop: {
      id: "stop_a",
      kind: "deliver",
      waybill: "WB1",
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
    },
    by: "t",
  }).state;
  // The longest expense note the budget takes: the run is then full to the byte.
  const expense = (n: number) => ({
    kind: "expense" as const,
    key: "exp_1",
    amount_minor: 100,
    currency: "BWP",
    receipt: "r.jpg",
    note: "x".repeat(n),
    by: "t",
  });
  let [lo, hi] = [0, RUN_STATE_BUDGET];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (apply(state, expense(mid)).refused) hi = mid - 1;
    else lo = mid;
  }
  state = apply(state, expense(lo)).state;
  assert.equal(apply(state, { ...expense(1), key: "exp_2" }).refused?.code, "run_full");
  const r = apply(state, { kind: "item_closed", waybill: "WB1", status: "delivered", by: "t" });
  assert.equal(r.refused, null, JSON.stringify(r.refused));
  assert.equal(r.state?.items[0]?.state, "delivered");
});

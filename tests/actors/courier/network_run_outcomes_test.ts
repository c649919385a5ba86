/**
 * The run actor's events state outcomes (courier 3.4, 4.5): decide records what it decided and
 * what must follow it, evolve only applies that, and a log written when events restated the
 * command (`applied {change}`) reads to the same run. Pure: no store, no HTTP.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  FOLLOW_UPS_TIMER,
  type FollowUp,
  type NetworkRun,
  networkRunActor,
  type NetworkRunState,
  RUN_FOLLOW_UP_RETRY_MS,
  runAt,
  type RunChange,
  type RunCommand,
  type RunEvent,
  type StoredRunEvent,
  TRIP_ENDED_GRACE_MS,
  TRIP_ENDED_TIMER,
} from "../../../actors/courier/network_run/mod.ts";
import type { TimerOp } from "../../../src/runtime/actor.ts";
import {
  applied,
  c1Errand,
  collectStop,
  creation,
  ctx,
  decided,
  LOAD,
  NOW,
} from "./network_run_fixtures.ts";

function created(driver: string | null = "drv_1"): NetworkRun {
  return applied(null, decided(null, creation("delivery", driver)).events)!;
}

function stop(id: string, waybill: string): RunCommand {
  return {
    kind: "add_stop",
    stop: {
      id,
      kind: "deliver",
      waybill,
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: LOAD,
    },
    by: "ops",
  };
}

/** The follow-ups a decision recorded, and its batch. */
function dueOf(events: readonly RunEvent[]): { batch: string; followUps: readonly FollowUp[] } {
  const due = events.filter((e) => e.kind === "follow_ups_due");
  assert.equal(due.length, 1, JSON.stringify(events));
  const e = due[0] as Extract<RunEvent, { kind: "follow_ups_due" }>;
  return { batch: e.batch, followUps: e.follow_ups };
}

Deno.test("network run: a departure records the items that left and their custody moves, keyed by the departure", () => {
  let run: NetworkRunState = created();
  for (const [id, wb] of [["s1", "WB1"], ["s2", "WB2"]] as const) {
    run = applied(run, decided(run, stop(id, wb)).events);
  }
  const d = decided(run, { kind: "depart", by: "driver:drv_1" }, NOW + 60_000);
  assert.deepEqual(d.events[0], {
    kind: "departed",
    at: NOW + 60_000,
    items: [0, 1],
    entry: { action: "depart", by: "driver:drv_1", at: NOW + 60_000, detail: null },
  });
  const { batch, followUps } = dueOf(d.events);
  assert.deepEqual(
    followUps.map((f) => f.kind === "custody" ? [f.waybill, f.key, f.scan.event] : f.kind),
    [
      ["WB1", `custody:run_1:departure:${NOW + 60_000}:WB1`, "out_for_delivery"],
      ["WB2", `custody:run_1:departure:${NOW + 60_000}:WB2`, "out_for_delivery"],
    ],
  );
  // The first batch due arms the run's retry; the reply names the batch to say done.
  assert.deepEqual(d.timers, [{
    op: "set",
    name: FOLLOW_UPS_TIMER,
    at: NOW + 60_000 + RUN_FOLLOW_UP_RETRY_MS,
  }]);
  const next = applied(run, d.events)!;
  assert.deepEqual(next.follow_ups_due, [batch]);
  assert.equal((d.reply!(next, { seq: 9 }) as { follow_ups?: string }).follow_ups, batch);
  assert.ok(next.items.every((i) => i.state === "on_board" && i.departed_at === NOW + 60_000));
});

Deno.test("network run: follow-ups said done leave the run; the timer makes what is still due due again", () => {
  let run: NetworkRunState = created(null);
  const first = decided(run, stop("s1", "WB1"));
  run = applied(run, first.events);
  const second = decided(run, stop("s2", "WB2"));
  assert.deepEqual(second.timers ?? [], [], "one batch due already armed the retry");
  run = applied(run, second.events);
  const [a, b] = [dueOf(first.events).batch, dueOf(second.events).batch];
  assert.deepEqual(run!.follow_ups_due, [a, b]);
  const fired = decided(
    run,
    { kind: "timer", name: FOLLOW_UPS_TIMER, payload: undefined } as never,
  );
  assert.deepEqual(fired.events, [{ kind: "follow_ups_again", batches: [a, b] }]);
  assert.deepEqual(fired.timers, [{
    op: "set",
    name: FOLLOW_UPS_TIMER,
    at: NOW + RUN_FOLLOW_UP_RETRY_MS,
  }]);
  const doneA = decided(run, { kind: "follow_ups_done", batches: [a, "fu_unknown"] });
  assert.deepEqual(doneA.events, [{ kind: "follow_ups_done", batches: [a] }]);
  assert.deepEqual(doneA.timers ?? [], []);
  run = applied(run, doneA.events);
  const doneB = decided(run, { kind: "follow_ups_done", batches: [b, b] });
  assert.deepEqual(doneB.timers, [{ op: "cancel", name: FOLLOW_UPS_TIMER } satisfies TimerOp]);
  run = applied(run, doneB.events);
  assert.deepEqual(run!.follow_ups_due, []);
  assert.deepEqual(decided(run, { kind: "follow_ups_done", batches: [b] }).events, []);
  const idle = decided(run, { kind: "timer", name: FOLLOW_UPS_TIMER, payload: undefined } as never);
  assert.deepEqual([idle.events, idle.timers ?? []], [[], []]);
});

Deno.test("network run: an arrival raises no leg_trip_ended; its own timer, the grace after, raises one for each shipment still on board, beside the follow-ups retry", () => {
  let run: NetworkRunState = created();
  for (const [id, wb] of [["s1", "WB1"], ["s2", "WB2"], ["s3", "WB3"]] as const) {
    run = applied(run, decided(run, stop(id, wb)).events);
  }
  run = applied(run, decided(run, { kind: "depart", by: "t" }).events);
  const arrivedAt = NOW + 3_600_000;
  const arrival = decided(run, { kind: "arrive", by: "t" }, arrivedAt);
  const kinds = (events: readonly RunEvent[]) =>
    events.flatMap((e) => e.kind === "follow_ups_due" ? e.follow_ups.map((f) => f.kind) : []);
  assert.deepEqual(kinds(arrival.events), [], "spec: courier 2.9: the unload follows the arrival");
  // Its own timer, by name: the departure's batch still due keeps the retry it armed.
  const check = { op: "set", name: TRIP_ENDED_TIMER, at: arrivedAt + TRIP_ENDED_GRACE_MS };
  assert.deepEqual(arrival.timers, [check]);
  run = applied(run, arrival.events);
  assert.deepEqual(decided(run, { kind: "arrive", by: "t" }).timers ?? [], [], "arrives once");
  run = applied(run, decided(run, { kind: "unload", waybills: ["WB1"], by: "t" }).events);
  run = applied(
    run,
    decided(run, { kind: "report", waybill: "WB2", condition: "damaged", note: "torn", by: "t" })
      .events,
  );
  // Each change's follow-ups told done: the retry is not armed.
  const done = { kind: "follow_ups_done", batches: run!.follow_ups_due! } as const;
  run = applied(run, decided(run, done).events);
  const fire = { kind: "timer", name: TRIP_ENDED_TIMER, payload: undefined } as never;
  const firedAt = check.at;
  const fired = decided(run, fire, firedAt);
  const { batch, followUps } = dueOf(fired.events);
  assert.deepEqual(
    followUps.map((f) => f.kind === "alert" ? [f.alert.kind, f.alert.condition_key] : f.kind),
    [["leg_trip_ended", "run_1:WB3:trip_ended"]],
  );
  // Nobody's request raises it: due again at once, the retry armed as for any batch.
  assert.deepEqual(fired.events.at(-1), { kind: "follow_ups_again", batches: [batch] });
  assert.deepEqual(fired.timers, [{
    op: "set",
    name: FOLLOW_UPS_TIMER,
    at: firedAt + RUN_FOLLOW_UP_RETRY_MS,
  }]);
  // Fired again, it names the same condition, which the alert raises once.
  const twice = dueOf(decided(applied(run, fired.events), fire, firedAt + 1).events);
  assert.deepEqual(twice.followUps, followUps);
  // Nothing on board: nothing to raise.
  run = applied(run, decided(run, { kind: "unload", waybills: null, by: "t" }).events);
  assert.deepEqual(decided(run, fire, firedAt).events, []);
});

Deno.test("network run: a collection records the item and its custody move and errand charge; a failed collection charges the work order's client", () => {
  let run: NetworkRunState = created();
  run = applied(run, decided(run, collectStop("c1", LOAD)).events);
  run = applied(run, decided(run, collectStop("c2", LOAD)).events);
  const collected = decided(run, {
    kind: "stop_collect",
    stop_id: "c1",
    waybill: "WB9",
    labels: ["WB9-1"],
    load: LOAD,
    override_reason: null,
    by: "driver:drv_1",
  });
  const { followUps } = dueOf(collected.events);
  assert.deepEqual(followUps, [
    {
      kind: "custody",
      waybill: "WB9",
      key: "custody:run_1:c1:collect:WB9:WB9",
      scan: { event: "collected", holder: "driver:drv_1", pieces: ["WB9-1"], by: "driver:drv_1" },
    },
    c1Errand("WB9"),
  ]);
  const failed = decided(run, { kind: "stop_fail", stop_id: "c2", reason: "closed", by: "ops" });
  assert.deepEqual(dueOf(failed.events).followUps.map((f) => [f.kind, "at" in f ? f.at : null]), [
    ["client_charge", NOW],
  ]);
});

Deno.test("network run: a step already made records nothing, and nothing is due", () => {
  let run: NetworkRunState = created();
  run = applied(run, decided(run, stop("s1", "WB1")).events);
  run = applied(run, decided(run, { kind: "depart", by: "t" }).events);
  const deliver: RunCommand = { kind: "stop_deliver", stop_id: "s1", lab_handover: false, by: "t" };
  run = applied(run, decided(run, deliver).events);
  assert.deepEqual(decided(run, deliver).events, []);
  assert.deepEqual(decided(run, { kind: "depart", by: "t" }).events, []);
});

Deno.test("network run: a transfer's target records, with the items it took, that the run they came from must mark them", () => {
  let run: NetworkRunState = created("drv_9");
  run = applied(run, decided(run, { kind: "depart", by: "t" }).events);
  const took = decided(run, {
    kind: "transfer_in",
    from_run: "run_0",
    items: [{ waybill: "WB1", load: LOAD }],
    by: "ops",
  }, NOW + 60_000);
  assert.equal(took.events[0]!.kind, "transferred_in");
  // Under way, the item departs with the target (its boarding), held by the target's driver.
  assert.deepEqual(dueOf(took.events).followUps, [{
    kind: "transfer_out",
    from_run: "run_0",
    to_run: "run_1",
    waybills: ["WB1"],
    to: {
      holder: "driver:drv_9",
      boarded: [{
        waybill: "WB1",
        key: "run_1:boarded:WB1*1",
        event: "departed",
        holder: "driver:drv_9",
      }],
    },
    by: "ops",
  }]);
  // Taken again (a retry), nothing more is recorded and nothing is due again.
  const next = applied(run, took.events);
  assert.deepEqual(
    decided(next, {
      kind: "transfer_in",
      from_run: "run_0",
      items: [{ waybill: "WB1", load: LOAD }],
      by: "ops",
    }).events,
    [],
  );
});

/** A command for the property below, by number: stops, departures, deliveries, reports. */
function commandOf(n: number, pick: number): RunCommand {
  const wb = `WB${pick % 4}`;
  switch (n % 9) {
    case 0:
      return stop(`s${pick % 4}`, wb);
    case 1:
      return { kind: "depart", by: "t" };
    case 2:
      return { kind: "arrive", by: "t" };
    case 3:
      return { kind: "unload", waybills: null, by: "t" };
    case 4:
      return {
        kind: "stop_deliver",
        stop_id: `s${pick % 4}`,
        lab_handover: pick % 2 === 0,
        by: "t",
      };
    case 5:
      return { kind: "stop_fail", stop_id: `s${pick % 4}`, reason: "nobody home", by: "t" };
    case 6:
      return { kind: "report", waybill: wb, condition: "damaged", note: "crushed", by: "t" };
    case 7:
      return { kind: "assign_driver", driver_id: pick % 2 ? null : "drv_2", by: "t" };
    default:
      return {
        kind: "transfer_in",
        from_run: "run_0",
        items: [{ waybill: wb, load: LOAD }],
        by: "t",
      };
  }
}

Deno.test("network run: its log reads to the run it decided, and a log of `applied` changes reads to the same run", () => {
  fc.assert(fc.property(fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }), (steps) => {
    const start = decided(null, creation("delivery")).events;
    let run = applied(null, start);
    const log: StoredRunEvent[] = [...start];
    const legacy: StoredRunEvent[] = [...start];
    steps.forEach(([n, pick], i) => {
      const at = NOW + i * 60_000;
      const d = networkRunActor.decide(run, commandOf(n, pick), ctx(at));
      if (!d.ok || d.events.length === 0) return;
      run = applied(run, d.events);
      log.push(...d.events);
      legacy.push({ kind: "applied", change: commandOf(n, pick) as RunChange, at });
    });
    const numbered = (events: StoredRunEvent[]) =>
      events.map((event, i) => ({ seq: i + 1, event }));
    assert.deepEqual(runAt(numbered(log), log.length), run);
    const { follow_ups_due: _due, ...decidedRun } = run!;
    const { follow_ups_due: _none, ...readRun } = runAt(numbered(legacy), legacy.length)!;
    assert.deepEqual(readRun, decidedRun);
  }));
});

Deno.test("network run: a claim is let go only while the run has not the shipment open, and an add with it is then refused", () => {
  const run = created();
  const claimed = { ...stop("stop_1", "WB1"), claim: "WB1#1" } as RunCommand;
  const letGo = { kind: "let_go", waybill: "WB1", claim: "WB1#1", by: "ops" } as const;
  // spec: courier 3.4: planned here, it is this run's: another run may not take it.
  const planned = applied(run, decided(run, claimed).events)!;
  const kept = networkRunActor.decide(planned, letGo, ctx());
  assert.equal(kept.ok ? null : kept.code, "planned_on_another_run");
  // Not added yet (a request under way): let go for good, and the add under way is refused.
  const released = applied(run, decided(run, letGo).events)!;
  assert.deepEqual(released.released_claims, ["WB1#1"]);
  assert.deepEqual(decided(released, letGo).events, []);
  const late = networkRunActor.decide(released, claimed, ctx());
  assert.equal(late.ok ? null : late.code, "planned_on_another_run");
  const fresh = { ...stop("stop_2", "WB1"), claim: "WB1#3" } as RunCommand;
  assert.ok(networkRunActor.decide(released, fresh, ctx()).ok);
});

Deno.test("network run: a delivery or attempt recorded under a gate customs voided is refused; once delivered, nothing is voided", () => {
  const run = applied(created(), decided(created(), stop("stop_1", "WB1")).events)!;
  const left = applied(run, decided(run, { kind: "depart", by: "drv" }).events)!;
  const gate = "run_1:WB1:0";
  const voiding = { kind: "void_delivery", waybill: "WB1", gate, by: "customs" } as const;
  const voided = applied(left, decided(left, voiding).events)!;
  assert.deepEqual(voided.delivery_voids, { WB1: 1 });
  assert.deepEqual(decided(voided, voiding).events, []);
  // spec: courier 3.4: held by customs meanwhile, it is neither delivered nor attempted.
  const deliver = { kind: "stop_deliver", stop_id: "stop_1", lab_handover: false, by: "drv" };
  for (
    const c of [{ ...deliver, gate }, {
      kind: "stop_fail",
      stop_id: "stop_1",
      reason: "x",
      gate,
      by: "drv",
    }]
  ) {
    const d = networkRunActor.decide(voided, c as RunCommand, ctx());
    assert.equal(d.ok ? null : d.code, "held_by_customs", c.kind);
  }
  const fresh = decided(voided, { ...deliver, gate: "run_1:WB1:1" } as RunCommand);
  const done = applied(voided, fresh.events)!;
  const late = networkRunActor.decide(done, { ...voiding, gate: "run_1:WB1:1" }, ctx());
  assert.equal(late.ok ? null : late.code, "item_ended");
});

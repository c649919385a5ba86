/**
 * A collect stop's errand (courier 2.6 rules 2, 3; 6.1 `run.collected:{stop}`, one event per
 * charge, sent once): the stop charges one errand, with its first collection, named by the stop;
 * later collections at the stop, replays, and stops that collected before errands were per stop
 * (each collection then charged its own) book none more. Pure: no store, no HTTP.
 */
import assert from "node:assert/strict";
import {
  collectFollowUps,
  type FollowUp,
  type NetworkRun,
  type NetworkRunState,
  runAt,
  type RunChange,
  type RunEvent,
  type StoredRunEvent,
} from "../../../actors/courier/network_run/mod.ts";
import {
  applied,
  c1Errand,
  collectStop,
  creation,
  decided,
  LOAD,
  NOW,
} from "./network_run_fixtures.ts";

const RESERVED = { grams: 10_000, cm3: 10_000, pieces: 10, cold_slots: 0 };
const CREATE = creation("collection");
const ADD_COLLECT = collectStop("c1", RESERVED);

function collecting(waybill: string): Extract<RunChange, { kind: "stop_collect" }> {
  return {
    kind: "stop_collect",
    stop_id: "c1",
    waybill,
    labels: [`${waybill}-1`],
    load: LOAD,
    override_reason: null,
    by: "driver:drv_1",
  };
}

/** A run with its collect stop c1, nothing collected yet. */
function withCollectStop(): NetworkRun {
  const run = applied(null, decided(null, CREATE).events);
  return applied(run, decided(run, ADD_COLLECT).events)!;
}

/** The charges among the follow-ups a decision recorded. */
function chargesDue(events: readonly RunEvent[]): FollowUp[] {
  return events.flatMap((e) => e.kind === "follow_ups_due" ? e.follow_ups : [])
    .filter((f) => f.kind === "charge" || f.kind === "client_charge");
}

/** The charges the follow-ups of a collection (as a request or a replay makes them) book. */
function chargesOf(run: NetworkRun, waybill: string): FollowUp[] {
  const stop = run.stops.find((s) => s.id === "c1")!;
  return collectFollowUps(run, stop, collecting(waybill)).filter((f) => f.kind === "charge");
}

const ERRAND = c1Errand("WB1");

Deno.test("network run: a collect stop charges one errand, run.collected:<stop>, with its first collection only", () => {
  let run: NetworkRunState = withCollectStop();
  const first = decided(run, collecting("WB1"));
  assert.deepEqual(chargesDue(first.events), [ERRAND]);
  run = applied(run, first.events)!;
  assert.equal(run.stops[0]!.errand_waybill, "WB1");
  // A second waybill at the same stop: its custody moves, and no errand is due.
  const second = decided(run, collecting("WB2"));
  assert.deepEqual(chargesDue(second.events), []);
  run = applied(run, second.events)!;
  assert.equal(run.stops[0]!.errand_waybill, "WB1", "the stop keeps the errand's collection");
  // Replays: the first collection sent again records nothing and, as its request redoes the
  // follow-ups, names the same errand (one source event, booked once); the second names none.
  assert.deepEqual(decided(run, collecting("WB1")).events, []);
  assert.deepEqual(chargesOf(run, "WB1"), [ERRAND]);
  assert.deepEqual(chargesOf(run, "WB2"), []);
});

Deno.test("network run: a stop that collected before errands were per stop books no errand more", () => {
  // As kept then: each collection charged `run.collected:c1:<waybill>`; nothing marks the stop.
  const fresh = withCollectStop();
  const kept: NetworkRun = {
    ...fresh,
    stops: [{
      ...fresh.stops[0]!,
      status: "done",
      collected: [{ waybill: "WB1", labels: ["WB1-1"], load: LOAD }],
    }],
    items: [{ waybill: "WB1", state: "planned", load: LOAD, exception: null, stop_id: "c1" }],
  };
  const more = decided(kept, collecting("WB2"));
  assert.deepEqual(chargesDue(more.events), []);
  const after = applied(kept, more.events)!;
  assert.equal(after.stops[0]!.errand_waybill, undefined);
  assert.deepEqual(chargesOf(after, "WB1"), [], "a replay of the collection charged then");
  assert.deepEqual(chargesOf(after, "WB2"), []);
});

Deno.test("network run: a collection logged as `applied` reads back with no errand to charge again", () => {
  const start = decided(null, CREATE).events;
  const run = applied(null, start);
  const added = decided(run, ADD_COLLECT).events;
  const log: StoredRunEvent[] = [
    ...start,
    ...added,
    { kind: "applied", change: collecting("WB1"), at: NOW },
  ];
  const read = runAt(log.map((event, i) => ({ seq: i + 1, event })), log.length)!;
  assert.equal(read.stops[0]!.collected.length, 1);
  assert.equal(read.stops[0]!.errand_waybill, undefined);
  // The answer of a replay rebuilt from this log books no errand beside the one charged then.
  assert.deepEqual(chargesOf(read, "WB1"), []);
});

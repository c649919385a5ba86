/**
 * Deciding a command to a network run: the change's outcome (run_changes, item_changes,
 * stop_changes), the state budget, and the follow-ups recorded with it in the same commit.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type TimerOp,
  unreachable,
} from "../../../src/runtime/actor.ts";
import type { RunChange, RunCommand, RunReply } from "./commands.ts";
import { evolve, type RunEvent } from "./events.ts";
import { voidDelivery } from "./customs_gate.ts";
import { voidStep } from "./shipment_gate.ts";
import type { FollowUp } from "./follow_ups.ts";
import * as follow from "./follow_ups_of.ts";
import * as stopFollow from "./stop_follow_ups.ts";
import * as transferFollow from "./transfer_follow_ups.ts";
import * as items from "./item_changes.ts";
import {
  FOLLOW_UPS_TIMER,
  type NetworkRun,
  type NetworkRunState,
  RUN_FOLLOW_UP_RETRY_MS,
  RUN_STATE_BUDGET,
  TRIP_ENDED_GRACE_MS,
  TRIP_ENDED_TIMER,
} from "./run.ts";
import * as runs from "./run_changes.ts";
import { SAME, type Step } from "./step.ts";
import * as stops from "./stop_changes.ts";
import { stopAnswer } from "./summary.ts";

type S = NetworkRunState;

const ack = (s: S): RunReply => ({ id: s!.id, status: s!.status });

/** A stop action answers its stop as the change left it; other changes acknowledge. */
function replyFor(c: RunChange): (s: S, at?: { readonly seq: number }) => RunReply {
  switch (c.kind) {
    case "stop_border":
    case "stop_cross":
    case "stop_deliver":
    case "stop_collect":
    case "stop_fail":
      return (s, at) => ({
        id: s!.id,
        status: s!.status,
        stop_id: c.stop_id,
        seq: at?.seq ?? 0,
        answer: stopAnswer(s!, c.stop_id),
      });
    default:
      return ack;
  }
}

export function decide(
  state: S,
  c: RunCommand | { kind: "timer"; name?: string },
  ctx: Ctx,
): Decision<S, RunEvent, RunReply> {
  if (c.kind === "keyed") {
    // The change is decided and recorded as it is; only its reply names the request.
    const d = decide(state, c.change, ctx);
    if (!d.ok || !d.reply) return d;
    const reply = d.reply, request = c.request;
    return { ...d, reply: (s, at) => ({ ...reply(s, at), request }) };
  }
  if (c.kind === "as_driver") {
    // spec: courier 4.5: a driver reaches only the open runs assigned to them, when the change is
    // decided, not only when the request read the run (runFor).
    if (state === null || state.driver_id !== c.driver_id || state.status === "closed") {
      return reject("not_found", "network run not found");
    }
    return decide(state, c.change, ctx);
  }
  if (c.kind === "create") return create(state, c, ctx.now);
  if (state === null) return reject("not_found", "network run not found");
  switch (c.kind) {
    case "get":
      return accept<S, RunEvent, RunReply>([], (s) => s!);
    case "timer":
      return timerFired(state, c.name, ctx);
    case "follow_ups_done":
      return followUpsDone(state, c.batches);
    default:
      return changed(state, c, ctx);
  }
}

function create(state: S, c: Extract<RunCommand, { kind: "create" }>, now: number) {
  if (state !== null) return reject("already_exists", `run exists: ${c.run.id}`);
  const run: NetworkRun = {
    ...c.run,
    status: "planned",
    stops: [],
    items: [],
    expenses: [],
    history: [{ action: "created", by: c.by, at: now, detail: null }],
    created_at: now,
    closed_at: null,
    departed_at: null,
    unassigned_times: 0,
  };
  return accept<S, RunEvent, RunReply>([{ kind: "run_created", run }], ack);
}

/** A change: its outcome and, in the same commit, the follow-ups it calls for. */
function changed(
  state: NetworkRun,
  c: RunChange,
  ctx: Ctx,
): Decision<S, RunEvent, RunReply> {
  const r = step(state, c, ctx.now);
  if (r === SAME) return accept<S, RunEvent, RunReply>([], replyFor(c));
  if (!Array.isArray(r)) return r as Exclude<Step, readonly unknown[] | typeof SAME>;
  const next = r.reduce<S>(evolve, state)!;
  // Only these changes add to the state; the others change a status, or replace history that
  // is bounded, and fit in what stateBytesMax leaves above the budget.
  const bytes = GROWING_CHANGES.has(c.kind)
    ? new TextEncoder().encode(JSON.stringify(next)).length
    : 0;
  if (bytes > RUN_STATE_BUDGET) {
    return reject(
      "run_full",
      `run ${state.id} cannot hold more (${bytes} bytes of state, max ${RUN_STATE_BUDGET}): ` +
        `split the work into another run`,
    );
  }
  const followUps = followUpsOf(state, next, c, ctx.now);
  const own = timersOf(c, ctx.now);
  if (followUps.length === 0) {
    return accept<S, RunEvent, RunReply>(r, replyFor(c), own.length > 0 ? own : undefined);
  }
  const batch = ctx.newId("fu");
  const reply = replyFor(c);
  // The first batch due arms the retry; one already due has armed it.
  const timers: TimerOp[] = (state.follow_ups_due ?? []).length === 0 ? [retry(ctx.now)] : [];
  return accept<S, RunEvent, RunReply>(
    [...r, { kind: "follow_ups_due", batch, follow_ups: followUps }],
    (s, at) => ({ ...reply(s, at), follow_ups: batch }),
    [...timers, ...own],
  );
}

/**
 * The run's own timers a recorded change sets (each by its name, so none replaces another): the
 * arrival's look, the grace after it, for what is still on board (courier 2.9 leg_trip_ended).
 * A run that arrived before this look was made raised the alerts with its arrival (its arrival's
 * follow-ups in the log hold them), so it needs none.
 */
function timersOf(c: RunChange, now: number): TimerOp[] {
  if (c.kind !== "arrive") return [];
  return [{ op: "set", name: TRIP_ENDED_TIMER, at: now + TRIP_ENDED_GRACE_MS }];
}

function timerFired(
  run: NetworkRun,
  name: string | undefined,
  ctx: Ctx,
): Decision<S, RunEvent, RunReply> {
  if (name === FOLLOW_UPS_TIMER) return dueAgain(run, ctx.now);
  if (name === TRIP_ENDED_TIMER) return tripEnded(run, ctx);
  return accept<S, RunEvent, RunReply>([], ack);
}

/**
 * spec: courier 2.9 leg_trip_ended: the grace after the arrival passed with shipments still on
 * board. No request is there to raise the alerts, so their batch is due again at once (the run
 * follow-ups reactor raises them) and the retry is armed as for any batch; each alert's condition
 * key raises it once, however often this is recorded.
 */
function tripEnded(run: NetworkRun, ctx: Ctx): Decision<S, RunEvent, RunReply> {
  const followUps = follow.tripEndedFollowUps(run);
  if (followUps.length === 0) return accept<S, RunEvent, RunReply>([], ack);
  const batch = ctx.newId("fu");
  const timers: TimerOp[] = (run.follow_ups_due ?? []).length === 0 ? [retry(ctx.now)] : [];
  return accept<S, RunEvent, RunReply>(
    [
      { kind: "follow_ups_due", batch, follow_ups: followUps },
      { kind: "follow_ups_again", batches: [batch] },
    ],
    ack,
    timers,
  );
}

function retry(now: number): TimerOp {
  return { op: "set", name: FOLLOW_UPS_TIMER, at: now + RUN_FOLLOW_UP_RETRY_MS };
}

/** The timer fired: what is still due is due again (the reactor does it), and the timer set. */
function dueAgain(run: NetworkRun, now: number): Decision<S, RunEvent, RunReply> {
  const due = run.follow_ups_due ?? [];
  if (due.length === 0) return accept<S, RunEvent, RunReply>([], ack);
  return accept<S, RunEvent, RunReply>([{ kind: "follow_ups_again", batches: due }], ack, [
    retry(now),
  ]);
}

/** These batches were done: no longer due; the timer goes with the last. */
function followUpsDone(run: NetworkRun, batches: readonly string[]) {
  const due = run.follow_ups_due ?? [];
  const done = [...new Set(batches)].filter((b) => due.includes(b));
  if (done.length === 0) return accept<S, RunEvent, RunReply>([], ack);
  const timers: TimerOp[] = done.length === due.length
    ? [{ op: "cancel", name: FOLLOW_UPS_TIMER }]
    : [];
  return accept<S, RunEvent, RunReply>([{ kind: "follow_ups_done", batches: done }], ack, timers);
}

const GROWING_CHANGES: ReadonlySet<RunChange["kind"]> = new Set([
  "add_stop",
  "cold_chain",
  "stop_collect",
  "stop_border",
  "report",
  // item_closed is not here: it changes an item's state and adds to the bounded history only,
  // and an item's end state is what happened to it (spec: courier 3.4), never refused as run_full.
  "transfer",
  "transfer_in",
  "let_go",
  "void_step",
  "expense",
]);

/** What a change does to a run: its outcome, nothing (a replayed step), or a refusal. */
export function step(run: NetworkRun, c: RunChange, now: number): Step {
  // A closed run answers whether it recorded the step (shipment_gate.ts): its custody move may
  // still be due.
  if (c.kind === "void_step") return voidStep(run, c, now);
  // A wait is a fact of the stop, told as well after the run closed (billing reviews it then).
  // Nothing else changes a closed run; what it already recorded, sent again, changes nothing and
  // answers as before, so a retry still completes what a crash kept from following it (the
  // shipment's delivery; product rule: a crash between two steps leaves state a retry completes).
  if (run.status === "closed" && c.kind !== "stop_waiting") {
    return change(run, c, now) === SAME ? SAME : reject("run_closed", `run ${run.id} is closed`);
  }
  return change(run, c, now);
}

function change(run: NetworkRun, c: RunChange, now: number): Step {
  switch (c.kind) {
    case "add_stop":
      return runs.addStop(run, c, now);
    case "assign_driver":
      return runs.assignDriver(run, c, now);
    case "depart":
      return runs.depart(run, c, now);
    case "arrive":
      return runs.arrive(run, c, now);
    case "unload":
      return runs.unload(run, c, now);
    case "reorder":
      return runs.reorder(run, c, now);
    case "close":
      return runs.close(run, c, now);
    case "expense":
      return runs.expense(run, c, now);
    case "cold_chain":
      return runs.coldChain(run, c, now);
    case "transfer":
      return items.transfer(run, c, now);
    case "transfer_in":
      return items.transferIn(run, c, now);
    case "transfer_in_undo":
      return items.transferInUndo(run, c, now);
    case "report":
      return items.report(run, c, now);
    case "item_closed":
      return items.itemClosed(run, c, now);
    case "let_go":
      return items.letGo(run, c, now);
    case "void_delivery":
      return voidDelivery(run, c, now);
    case "void_step":
      return voidStep(run, c, now);
    default:
      return stopChange(run, c, now);
  }
}

type StopAction = Extract<RunChange, { stop_id: string }>;

function stopChange(run: NetworkRun, c: StopAction, now: number): Step {
  switch (c.kind) {
    case "stop_border":
      return stops.border(run, c, now);
    case "stop_cross":
      return stops.cross(run, c, now);
    case "stop_deliver":
      return stops.deliver(run, c, now);
    case "stop_collect":
      return stops.collect(run, c, now);
    case "stop_fail":
      return stops.fail(run, c, now);
    case "stop_waiting":
      return stops.waiting(run, c, now);

    default:
      return unreachable(c);
  }
}

/** What must follow a change the run accepted, from the run before and after it. */
function followUpsOf(before: NetworkRun, after: NetworkRun, c: RunChange, now: number): FollowUp[] {
  const stop = "stop_id" in c ? after.stops.find((s) => s.id === c.stop_id) : undefined;
  switch (c.kind) {
    case "add_stop":
      return follow.stopAddedFollowUps(after, c.stop.id, c.by);
    case "assign_driver":
      return follow.unassignedFollowUps(after);
    case "depart":
      return follow.departureFollowUps(after, c.by, `${after.id}:depart`);
    case "arrive":
      return follow.arrivalFollowUps(after, c.by);
    case "close":
      return follow.leftBorderFollowUps(after, c.by);
    case "unload":
      return follow.unloadFollowUps(after, c.facility_id ?? null, c.by);
    case "transfer":
      return transferFollow.transferFollowUps(before, after, c);
    case "transfer_in":
      return transferFollow.transferInFollowUps(before, after, c);
    case "report":
      return follow.reportFollowUps(after, c);
    case "stop_waiting":
      return stopFollow.waitingFollowUps(after.id, c);
    case "stop_border":
      return follow.leftBorderFollowUps(after, c.by, c.stop_id);
    case "stop_cross":
      return stopFollow.crossFollowUps(stop!, c);
    case "stop_deliver":
      return stopFollow.deliverFollowUps(after.id, stop!, c, now);
    case "stop_collect":
      return stopFollow.collectFollowUps(after, stop!, c);
    case "stop_fail":
      return stopFollow.failFollowUps(after.id, stop!, c, now);
    default:
      return [];
  }
}

/**
 * The run actions of courier 4.5 about one shipment or stop: report (missing, damaged, returned,
 * held by customs) and waiting (billing:administer; a waiting charge on the stop's client).
 */
import {
  asRun,
  type NetworkRun,
  networkRunActor,
  reportFollowUps,
  type Stop,
  waitingFollowUps,
} from "../../../../actors/courier/network_run/mod.ts";
import {
  type Crossing,
  type CrossingStatus,
  CUSTOMS_HOLDS,
  customsCrossingActor,
} from "../../../../actors/courier/customs_crossing/mod.ts";
import { shipmentRunsActor } from "../../../../actors/courier/shipment_runs.ts";
import { bookingCrossingIdOf } from "../customs.ts";
import { foundOrNull, refuse } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { shipmentIn } from "../shipments.ts";
import { runFor, stopOf } from "./ask.ts";
import { invalid, needScope, type RunCaller, type RunDeps } from "./caller.ts";
import { crossingIdsOf, reserveHeld } from "./customs_gate.ts";
import { changeAndFollow } from "./follow_ups.ts";
import { actionKey, type RunActionInput } from "./run_actions.ts";

export async function report(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  const run = await runFor(deps, caller, runId);
  if (!body.waybill || !body.condition || !body.note?.trim()) {
    invalid([{ path: "note", message: "a report names the waybill, the condition and a note" }]);
  }
  const gate = body.condition === "customs_hold"
    ? await heldGate(deps, caller, run, body.waybill)
    : null;
  const command = {
    kind: "report",
    waybill: body.waybill,
    condition: body.condition,
    note: body.note,
    ...(gate === null ? {} : { gate }),
    by: caller.by,
  } as const;
  return await changeAndFollow(deps, caller, {
    runId,
    command,
    key: actionKey("report", body),
    request: body,
    followUps: (next) => reportFollowUps(next, command),
  });
}

/**
 * The gate a customs_hold report records under: the holding crossing reserved (customs_gate.ts).
 * Refused (422) when customs holds no crossing of the shipment.
 */
async function heldGate(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  waybill: string,
): Promise<string> {
  const held = await customsHolding(deps, caller, run, waybill, CUSTOMS_HOLDS);
  const gate = held ? await reserveHeld(deps, caller, { run, waybill }, held.id) : null;
  if (gate === null) {
    invalid([{
      path: "condition",
      message: `customs_hold: customs holds no crossing of ${waybill}`,
    }]);
  }
  return gate;
}

/**
 * Refuses `held_by_customs` when customs holds the shipment (CUSTOMS_HOLDS): it cannot be `done`
 * while held. A read, no write: the step's own reservation (customs_gate.ts) closes the race.
 */
export async function refuseIfHeld(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  waybill: string,
  done: string,
): Promise<void> {
  refuseHeld(await customsHolding(deps, caller, run, waybill, CUSTOMS_HOLDS), waybill, done);
}

/** Refuses `held_by_customs` when `held` (a crossing in CUSTOMS_HOLDS) holds the shipment. */
export function refuseHeld(held: Crossing | null, waybill: string, done: string, hint = "") {
  if (held) {
    refuse(
      "held_by_customs",
      `${waybill} is held by customs and cannot be ${done}: crossing ${held.id} is ` +
        `${held.status}${hint}`,
    );
  }
}

/**
 * The first of the shipment's crossings whose status is one of `holding`, or null: its crossing
 * opened at booking, or one opened at a border stop of this run, read from the crossing actors
 * (the decision does not wait for the projection).
 */
export async function customsHolding(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  waybill: string,
  holding: ReadonlySet<CrossingStatus>,
): Promise<Crossing | null> {
  const ids = crossingIdsOf(caller.tenant, run, waybill);
  return await crossingHolding(deps.runtime, caller.tenant, ids, holding);
}

/** The first of the crossings `ids` whose status is one of `holding`, or null. */
export async function crossingHolding(
  runtime: ActorRuntime,
  tenant: string,
  ids: readonly string[],
  holding: ReadonlySet<CrossingStatus>,
): Promise<Crossing | null> {
  for (const id of ids) {
    // A crossing busy or failing may hold it: thrown (503), never read as not holding it.
    const got = foundOrNull(await runtime.read(customsCrossingActor, tenant, id, { kind: "get" }));
    const crossing = got?.crossing ?? null;
    if (crossing && holding.has(crossing.status)) return crossing;
  }
  return null;
}

/**
 * The shipment's crossings customs may keep it at, whoever moves it (operations' scans too): the
 * one opened at booking, and one per border stop of each run it boarded (shipment_runs.ts).
 */
export async function shipmentCrossingIds(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
): Promise<string[]> {
  const ids = new Set([bookingCrossingIdOf(tenant, waybill)]);
  // spec: courier 3.4: a read refused now (a full mailbox, a store failure) is thrown (503): the
  // crossings it would name may hold the shipment, and a scan reserving fewer would pass a hold.
  const read = { kind: "get" } as const;
  const boarded = foundOrNull(await runtime.read(shipmentRunsActor, tenant, waybill, read));
  for (const runId of boarded?.runs ?? []) {
    const got = foundOrNull(await runtime.read(networkRunActor, tenant, runId, read));
    if (got === null) continue;
    for (const id of crossingIdsOf(tenant, asRun(got), waybill)) ids.add(id);
  }
  return [...ids];
}

export async function waiting(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  const run = await runFor(deps, caller, runId);
  // spec: courier 4.5: waiting needs billing:administer; it books a waiting charge.
  needScope(caller, "billing:administer");
  if (!body.stop_id || !body.minutes) {
    invalid([{ path: "minutes", message: "stop_id and minutes are required" }]);
  }
  const stop = stopOf(run, body.stop_id);
  const waybill = body.waybill ?? stop.waybill ?? stop.collected[0]?.waybill;
  if (!waybill) invalid([{ path: "waybill", message: "the shipment the wait was for" }]);
  await stopShipment(deps, caller, run, stop, waybill);
  // The run names the stop's one charged shipment first (serialised there, so two offices naming
  // different clients' shipments at once charge one); a retry after a crash between the two
  // finds it named and books the charge it missed.
  const command = {
    kind: "stop_waiting",
    stop_id: stop.id,
    waybill,
    minutes: body.minutes,
    note: body.note ?? null,
    by: caller.by,
  } as const;
  return await changeAndFollow(deps, caller, {
    runId,
    command,
    key: actionKey("waiting", body),
    request: body,
    followUps: () => waitingFollowUps(runId, command),
  });
}

/**
 * The shipment a stop's later charge is booked on, only when it is the stop's: a deliver stop's
 * waybill, a shipment of a collect stop's work-order client, or one the run carries (spec: courier
 * 2.6 rule 1, 4.6: a stop never charges another client's shipment). Else 422 on `waybill`.
 */
export async function stopShipment(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  stop: Stop,
  waybill: string,
): Promise<void> {
  const s = await shipmentIn(deps.runtime, caller.tenant, waybill);
  const its = stop.waybill
    ? s.waybill === stop.waybill
    : stop.work_order
    ? s.client_id === stop.work_order.courier_client_id
    : run.items.some((i) => i.waybill === s.waybill);
  if (!its) invalid([{ path: "waybill", message: `not a shipment of stop ${stop.id}` }]);
}

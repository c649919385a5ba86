/**
 * The run actions of courier 4.5 that move the run as a whole: depart, arrive, unload, reorder,
 * close. Each is decided by the run, whose follow-ups (custody moves, crossings, alerts) the
 * request then does, each once by its key, so a retry after a crash completes what it left.
 */
import {
  arrivalFollowUps,
  departureFollowUps,
  leftBorderFollowUps,
  type NetworkRun,
  unloadFollowUps,
} from "../../../../actors/courier/network_run/mod.ts";
import { askRun, runFor } from "./ask.ts";
import { invalid, type RunCaller, type RunDeps } from "./caller.ts";
import { changeAndFollow } from "./follow_ups.ts";

/** A run action's request as the route read it (courier 4.5); each action reads its fields. */
export type RunActionInput = {
  readonly idempotency_key?: string | undefined;
  readonly waybills?: readonly string[] | undefined;
  readonly facility_id?: string | undefined;
  readonly order?: readonly string[] | undefined;
  readonly to_run?: string | undefined;
  readonly waybill?: string | undefined;
  readonly condition?: "missing" | "damaged" | "returned" | "customs_hold" | undefined;
  readonly note?: string | undefined;
  readonly stop_id?: string | undefined;
  readonly minutes?: number | undefined;
};

/** A run action: the run as it stands after it. */
export type RunAction = (
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
) => Promise<NetworkRun>;

/** The key a run action is kept under: the action and the caller's idempotency_key. */
export function actionKey(action: string, body: RunActionInput): string | null {
  return body.idempotency_key ? `${action}:${body.idempotency_key}` : null;
}

export async function depart(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  const run = await runFor(deps, caller, runId);
  const key = actionKey("depart", body);
  // A run kept before it recorded its departure keys its moves by the request.
  const fallback = `${runId}:${key ?? `depart:${run.history.length}`}`;
  return await changeAndFollow(deps, caller, {
    runId,
    command: { kind: "depart", by: caller.by },
    key,
    request: body,
    followUps: (next) => departureFollowUps(next, caller.by, fallback),
  });
}

export async function arrive(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  await runFor(deps, caller, runId);
  return await changeAndFollow(deps, caller, {
    runId,
    command: { kind: "arrive", by: caller.by },
    key: actionKey("arrive", body),
    request: body,
    followUps: (next) => arrivalFollowUps(next, caller.by),
  });
}

export async function unload(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  await runFor(deps, caller, runId);
  const facilityId = body.facility_id ?? null;
  return await changeAndFollow(deps, caller, {
    runId,
    command: {
      kind: "unload",
      waybills: body.waybills ?? null,
      facility_id: facilityId,
      by: caller.by,
    },
    key: actionKey("unload", body),
    request: body,
    followUps: (next) => unloadFollowUps(next, facilityId, caller.by),
  });
}

export async function reorder(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  await runFor(deps, caller, runId);
  if (!body.order) invalid([{ path: "order", message: "the stop ids in order" }]);
  const command = { kind: "reorder", order: body.order, by: caller.by } as const;
  return (await askRun(deps, caller, runId, command, actionKey("reorder", body), body)).run;
}

export async function close(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  await runFor(deps, caller, runId);
  return await changeAndFollow(deps, caller, {
    runId,
    command: { kind: "close", by: caller.by },
    key: actionKey("close", body),
    request: body,
    // spec: courier 2.9: the run closed has left a border stop it presented and never entered.
    followUps: (next) => leftBorderFollowUps(next, caller.by),
  });
}

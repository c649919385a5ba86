/**
 * Doing what must follow a run's change (network_run follow_ups.ts): custody moves on shipments,
 * later charges, crossings, a laboratory handover, alerts. The request that made the change does
 * them before it answers, then tells the run they are done; the run follow-ups reactor does those
 * a crash or a failure left due. Each is keyed by its condition, so it happens once.
 */
import {
  type FollowUp,
  type NetworkRun,
  networkRunActor,
  type RunChange,
  type StopAnswer,
  type StopChange,
} from "../../../../actors/courier/network_run/mod.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { askRun, askStop } from "./ask.ts";
import type { RunCaller, RunDeps } from "./caller.ts";
import { performFollowUp, redoBatches } from "./perform.ts";

/**
 * Does the follow-ups of a change in order, then tells the run the batch it recorded is done
 * (none: a replay's, or a change that recorded none, and the run has nothing to be told).
 * The telling is not awaited: the follow-ups are done when this returns, and a telling that is
 * lost (a crash, a closed runtime) only leaves the batch due, which the run's follow-ups timer
 * makes due again and the reactor redoes without effect (each follow-up is keyed).
 */
export async function followThrough(
  runtime: ActorRuntime,
  tenant: string,
  runId: string,
  batch: string | null,
  followUps: readonly FollowUp[],
  requestId?: string,
): Promise<void> {
  for (const f of followUps) await performFollowUp(runtime, tenant, f, requestId);
  if (batch !== null) tellDone(runtime, tenant, runId, batch);
}

/** Batches done and not yet told, per runtime and run, while a telling is under way. */
const untold = new WeakMap<ActorRuntime, Map<string, string[]>>();

/**
 * Tells the run `batch` is done. While a telling of the same run is under way, the batch waits
 * and goes with the next one, so a run driven by many actions at once is told in a few commands
 * instead of one per action (its mailbox is one at a time).
 */
function tellDone(runtime: ActorRuntime, tenant: string, runId: string, batch: string): void {
  let runs = untold.get(runtime);
  if (!runs) untold.set(runtime, runs = new Map());
  const key = `${tenant}/${runId}`;
  const waiting = runs.get(key);
  if (waiting) {
    waiting.push(batch);
    return;
  }
  const pending = [batch];
  runs.set(key, pending);
  (async () => {
    try {
      while (pending.length > 0) {
        const batches = pending.splice(0);
        const r = await runtime.ask(networkRunActor, tenant, runId, {
          kind: "follow_ups_done",
          batches,
        });
        if (!r.ok) console.error(`follow-ups ${batches} of run ${runId} left due: ${r.message}`);
      }
    } finally {
      // In the same turn as the last look at `pending`: a batch added later starts its own.
      runs.delete(key);
    }
  })().catch((e) => {
    // The runtime closed or failed: what was not told stays due for the follow-ups timer.
    console.error(`follow-ups of run ${runId} left due:`, e);
  });
}

/** A change to ask of a run, and the follow-ups it calls for, read from what it answers. */
export interface Asked<C, A> {
  readonly runId: string;
  readonly command: C;
  /** The key it is kept under (the action and the caller's idempotency_key), if any. */
  readonly key: string | null;
  /** What the caller sent under its key (another request under the same key is refused). */
  readonly request?: Readonly<Record<string, unknown>> | undefined;
  readonly followUps: (answer: A) => readonly FollowUp[];
  /**
   * Whether a replay does the follow-ups the run recorded with the first (read from its log)
   * rather than `followUps`: for those priced when the fact happened (a failed collection's fee).
   */
  readonly recorded?: boolean;
}

/** Asks the run for a change, then does its follow-ups (followThrough): the run after it. */
export async function changeAndFollow(
  deps: RunDeps,
  caller: RunCaller,
  asked: Asked<RunChange, NetworkRun>,
): Promise<NetworkRun> {
  const { runId, command, key, request } = asked;
  const { run, batch } = await askRun(deps, caller, runId, command, key, request);
  const followUps = asked.followUps(run);
  await followThrough(deps.runtime, caller.tenant, runId, batch, followUps, deps.requestId);
  return run;
}

/** Asks the run for a stop action, then does its follow-ups: what the action answers. */
export async function stopAndFollow(
  deps: RunDeps,
  caller: RunCaller,
  asked: Asked<StopChange, StopAnswer>,
): Promise<StopAnswer> {
  const { runId, command, key, request } = asked;
  const { answer, batch } = await askStop(deps, caller, runId, command, key, request);
  if (asked.recorded && batch !== null) {
    await redoBatches(deps.runtime, caller.tenant, runId, [batch], deps.requestId);
    return answer;
  }
  const followUps = asked.followUps(answer);
  await followThrough(deps.runtime, caller.tenant, runId, batch, followUps, deps.requestId);
  return answer;
}

/**
 * Doing what must follow a run's change (network_run follow_ups.ts): custody moves on shipments,
 * later charges, crossings, a laboratory handover, alerts. The request that made the change does
 * them before it answers, then tells the run they are done; the run follow-ups reactor does those
 * a crash or a failure left due. Each is keyed by its condition, so it happens once.
 */
import {
  asRun,
  carriedPieces,
  deliversNext,
  type FollowUp,
  holderOf,
  type NetworkRun,
  networkRunActor,
  type RunChange,
  type StopAnswer,
  type StopChange,
} from "../../../../actors/courier/network_run/mod.ts";
import type { Crossing } from "../../../../actors/courier/customs_crossing/mod.ts";
import { Refused } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { raiseAlert } from "../alerts.ts";
import { recordCrossing, vehicleLeft } from "../customs.ts";
import { labHandedOver } from "../lab.ts";
import { postClientCharge, postLaterCharge } from "../later_charges.ts";
import { recordOnce, shipmentIn } from "../shipments.ts";
import { askRun, askStop } from "./ask.ts";
import type { RunCaller, RunDeps } from "./caller.ts";

/**
 * Does one follow-up; a refusal is thrown (Refused), as the request answers it. `requestId`: the
 * request whose change called for it, named by the shipment's change a custody move makes.
 */
export async function performFollowUp(
  runtime: ActorRuntime,
  tenant: string,
  f: FollowUp,
  requestId?: string,
): Promise<void> {
  switch (f.kind) {
    case "custody":
      await recordOnce(runtime, tenant, f.waybill, f.key, f.scan, requestId);
      return;
    case "charge": {
      const s = await shipmentIn(runtime, tenant, f.waybill);
      const r = await postLaterCharge(runtime, s, { ...f.charge, by: f.by });
      if (r && !r.ok) throw new Refused(r);
      return;
    }
    case "client_charge": {
      const charge = { ...f.charge, by: f.by };
      const r = await postClientCharge(runtime, tenant, f.client_id, charge, f.at);
      if (r && !r.ok) throw new Refused(r);
      return;
    }
    case "crossing":
      return await crossed(runtime, tenant, f, requestId);
    case "vehicle_left":
      await vehicleLeft(runtime, tenant, f.crossing_id, f.by);
      return;
    case "lab_handover":
      // A retry tells it again; the first handover recorded stands.
      return await labHandedOver(runtime, tenant, f.waybill, f.at);
    case "alert":
      await raiseAlert(runtime, tenant, f.alert);
      return;
  }
}

/** The shipment's crossing records the side; a shipment customs refused stays behind. */
async function crossed(
  runtime: ActorRuntime,
  tenant: string,
  f: Extract<FollowUp, { kind: "crossing" }>,
  requestId: string | undefined,
): Promise<void> {
  try {
    const crossing = await recordCrossing(runtime, tenant, f.crossing_id, f.side, f.by);
    await outForDeliveryPastBorder(runtime, tenant, crossing, f.by, requestId);
  } catch (e) {
    if (!(e instanceof Refused && e.rejection.code === "crossing_closed")) throw e;
  }
}

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
  const followUps = asked.followUps(answer);
  await followThrough(deps.runtime, caller.tenant, runId, batch, followUps, deps.requestId);
  return answer;
}

/**
 * spec: courier 3.2 (delivery_attempt opens when out for delivery): a shipment a delivery run
 * takes across a border goes out for delivery once the vehicle has entered with it and customs
 * cleared or released it, whichever comes last, when no other border is left before its deliver
 * stop. Both steps call this; keyed by the crossing, so either, or a retry, moves it once.
 * `requestId`: the request the step is done for, if any.
 */
export async function outForDeliveryPastBorder(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  by: string,
  requestId?: string,
): Promise<void> {
  const settled = crossing.status === "cleared" || crossing.status === "released";
  if (!settled || crossing.entry_at === null || crossing.vehicle_left_at !== null) return;
  if (crossing.run_id === null) return;
  const got = await runtime.read(networkRunActor, tenant, crossing.run_id, { kind: "get" });
  if (!got.ok) return;
  const run = asRun(got.reply);
  const aboard = run.items.some((i) => i.waybill === crossing.waybill && i.state === "on_board");
  if (!aboard || !deliversNext(run, crossing.waybill)) return;
  await recordOnce(runtime, tenant, crossing.waybill, `customs:${crossing.id}:out_for_delivery`, {
    event: "out_for_delivery",
    holder: holderOf(run),
    pieces: carriedPieces(run.stops, crossing.waybill),
    by,
  }, requestId);
}

/**
 * A run's follow-up refused for good (a shipment that will never take the custody move, an
 * account that refuses the charge) is parked: kept as deferred work in status `parked`, shown to
 * the operator (GET /operator/deferred-work?status=parked) with the refusal, and never tried
 * again, where it used to be tried again every RUN_FOLLOW_UP_RETRY_MS for ever. A failure (the
 * store, a busy actor, a ledger catching up) is no refusal: its batch stays due and is retried.
 */
import type { FollowUp } from "../../../../actors/courier/network_run/mod.ts";
import { networkRunActor } from "../../../../actors/courier/network_run/mod.ts";
import { deferredWorkActor, deferredWorkId } from "../../../../actors/platform/deferred_work.ts";
import { subjectOf } from "../../../bus/bus.ts";
import { type Rejection } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";

/** The worker parked follow-ups are listed under (the run follow-ups reactor's name). */
export const RUN_FOLLOW_UPS_WORKER = "run_follow_ups";

/** Where a follow-up was recorded: its run, its batch and its place in the batch. */
export interface FollowUpAt {
  readonly runId: string;
  readonly batch: string;
  readonly n: number;
  readonly followUp: FollowUp;
}

/** Parks the follow-up with what refused it; the same one parked again is kept once. */
export async function parkFollowUp(
  runtime: ActorRuntime,
  tenant: string,
  at: FollowUpAt,
  refusal: Rejection,
): Promise<void> {
  const subject = subjectOf(runtime.busPrefix, tenant, networkRunActor.type, at.runId);
  const id = deferredWorkId(RUN_FOLLOW_UPS_WORKER, subject, `${at.batch}/${at.n}`);
  const r = await runtime.ask(deferredWorkActor, tenant, id, {
    kind: "park",
    worker: RUN_FOLLOW_UPS_WORKER,
    subject,
    payload: { run_id: at.runId, batch: at.batch, follow_up: at.followUp },
    error: `${refusal.code}: ${refusal.message}`.slice(0, 500),
  });
  if (!r.ok) throw new Error(`parking a follow-up of run ${at.runId}: ${r.code}: ${r.message}`);
}

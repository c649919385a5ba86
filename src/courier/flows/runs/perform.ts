/**
 * Doing one follow-up of a run's change (network_run follow_ups.ts), and doing again the batches
 * a crash or a failure left due (the run follow-ups reactor): each is keyed by its condition, so
 * whoever does it, however often, it happens once. A follow-up refused for good is parked, not
 * tried again (parking.ts); a failure leaves its batch due.
 */
import {
  type FollowUp,
  networkRunActor,
  type StoredRunEvent,
} from "../../../../actors/courier/network_run/mod.ts";
import type { ClosedOnRuns } from "../../../../actors/courier/shipment/mod.ts";
import { shipmentRunsActor } from "../../../../actors/courier/shipment_runs.ts";
import { lastingRefusal, orRefuse, Refused } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { raiseAlert } from "../alerts.ts";
import { recordCrossing, vehicleLeft } from "../customs.ts";
import { moveCrossing } from "../customs_moves.ts";
import { labHandedOver } from "../lab.ts";
import { postClientCharge, postLaterCharge } from "../later_charges.ts";
import { recordOnce, shipmentIn } from "../shipments.ts";
import { type FollowUpAt, parkFollowUp } from "./parking.ts";
import { outForDeliveryPastBorder } from "./past_border.ts";
import { claimBack } from "./planning.ts";

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
    case "custody": {
      const s = await recordOnce(runtime, tenant, f.waybill, f.key, f.scan, requestId);
      if (s === null && f.run_id !== undefined) await endClosedItem(runtime, tenant, f, f.run_id);
      return;
    }
    case "charge": {
      const s = await shipmentIn(runtime, tenant, f.waybill);
      const r = await postLaterCharge(runtime, s, { ...f.charge, by: f.by });
      if (r && !r.ok) throw new Refused(r);
      return;
    }
    case "client_charge": {
      const charge = { ...f.charge, by: f.by };
      const r = await postClientCharge(runtime, tenant, f.client_id, charge, f);
      if (r && !r.ok) throw new Refused(r);
      return;
    }
    case "crossing":
      return await crossed(runtime, tenant, f, requestId);
    case "refused_at_border":
      return await refusedAtBorder(runtime, tenant, f, requestId);
    case "vehicle_left":
      await vehicleLeft(runtime, tenant, f.crossing_id, f.by);
      return;
    case "lab_handover":
      // A retry tells it again; the first handover recorded stands.
      return await labHandedOver(runtime, tenant, f.waybill, f.at);
    case "alert":
      await raiseAlert(runtime, tenant, f.alert);
      return;
    case "transfer_out":
      return await transferredOut(runtime, tenant, f);
  }
}

/**
 * spec: courier 3.4: an item's end state is what happened to it: a move of the run (departure,
 * unload) that met the shipment closed by operations has the run end its item as the shipment
 * ended (delivered, returned; cancelled: returned to origin), so run and shipment agree.
 */
async function endClosedItem(
  runtime: ActorRuntime,
  tenant: string,
  f: Extract<FollowUp, { kind: "custody" }>,
  runId: string,
): Promise<void> {
  const { status } = await shipmentIn(runtime, tenant, f.waybill);
  if (status !== "delivered" && status !== "returned" && status !== "cancelled") return;
  const command = { kind: "item_closed", waybill: f.waybill, status, by: f.scan.by } as const;
  orRefuse(await runtime.ask(networkRunActor, tenant, runId, command));
}

/**
 * spec: courier 3.4: an item's end state is what happened to it: operations closed the shipment
 * (the shipment's outbox, closed_on_runs.ts), so every run it boarded, or that plans it, ends its
 * item as the shipment ended, at once, not at its next custody move (which may never come: a
 * deliver stop of a delivered shipment is refused). A run with none open changes nothing.
 */
export async function closeOnRuns(
  runtime: ActorRuntime,
  tenant: string,
  closed: ClosedOnRuns,
): Promise<void> {
  const { waybill, status, by } = closed;
  const got = await runtime.read(shipmentRunsActor, tenant, waybill, { kind: "get" });
  if (!got.ok) throw new Refused(got);
  const planned = got.reply.planned_on ?? null;
  const runs = new Set([...got.reply.runs, planned?.run_id, planned?.from_run]);
  for (const runId of runs) {
    if (runId === undefined) continue;
    const command = { kind: "item_closed", waybill, status, by } as const;
    const r = await runtime.ask(networkRunActor, tenant, runId, command);
    if (r.ok || r.code === "not_found") continue;
    // Only a not-now refusal is worth a retry: one for good would keep the outbox item at its
    // longest backoff for ever, so it is reported once and the item is done.
    if (lastingRefusal(new Refused(r)) === null) throw new Refused(r);
    console.error(
      `closed_on_runs: run ${runId} refused to end ${waybill}: ${r.code}: ${r.message}`,
    );
  }
}

/**
 * spec: courier 3.4, 3.2: customs refused the border stop, so the crossings presented there are
 * refused with its reason, and their shipments wait on customs no more (customs_moves.ts, keyed
 * by the move, so a retry refuses once). A crossing customs let go, or refused, already stays.
 */
async function refusedAtBorder(
  runtime: ActorRuntime,
  tenant: string,
  f: Extract<FollowUp, { kind: "refused_at_border" }>,
  requestId: string | undefined,
): Promise<void> {
  const move = { action: "refuse", reason: f.reason, by: f.by } as const;
  try {
    await moveCrossing(runtime, tenant, f.crossing_id, move, requestId);
  } catch (e) {
    if (!(e instanceof Refused && e.rejection.code === "crossing_closed")) throw e;
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
 * The refusals of the run a transfer came from that make the target give back what it took: an
 * item ended there meanwhile, or customs held it meanwhile (courier 3.4).
 */
export const GIVEN_BACK: ReadonlySet<string> = new Set([
  "not_transferable",
  "not_on_run",
  "held_by_customs",
  "shipment_closed",
]);

/**
 * spec: courier 3.4: the run a transfer came from marks the items transferred to the run that
 * took them (the transfer a crash cut off after the target took them), then its own follow-ups
 * (the custody moves) are done; once marked, this changes nothing. When it refuses because an
 * item ended there meanwhile, the target gives back what it took, so no shipment rides on two.
 */
async function transferredOut(
  runtime: ActorRuntime,
  tenant: string,
  f: Extract<FollowUp, { kind: "transfer_out" }>,
): Promise<void> {
  const { from_run: fromRun, to_run: toRun, waybills, by } = f;
  const command = {
    kind: "transfer",
    waybills,
    to_run: toRun,
    to: f.to,
    gates: f.gates ?? null,
    by,
  } as const;
  const r = await runtime.ask(networkRunActor, tenant, fromRun, command);
  if (!r.ok) {
    if (!GIVEN_BACK.has(r.code)) throw new Refused(r);
    const undo = { kind: "transfer_in_undo", from_run: fromRun, waybills, by } as const;
    orRefuse(await runtime.ask(networkRunActor, tenant, toRun, undo));
    // The claims that passed to the target come back (courier 3.4: the shipment stays here).
    for (const waybill of waybills) {
      await claimBack(runtime, tenant, { from: fromRun, to: toRun, waybill });
    }
    return;
  }
  const batch = "follow_ups" in r.reply ? r.reply.follow_ups : undefined;
  if (batch !== undefined) await redoBatches(runtime, tenant, fromRun, [batch]);
}

/**
 * Does the follow-ups of `batches`, read from the run's log, then tells the run they are done;
 * answers how many there were and how many of them were parked. One refused for good is parked
 * and the rest are done; a failure is thrown, leaving the batches due.
 */
export async function redoBatches(
  runtime: ActorRuntime,
  tenant: string,
  runId: string,
  batches: readonly string[],
  requestId?: string,
): Promise<{ done: number; parked: number }> {
  const due = await dueFollowUps(runtime, runId, batches);
  let parked = 0;
  for (const at of due) {
    try {
      await performFollowUp(runtime, tenant, at.followUp, requestId);
    } catch (e) {
      const refusal = lastingRefusal(e);
      // Another run's step on the shipment still to land (run_steps.ts): not now, not never.
      if (refusal === null || refusal.code === "run_step_under_way") throw e;
      await parkFollowUp(runtime, tenant, at, refusal);
      parked++;
    }
  }
  orRefuse(await runtime.ask(networkRunActor, tenant, runId, { kind: "follow_ups_done", batches }));
  return { done: due.length, parked };
}

/** The follow-ups the run recorded in `batches`, in order, each with where it was recorded. */
async function dueFollowUps(
  runtime: ActorRuntime,
  runId: string,
  batches: readonly string[],
): Promise<FollowUpAt[]> {
  const due: FollowUpAt[] = [];
  for await (const { event } of runtime.events(networkRunActor, runId)) {
    const e = event as StoredRunEvent;
    if (e.kind !== "follow_ups_due" || !batches.includes(e.batch)) continue;
    e.follow_ups.forEach((followUp, n) => due.push({ runId, batch: e.batch, n, followUp }));
  }
  return due;
}

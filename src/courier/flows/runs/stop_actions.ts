/**
 * The stop actions of courier 4.5: border, cross, deliver, collect, fail. Every one accepts an
 * idempotency_key, and a replay after lost signal answers the first answer; the run decides, and
 * the request then does its follow-ups (custody moves, charges, crossings, the laboratory
 * handover), each once by its key.
 */
import {
  type ClientFee,
  collectFollowUps,
  crossFollowUps,
  deliverFollowUps,
  deliveryGateOf,
  failFollowUps,
  holderOf,
  type NetworkRun,
  presentable,
  stepKeyOf,
  type Stop,
  type StopAnswer,
} from "../../../../actors/courier/network_run/mod.ts";
import { refuse, Refused } from "../../../runtime/actor.ts";
import { openCrossing } from "../customs.ts";
import { labHandoverAllowed } from "../lab.ts";
import { reserveRunStep } from "../run_steps.ts";
import { clientFeeAt } from "../later_charges.ts";
import { shipmentIn } from "../shipments.ts";
import type { Shipment } from "../../../../actors/courier/shipment/mod.ts";
import { runFor, stopOf } from "./ask.ts";
import { passCustoms, withdrawPresented } from "./customs_gate.ts";
import { invalid, needScope, type RunCaller, type RunDeps } from "./caller.ts";
import { stopAndFollow } from "./follow_ups.ts";
import { refuseIfHeld, stopShipment } from "./item_actions.ts";
import { runLoadOf } from "./loads.ts";
import { lostClaim, planDelivery } from "./planning.ts";

/** A stop action's request as the route read it (courier 4.5). */
export type StopActionInput = {
  readonly idempotency_key?: string | undefined;
  readonly side?: "exit" | "entry" | undefined;
  readonly waybill?: string | undefined;
  readonly labels?: readonly string[] | undefined;
  readonly reason?: string | undefined;
  readonly lab_handover?: boolean | undefined;
  readonly received_by?: string | undefined;
  readonly note?: string | undefined;
};

/** The run, its stop, and the key the action is kept under (the stop, the action, the key). */
async function stopAt(
  deps: RunDeps,
  caller: RunCaller,
  at: { runId: string; stopId: string; action: string },
  body: StopActionInput,
) {
  const run = await runFor(deps, caller, at.runId);
  const stop = stopOf(run, at.stopId);
  // spec: courier 4.5: every stop action accepts idempotency_key; a replay answers the first.
  const key = body.idempotency_key ? `${at.stopId}:${at.action}:${body.idempotency_key}` : null;
  return { run, stop, key };
}

/** The driver presents the vehicle at a border stop: each shipment on board to customs. */
export async function border(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  stopId: string,
  body: StopActionInput,
): Promise<StopAnswer> {
  let presented: readonly string[] = [];
  for (let tries = 1;; tries++) {
    const { run, stop, key } = await stopAt(
      deps,
      caller,
      { runId, stopId, action: "border" },
      body,
    );
    if (stop.kind !== "checkpoint") refuse("not_found", `no checkpoint ${stopId}`);
    // spec: courier 3.4: what the try before presented and the run no longer carries is
    // withdrawn (the stop goes on without it).
    await withdrawPresented(deps, caller, { run, stop }, presented);
    // Before any shipment is presented to customs (the run decides it again in turn).
    const early = stop.status === "pending" ? presentable(run) : null;
    if (early) throw new Refused(early);
    const aboard = run.items.filter((i) => i.state === "on_board").map((i) => i.waybill);
    const crossings: string[] = [];
    presented = aboard;
    for (const waybill of aboard) {
      crossings.push(await presentAt(deps, caller, { run, stop, waybill }));
    }
    const command = {
      kind: "stop_border",
      stop_id: stopId,
      crossings,
      waybills: aboard,
      by: caller.by,
    } as const;
    try {
      // spec: courier 2.9: presented here, the vehicle left a border it presented and never
      // entered: the run recorded it (leftBorderFollowUps), from the stops as it found them.
      return await stopAndFollow(deps, caller, {
        runId,
        command,
        key,
        request: body,
        recorded: true,
        followUps: () => [],
      });
    } catch (e) {
      // The load changed since it was read: presented again as it is now.
      const changed = e instanceof Refused && e.rejection.code === "border_load_changed";
      if (!changed) throw e;
      if (tries >= BORDER_TRIES) {
        const now = await runFor(deps, caller, runId);
        await withdrawPresented(deps, caller, { run: now, stop: stopOf(now, stopId) }, presented);
        throw e;
      }
    }
  }
}

/** Presentations tried before a border stop whose load keeps changing is refused. */
const BORDER_TRIES = 3;

/** The shipment presented to customs at the border stop: its crossing opened (once). */
async function presentAt(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; stop: Stop; waybill: string },
): Promise<string> {
  const { run, stop, waybill } = at;
  return await openCrossing(deps.runtime, caller.tenant, {
    waybill,
    country: stop.country ?? "",
    to_country: stop.to_country ?? "",
    border_post: stop.border_post ?? "",
    run_id: run.id,
    stop_id: stop.id,
    holder: holderOf(run),
    by: caller.by,
  }, deps.requestId);
}

/**
 * spec: courier 3.4, 5: the driver presents; customs:approve clears the vehicle at the border
 * (exit, then entry) or refuses it (fail with a reason). Each shipment's crossing records the
 * same side (exit before entry, once each).
 */
export async function cross(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  stopId: string,
  body: StopActionInput,
): Promise<StopAnswer> {
  const { key } = await stopAt(deps, caller, { runId, stopId, action: "cross" }, body);
  needScope(caller, "customs:approve");
  const side = body.side;
  if (!side) invalid([{ path: "side", message: "exit or entry" }]);
  const command = { kind: "stop_cross", stop_id: stopId, side, by: caller.by } as const;
  return await stopAndFollow(deps, caller, {
    runId,
    command,
    key,
    request: body,
    followUps: (answer) => crossFollowUps(answer.stop, command),
  });
}

export async function deliver(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  stopId: string,
  body: StopActionInput,
): Promise<StopAnswer> {
  const { run, stop, key } = await stopAt(
    deps,
    caller,
    { runId, stopId, action: "deliver" },
    body,
  );
  if (stop.kind !== "deliver" || !stop.waybill) refuse("not_found", `no deliver stop ${stopId}`);
  // A replay of a delivery made finds the stop done and answers as it did.
  let gate = null;
  if (stop.status !== "done") {
    await deliverable(deps, caller, run, { stopId, waybill: stop.waybill });
    // spec: courier 3.4: a hold landing from now on voids this delivery (customs_gate.ts).
    gate = await passCustoms(deps, caller, { run, waybill: stop.waybill }, "delivered");
  }
  const command = {
    kind: "stop_deliver",
    stop_id: stopId,
    lab_handover: body.lab_handover ?? false,
    received_by: body.received_by ?? null,
    note: body.note ?? null,
    gate,
    by: caller.by,
  } as const;
  return await stopAndFollow(deps, caller, {
    runId,
    command,
    key,
    request: body,
    followUps: () => deliverFollowUps(runId, stop, command, deps.clock.now()),
  });
}

/**
 * Refuses the delivery of a shipment that cannot be delivered now: one already closed (another
 * run delivered it, or it was returned or cancelled), one customs holds, or a laboratory sample
 * that waits for the laboratory's decision.
 */
async function deliverable(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  at: { stopId: string; waybill: string },
) {
  const { waybill } = at;
  // spec: courier 3.4: an item's end state is what happened to it on this run; a shipment
  // delivered by another run, returned or cancelled was not delivered by this one (the run
  // reports it instead). Reserved, not read: one closed from now on voids this delivery.
  await reserveStep(deps, caller, { run, stopId: at.stopId, action: "deliver", waybill });
  // spec: courier 3.4: a shipment customs holds stays held (its end state on the run is customs
  // hold); it is delivered once customs lets it go. Read here so the hold is the refusal named
  // before the laboratory's; the delivery's reservation (passCustoms) then closes the race.
  await refuseIfHeld(deps, caller, run, waybill, "delivered");
  // spec: courier 3.4: a blocked sample waits for the laboratory's decision however the delivery
  // is recorded (not only when it says lab_handover).
  // Reserved under the delivery's gate: a block recorded from now on voids this delivery.
  const delivery = { token: deliveryGateOf(run, waybill), run_id: run.id, waybill };
  const allowed = await labHandoverAllowed(deps.runtime, caller.tenant, waybill, delivery);
  if (!allowed.ok) {
    refuse(
      "lab_handover_blocked",
      `the laboratory handover waits for the laboratory's decision: ${allowed.reasons.join("; ")}`,
    );
  }
}

export async function collect(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  stopId: string,
  body: StopActionInput,
): Promise<StopAnswer> {
  const { run, stop, key } = await stopAt(
    deps,
    caller,
    { runId, stopId, action: "collect" },
    body,
  );
  if (stop.kind !== "collect" || !stop.work_order) {
    refuse("not_found", `no collect stop ${stopId}`);
  }
  if (!body.waybill) invalid([{ path: "waybill", message: "required" }]);
  const s = await shipmentIn(deps.runtime, caller.tenant, body.waybill);
  if (s.client_id !== stop.work_order.courier_client_id) {
    invalid([{ path: "waybill", message: "the shipment is not the work order's client's" }]);
  }
  refuseUnknownLabels(s, body.waybill, body.labels);
  // spec: courier 2.6 rule 3, 3.4: a shipment delivered, returned or cancelled is not collected,
  // nor its errand charged (reserved: one closed from now on voids this collection); a
  // collection made (replayed) answers as it did.
  const made = stop.collected.some((x) => x.waybill === body.waybill);
  if (!made) {
    await reserveStep(deps, caller, { run, stopId, action: "collect", waybill: s.waybill });
  }
  // spec: courier 4.5: more than reserved needs runs:override and a reason.
  if (body.reason) needScope(caller, "runs:override");
  // spec: courier 3.4: one run carries a shipment out at a time: the collection claims it as a
  // deliver stop does (planning.ts); a collection made, sent again, answers as it did.
  const claim = made ? null : await planDelivery(deps, caller, runId, s.waybill);
  const command = {
    kind: "stop_collect",
    stop_id: stopId,
    waybill: body.waybill,
    // Each collected piece is labelled (courier 2.10): its piece id unless a label is given.
    labels: body.labels ?? s.pieces.map((x) => x.id),
    load: await runLoadOf(deps.runtime, caller.tenant, s, runId),
    override_reason: body.reason ?? null,
    claim,
    by: caller.by,
  } as const;
  return await stopAndFollow(deps, caller, {
    runId,
    command,
    key,
    request: body,
    followUps: (answer) => collectFollowUps(answer.run, answer.stop, command),
  }).catch((e) => lostClaim(deps, caller, { runId, waybill: s.waybill }, e));
}

/**
 * spec: courier 2.10, 7: each collected piece is labelled; a label naming a piece of `waybill`
 * (as carriedPieces reads them) the shipment does not have is refused before the run records the
 * collection, whose custody move (and errand) it would otherwise leave refused after it.
 */
function refuseUnknownLabels(s: Shipment, waybill: string, labels: readonly string[] | undefined) {
  const known = new Set(s.pieces.map((p) => p.id));
  const unknown = labels?.find((l) => l.startsWith(`${waybill}-`) && !known.has(l));
  if (unknown) refuse("unknown_piece", `no such piece on ${s.waybill}: ${unknown}`);
}

export async function fail(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  stopId: string,
  body: StopActionInput,
): Promise<StopAnswer> {
  const { run, stop, key } = await stopAt(deps, caller, { runId, stopId, action: "fail" }, body);
  if (stop.kind === "checkpoint") needScope(caller, "customs:approve");
  if (!body.reason) invalid([{ path: "reason", message: "required" }]);
  if (stop.kind === "collect" && body.waybill) {
    await stopShipment(deps, caller, run, stop, body.waybill);
  }
  // spec: courier 3.2, 3.4: a shipment customs holds was never offered to its recipient: no
  // attempt is recorded (nor a redelivery owed). A failure recorded, sent again, answers as it did.
  let gate = null;
  if (stop.kind === "deliver" && stop.waybill && stop.status !== "failed") {
    const waybill = stop.waybill;
    // A stop delivered already is refused by the run (stop_already_done).
    if (stop.status !== "done") {
      await reserveStep(deps, caller, { run, stopId, action: "fail", waybill });
    }
    gate = await passCustoms(deps, caller, { run, waybill }, "attempted");
  }
  const charged = stop.kind === "collect" && !body.waybill && stop.work_order !== null;
  const fee = charged ? await failedCollectionFee(deps, caller, stop) : undefined;
  const command = {
    kind: "stop_fail",
    stop_id: stopId,
    reason: body.reason,
    waybill: body.waybill ?? null,
    gate,
    ...(fee !== undefined ? { fee } : {}),
    by: caller.by,
  } as const;
  return await stopAndFollow(deps, caller, {
    runId,
    command,
    key,
    request: body,
    // A failure sent again books the fee the run recorded with the first: priced now, it could
    // be another card's (courier 2.6 rules 1, 2).
    recorded: charged && fee === undefined,
    followUps: () => failFollowUps(runId, stop, command, deps.clock.now()),
  });
}

const CANNOT_BE = { deliver: "delivered", collect: "collected", fail: "attempted" } as const;

/**
 * Reserves the shipment for the run's step on it (run_steps.ts): refused `shipment_closed` once
 * it is delivered, returned or cancelled; a scan closing it from now on voids the step first.
 */
async function reserveStep(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; stopId: string; action: keyof typeof CANNOT_BE; waybill: string },
): Promise<void> {
  const { run, stopId, action, waybill } = at;
  const step = { key: stepKeyOf(run.id, stopId, action, waybill), run_id: run.id };
  await reserveRunStep(deps.runtime, caller.tenant, { waybill, step }, CANNOT_BE[action]);
}

/**
 * spec: courier 2.6 rules 1, 2, 6.1 `run.collection_failed:{stop}`: a failed collection that
 * picked nothing up is charged the fee of the work order's client's card in force when it
 * failed, decided before the run records the failure and recorded with it, so a retry after a
 * crash, or the reactor, books the same amount after the client's card changed. Undefined: the
 * stop had failed already (its fee was recorded then).
 */
async function failedCollectionFee(
  deps: RunDeps,
  caller: RunCaller,
  stop: Stop,
): Promise<ClientFee | null | undefined> {
  if (stop.status === "failed" || !stop.work_order) return undefined;
  const client = stop.work_order.courier_client_id;
  return await clientFeeAt(
    deps.runtime,
    caller.tenant,
    client,
    "failed_collection",
    deps.clock.now(),
  );
}

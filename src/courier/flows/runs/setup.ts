/**
 * Making a run and what it works with (courier 2.10, 4.5): the run with its capacities, its
 * stops (deliver, collect, checkpoint), its driver, and its expenses with their receipts.
 */
import {
  type Load,
  type NetworkRun,
  NO_LOAD,
  stopAddedFollowUps,
  unassignedFollowUps,
} from "../../../../actors/courier/network_run/mod.ts";
import { courierClientActor } from "../../../../actors/courier/courier_client.ts";
import { driverActor } from "../../../../actors/platform/driver.ts";
import { foundOrNull, refuse } from "../../../runtime/actor.ts";
import { FINAL_HEADLINES } from "../../rules/lifecycle.ts";
import { sha256Hex } from "../../../domain/secrets.ts";
import { derivedId, newId } from "../../../runtime/ids.ts";
import { type EvidenceUpload, storeEvidence } from "../evidence.ts";
import { shipmentIn } from "../shipments.ts";
import { askRun, readRun, refuseAsRunWould, runFor } from "./ask.ts";
import { invalid, type RunCaller, type RunDeps } from "./caller.ts";
import { changeAndFollow } from "./follow_ups.ts";
import { runLoadOf } from "./loads.ts";
import { lostClaim, planDelivery } from "./planning.ts";

/** Capacities in the units a run is described in (courier 2.10: kg, m3, pieces, cold slots). */
export interface Capacities {
  readonly kg: number;
  readonly m3: number;
  readonly pieces: number;
  readonly cold_slots: number;
}

/** Capacities in the exact units the run counts: grams and cubic centimetres. */
export function exactLoad(c: Capacities): Load {
  return {
    grams: Math.round(c.kg * 1000),
    cm3: Math.round(c.m3 * 1_000_000),
    pieces: c.pieces,
    cold_slots: c.cold_slots,
  };
}

export interface NewRunInput {
  readonly facility_id: string;
  readonly kind: string;
  readonly countries: readonly string[];
  readonly capacities: Capacities;
  readonly vehicle: string | null;
  readonly driver_id: string | null;
}

/** Refuses `validation_failed` on driver_id unless it names one of the courier's drivers. */
async function needDriver(deps: RunDeps, caller: RunCaller, driverId: string | null) {
  if (!driverId) return;
  // A refused read (a full mailbox) is thrown (503): a driver that exists is no bad field.
  const d = await deps.runtime.read(driverActor, caller.tenant, driverId, { kind: "get" });
  if (foundOrNull(d) === null) invalid([{ path: "driver_id", message: "no such driver" }]);
}

export async function createRun(
  deps: RunDeps,
  caller: RunCaller,
  input: NewRunInput,
): Promise<NetworkRun> {
  await needDriver(deps, caller, input.driver_id);
  const id = newId("run");
  await askRun(deps, caller, id, {
    kind: "create",
    run: {
      id,
      courier_id: caller.tenant,
      facility_id: input.facility_id,
      kind: input.kind,
      countries: input.countries,
      capacity: exactLoad(input.capacities),
      vehicle: input.vehicle,
      driver_id: input.driver_id,
    },
    by: caller.by,
  });
  return await readRun(deps, caller.tenant, id);
}

export async function assignDriver(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  driverId: string | null,
): Promise<NetworkRun> {
  await needDriver(deps, caller, driverId);
  return await changeAndFollow(deps, caller, {
    runId,
    command: { kind: "assign_driver", driver_id: driverId, by: caller.by },
    key: null,
    followUps: unassignedFollowUps,
  });
}

export type NewStopInput = {
  readonly kind: "deliver" | "collect" | "checkpoint";
  readonly waybill?: string | undefined;
  readonly work_order?: {
    readonly sender: string;
    readonly recipient: string;
    readonly courier_client_id: string;
    readonly reserved: Capacities;
  } | undefined;
  readonly country?: string | undefined;
  readonly to_country?: string | undefined;
  readonly border_post?: string | undefined;
  readonly idempotency_key?: string | undefined;
};

/**
 * What a stop is checked for before the run takes it: its load, and a deliver stop's claim on its
 * shipment (null: none taken, the stop was added before under its key).
 */
async function stopLoad(
  deps: RunDeps,
  caller: RunCaller,
  at: { runId: string; stopId: string },
  body: NewStopInput,
): Promise<{ load: Load; claim: string | null }> {
  const { runId } = at;
  let load = NO_LOAD, claim = null;
  if (body.kind === "deliver") {
    if (!body.waybill) invalid([{ path: "waybill", message: "required" }]);
    const s = await shipmentIn(deps.runtime, caller.tenant, body.waybill);
    const run = await readRun(deps, caller.tenant, runId);
    const added = run.stops.some((x) => x.id === at.stopId);
    // spec: courier 3.4: a shipment delivered, returned or cancelled is not planned for delivery
    // again; the stop that delivered it on this run, added again, answers as before.
    if (FINAL_HEADLINES.has(s.status) && !run.items.some((i) => i.waybill === s.waybill)) {
      refuse("shipment_closed", `${s.waybill} is ${s.status} already: no stop delivers it`);
    }
    // spec: courier 3.4: one run plans a shipment's delivery at a time; a stop added before under
    // its key answers as before.
    if (!added && !FINAL_HEADLINES.has(s.status)) {
      claim = await planDelivery(deps, caller, runId, s.waybill);
    }
    load = await runLoadOf(deps.runtime, caller.tenant, s, runId);
  }
  if (body.kind === "collect" && !body.work_order) {
    invalid([{ path: "work_order", message: "required for a collect stop" }]);
  }
  if (body.kind === "collect" && body.work_order) {
    // The client the work is for, and whose failed collection is charged, is this courier's.
    const id = body.work_order.courier_client_id;
    const client = await deps.runtime.read(courierClientActor, caller.tenant, id, { kind: "get" });
    if (foundOrNull(client) === null) {
      invalid([{ path: "work_order.courier_client_id", message: `no such client: ${id}` }]);
    }
  }
  if (body.kind === "checkpoint" && (!body.country || !body.to_country || !body.border_post)) {
    invalid([{ path: "border_post", message: "country, to_country and border_post are required" }]);
  }
  return { load, claim };
}

export async function addStop(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: NewStopInput,
): Promise<NetworkRun> {
  // A retry under the same key names the same stop, so it finishes what its first attempt left
  // undone (the boarding move) instead of adding a second stop.
  const key = body.idempotency_key ? `add_stop:${body.idempotency_key}` : null;
  const stopId = key ? derivedId("stop", `${runId}\u0000${key}`) : newId("stop");
  const { load, claim } = await stopLoad(deps, caller, { runId, stopId }, body);
  return await changeAndFollow(deps, caller, {
    runId,
    command: {
      kind: "add_stop",
      stop: {
        id: stopId,
        kind: body.kind,
        waybill: body.kind === "deliver" ? body.waybill! : null,
        work_order: body.work_order
          ? { ...body.work_order, reserved: exactLoad(body.work_order.reserved) }
          : null,
        country: body.country ?? null,
        to_country: body.to_country ?? null,
        border_post: body.border_post ?? null,
        load,
      },
      claim,
      by: caller.by,
    },
    key,
    request: body,
    followUps: (run) => stopAddedFollowUps(run, stopId, caller.by),
  }).catch((e) => lostClaim(deps, caller, { runId, waybill: body.waybill }, e));
}

export interface ExpenseInput {
  /** The expense's idempotency_key (courier 4.5: required). */
  readonly key: string;
  readonly amount_minor: number;
  readonly currency: string;
  readonly receipt: EvidenceUpload;
  readonly note: string | null;
}

/** spec: courier 4.5: expenses need a receipt file and an idempotency_key. */
export async function recordExpense(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  input: ExpenseInput,
): Promise<NetworkRun> {
  const run = await runFor(deps, caller, runId);
  const { key, amount_minor, currency, note } = input;
  const sha256 = sha256Hex(input.receipt.bytes);
  const command = {
    kind: "expense",
    key,
    amount_minor,
    currency,
    receipt: `file:sha256:${sha256}`,
    note: note === null ? null : note.slice(0, 500),
    by: caller.by,
  } as const;
  const request = { amount_minor, currency, receipt: sha256, note };
  // A refused expense keeps no receipt: what the run would refuse is thrown before it is kept.
  await refuseAsRunWould(deps, caller, run, { change: command, key: `expense:${key}`, request });
  const stored = await storeEvidence(deps.runtime, caller.tenant, input.receipt, caller.by);
  if (!stored.ok) refuse(stored.code, stored.message);
  return (await askRun(deps, caller, runId, command, `expense:${key}`, request)).run;
}

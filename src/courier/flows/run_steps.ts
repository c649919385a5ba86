/**
 * A run's step on a shipment (delivered, collected, attempted) and a scan closing it, one after
 * the other (courier 3.4: an item's end state is what happened to it; a parcel is in one state at
 * a time). The run's request reserves the shipment under the step's key before the run records
 * the step (refused once it is closed: actors/courier/shipment/run_steps.ts); a scan closing the
 * shipment that meets the reservation has the run void the step in its turn
 * (actors/courier/network_run/shipment_gate.ts), so the step recorded after is refused. A step the
 * run recorded first stands: the scan is refused until its custody move is recorded.
 *
 * The run's void of a delivery under way under its gate (voidDelivery) is here too: customs
 * holds (customs_moves.ts) and laboratory blocks (lab.ts) call it.
 */
import { networkRunActor, type VoidCode } from "../../../actors/courier/network_run/mod.ts";
import {
  type RunStep,
  shipmentActor,
  type ShipmentCommand,
} from "../../../actors/courier/shipment/mod.ts";
import { type AskOptions, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/** Tries before a scan that keeps meeting new steps under way is refused. */
const RECORD_TRIES = 3;

/**
 * Reserves the shipment for a run's step on it, under the step's key. Refused `shipment_closed`
 * once the shipment is delivered, returned or cancelled (`done`: what it cannot be).
 */
export async function reserveRunStep(
  runtime: ActorRuntime,
  tenant: string,
  at: { waybill: string; step: RunStep },
  done: string,
): Promise<void> {
  const command = { kind: "reserve_run_step", step: at.step } as const;
  const r = await runtime.ask(shipmentActor, tenant, at.waybill, command);
  if (r.ok) return;
  if (r.code === "shipment_closed") {
    refuse("shipment_closed", `${r.message} and cannot be ${done}`, { ...r.details });
  }
  throw new Refused(r);
}

/**
 * Asks the shipment to record a scan; one that would close it while runs' steps are under way
 * has each run void its step first, then is recorded naming them voided. Refused
 * `run_step_under_way` while a run recorded its step and its custody move is still to come.
 */
export async function askRecord(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  command: Extract<ShipmentCommand, { kind: "record" }>,
  options?: AskOptions,
) {
  let voiding: string[] = [];
  for (let tries = 1;; tries++) {
    const asked = voiding.length > 0 ? { ...command, voiding } : command;
    const r = await runtime.ask(shipmentActor, tenant, waybill, asked, options);
    if (r.ok || r.code !== "run_step_under_way" || tries >= RECORD_TRIES) return r;
    const steps = (r.details?.steps ?? []) as RunStep[];
    for (const step of steps) {
      await voidStep(runtime, tenant, { waybill, step, by: command.scan.by });
    }
    voiding = [...voiding, ...steps.map((s) => s.key)];
  }
}

/** The run voids its step under way; refused `run_step_under_way` once it recorded it. */
async function voidStep(
  runtime: ActorRuntime,
  tenant: string,
  at: { waybill: string; step: RunStep; by: string },
): Promise<void> {
  const { waybill, step, by } = at;
  const command = { kind: "void_step", waybill, step: step.key, by } as const;
  const r = await runtime.ask(networkRunActor, tenant, step.run_id, command);
  if (r.ok || r.code === "not_found") return;
  if (r.code === "step_recorded") {
    refuse(
      "run_step_under_way",
      `run ${step.run_id} recorded its step on ${waybill}: try again once its custody move is ` +
        `recorded`,
    );
  }
  throw new Refused(r);
}

/**
 * The run voids its delivery, attempt or transfer under way on the shipment (`under`: its gate,
 * network_run customs_gate.ts), for customs (`code` absent) or a blocked laboratory handover;
 * one it recorded already stands.
 */
export async function voidDelivery(
  runtime: ActorRuntime,
  tenant: string,
  under: { readonly token: string; readonly run_id: string; readonly waybill: string },
  by: string,
  code?: VoidCode,
): Promise<void> {
  const command = {
    kind: "void_delivery",
    waybill: under.waybill,
    gate: under.token,
    by,
    ...(code === undefined ? {} : { code }),
  } as const;
  const r = await runtime.ask(networkRunActor, tenant, under.run_id, command);
  if (r.ok || VOID_MOOT.has(r.code)) return;
  throw new Refused(r);
}

/** The run's refusals that leave nothing to void: the step stands, or the run holds no such. */
const VOID_MOOT: ReadonlySet<string> = new Set(["item_ended", "run_closed", "not_found"]);

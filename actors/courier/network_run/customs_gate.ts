/**
 * A run's step on a shipment (delivered, attempted, transferred) and a customs hold, one after
 * the other (courier 3.4: a shipment customs holds is neither delivered, attempted, nor moved to
 * another run). The step is recorded under the gate its request reserved the shipment's crossings
 * with (src/courier/flows/runs/customs_gate.ts); a hold meeting that reservation has the run void
 * the gate first, so the step recorded after is refused.
 */
import { reject } from "../../../src/runtime/actor.ts";
import type { RunChange } from "./commands.ts";
import { isEnded, type NetworkRun } from "./run.ts";
import { entry, SAME, type Step } from "./step.ts";

/** The gate a step on the shipment is recorded under: the run, the waybill, the voids so far. */
export function deliveryGateOf(run: NetworkRun, waybill: string): string {
  return `${run.id}:${waybill}:${run.delivery_voids?.[waybill] ?? 0}`;
}

/** Refused `held_by_customs` when the step's gate was voided (absent: none was reserved). */
export function voidedGate(run: NetworkRun, waybill: string, gate: string | null | undefined) {
  if (!gate || gate === deliveryGateOf(run, waybill)) return null;
  // spec: courier 3.4: a block recorded meanwhile holds the handover until the lab's decision.
  if (run.delivery_void_codes?.[waybill] === "lab_handover_blocked") {
    return reject(
      "lab_handover_blocked",
      `the laboratory handover of ${waybill} waits for the laboratory's decision: a block was ` +
        `recorded while run ${run.id} was recording it`,
    );
  }
  // spec: courier 3.4: a customs_hold report is refused once customs let the shipment go.
  if (run.delivery_void_codes?.[waybill] === "released_by_customs") {
    return reject(
      "not_held_by_customs",
      `${waybill} is no longer held by customs: customs let it go while run ${run.id} was ` +
        `recording its customs_hold`,
    );
  }
  return reject(
    "held_by_customs",
    `${waybill} is held by customs: customs held it while run ${run.id} was recording it`,
  );
}

/**
 * Customs holds the shipment: the step under way under `gate` is voided. Refused `item_ended`
 * once the run recorded the shipment's end state (a delivery or transfer stands; the hold follows
 * it); a failed attempt leaves the shipment on the run, and its next step is voided.
 */
export function voidDelivery(
  run: NetworkRun,
  c: Extract<RunChange, { kind: "void_delivery" }>,
  now: number,
): Step {
  if (!run.items.some((i) => i.waybill === c.waybill && !isEnded(i))) {
    return reject("item_ended", `${c.waybill} has its end state on run ${run.id}`);
  }
  if (c.gate !== deliveryGateOf(run, c.waybill)) return SAME;
  return [{
    kind: "delivery_voided",
    waybill: c.waybill,
    voids: (run.delivery_voids?.[c.waybill] ?? 0) + 1,
    // The code is kept per waybill: a later customs void states its own.
    code: c.code ?? "held_by_customs",
    entry: entry("delivery_voided", c.by, now, c.waybill),
  }];
}

/**
 * What a shipment takes of a run's capacities (courier 2.10: kg, m3, pieces, cold slots): its
 * parcels' weight and volume, its pieces, and a cold slot per piece when its laboratory sample is
 * kept cold, however late the profile that says so comes (courier 5: runs:override overrides
 * capacity, so it is never exceeded silently).
 */
import { type Load, withColdSlots } from "../../../../actors/courier/network_run/mod.ts";
import { asLabSample, labSampleActor } from "../../../../actors/courier/lab_sample/mod.ts";
import { shipmentRunsActor } from "../../../../actors/courier/shipment_runs.ts";
import type { Shipment } from "../../../../actors/courier/shipment/mod.ts";
import { foundOrNull, orRefuse } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";

/** A shipment's load in exact units (grams, cm3, pieces). */
export function shipmentLoad(s: Shipment): Load {
  return s.parcels.reduce((sum, p) => ({
    grams: sum.grams + Math.round(p.weight_kg * 1000),
    cm3: sum.cm3 + Math.round(p.length_cm * p.width_cm * p.height_cm),
    pieces: sum.pieces + 1,
    cold_slots: sum.cold_slots,
  }), { grams: 0, cm3: 0, pieces: 0, cold_slots: 0 });
}

/**
 * What a shipment boarding run `runId` takes of its capacity: its load, and one cold slot per
 * piece when its laboratory sample is kept cold (a temperature range in its profile). Boarding is
 * recorded first (shipment_runs.ts), so a cold-chain profile set from now on finds the run
 * (cold_slots.ts reserveColdSlots); one set before is read here.
 */
export async function runLoadOf(
  runtime: ActorRuntime,
  tenant: string,
  s: Shipment,
  runId: string,
): Promise<Load> {
  return withColdSlots(shipmentLoad(s), await boardRun(runtime, tenant, s.waybill, runId));
}

/**
 * Records that the shipment boards run `runId` (shipment_runs.ts) and answers whether it is cold
 * chain: flagged by a profile, or a sample profiled before the flag was kept.
 */
export async function boardRun(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  runId: string,
): Promise<boolean> {
  const boarded = orRefuse(
    await runtime.ask(shipmentRunsActor, tenant, waybill, { kind: "board", run_id: runId }),
  );
  return boarded.cold_chain || await sampleIsColdChain(runtime, tenant, waybill);
}

/** The shipment's laboratory sample is kept cold (false: none, or no temperature range). */
export async function sampleIsColdChain(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
): Promise<boolean> {
  // A refused ask (a full mailbox) is thrown: taken as no sample, a cold-chain sample would
  // board without a cold slot (spec: courier 3.4).
  const r = foundOrNull(await runtime.ask(labSampleActor, tenant, waybill, { kind: "get" }));
  return r !== null && asLabSample(r).cold_chain;
}

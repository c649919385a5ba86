/**
 * What a shipment takes of a run's capacities (courier 2.10: kg, m3, pieces, cold slots): its
 * parcels' weight and volume, its pieces, and a cold slot per piece when its laboratory sample is
 * kept cold, however late the profile that says so comes (courier 5: runs:override overrides
 * capacity, so it is never exceeded silently).
 */
import {
  type Load,
  networkRunActor,
  withColdSlots,
} from "../../../../actors/courier/network_run/mod.ts";
import { asLabSample, labSampleActor } from "../../../../actors/courier/lab_sample/mod.ts";
import { shipmentRunsActor } from "../../../../actors/courier/shipment_runs.ts";
import type { Shipment } from "../../../../actors/courier/shipment/mod.ts";
import { foundOrNull, orRefuse, Refused } from "../../../runtime/actor.ts";
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
 * (coldChainOnRuns); one set before is read here.
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
async function sampleIsColdChain(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
): Promise<boolean> {
  // A refused ask (a full mailbox) is thrown: taken as no sample, a cold-chain sample would
  // board without a cold slot (spec: courier 3.4).
  const r = foundOrNull(await runtime.ask(labSampleActor, tenant, waybill, { kind: "get" }));
  return r !== null && asLabSample(r).cold_chain;
}

/**
 * A laboratory profile makes the shipment cold chain (`cold`), or no longer: every run it has
 * boarded counts a cold slot per piece from now on. Call it before the profile when it makes the
 * sample cold, after it when it stops being so: between the two a run counts the slots anyway.
 * Answers `undo`, which takes back what this call reserved (the profile was refused); Refused
 * `capacity_exceeded` (nothing reserved) when a run has too few cold slots.
 */
export async function coldChainOnRuns(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  cold: boolean,
  by: string,
): Promise<{ undo(): Promise<void> }> {
  const tell = async (runs: readonly string[], on: boolean) => {
    for (const runId of runs) {
      const r = await runtime.ask(networkRunActor, tenant, runId, {
        kind: "cold_chain",
        waybill,
        cold: on,
        by,
      });
      if (!r.ok && r.code !== "not_found") return r;
    }
    return null;
  };
  const set = orRefuse(
    await runtime.ask(shipmentRunsActor, tenant, waybill, { kind: "cold_chain", cold }),
  );
  const { runs, was_cold_chain, cold_reservations } = set;
  // Nothing to take back when releasing, or when kept cold before: the runs count its slots
  // already, and a refusal leaves them counted.
  const keep = !cold || was_cold_chain || await sampleIsColdChain(runtime, tenant, waybill);
  const undo = async () => {
    if (keep) return;
    // Only this reservation, and only while no other profile reserved since (its sample may be
    // cold by now): the index decides it in its turn, then the runs follow (spec: courier 2.10).
    const undone = orRefuse(
      await runtime.ask(shipmentRunsActor, tenant, waybill, {
        kind: "cold_chain",
        cold: false,
        undo: cold_reservations ?? 0,
      }),
    );
    if (undone.was_cold_chain && !undone.cold_chain) await tell(runs, false);
  };
  const refused = await tell(runs, cold);
  if (refused) {
    await undo();
    throw new Refused(refused);
  }
  return { undo };
}

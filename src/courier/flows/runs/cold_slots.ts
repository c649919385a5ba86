/**
 * The cold slots a laboratory profile takes on the runs its shipment boarded (courier 2.10: a
 * run's cold slots; 5: runs:override overrides capacity, so they are never exceeded silently).
 *
 * A cold-chain profile reserves before it is set (reserveColdSlots): a numbered reservation on
 * the shipment's run index (actors/courier/shipment_runs.ts), pending, then every run told to
 * count the shipment's cold slots. Whatever the profile's outcome, its request then settles the
 * reservation (settleColdSlots). The slots are given back only once no reservation is pending and
 * the sample is not cold: of profiles racing for the last slots, a refused one never keeps them,
 * nor gives back those of one accepted. A request that stops between the two leaves its
 * reservation pending; the index hands it to the sweep after COLD_RESERVATION_STALL_MS
 * (sweepColdReservations, src/courier/reactors/cold_reservations.ts), which settles it alike.
 *
 * The tells to the runs are ordered (reservation n tells 2n; the release made after m
 * reservations tells 2m + 1): a run takes only a tell newer than the last it took about the
 * shipment, so a release overtaken by a reservation made since never undoes it.
 */
import { networkRunActor } from "../../../../actors/courier/network_run/mod.ts";
import { pendingOf, shipmentRunsActor } from "../../../../actors/courier/shipment_runs.ts";
import { orRefuse, Refused, type Rejection } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { COLD_RESERVATION_STALL_MS } from "../../../limits.ts";
import { sampleIsColdChain } from "./loads.ts";

/** Who the sweep's settling is recorded by on the runs. */
const SWEEP_BY = "system";

interface Tell {
  readonly waybill: string;
  readonly runs: readonly string[];
  readonly cold: boolean;
  readonly seq: number;
  readonly by: string;
}

/** Tells each run; answers the first refusal (a run that is gone is passed over). */
async function tellRuns(runtime: ActorRuntime, tenant: string, t: Tell): Promise<Rejection | null> {
  for (const runId of t.runs) {
    const r = await runtime.ask(networkRunActor, tenant, runId, {
      kind: "cold_chain",
      waybill: t.waybill,
      cold: t.cold,
      seq: t.seq,
      by: t.by,
    });
    if (!r.ok && r.code !== "not_found") return r;
  }
  return null;
}

/** A reservation made, and until when a profile may be set under it (its `reserved_until`). */
export interface ColdSlotsReserved {
  readonly reservation: number;
  /**
   * Half the stall after it was made: the sweep settles it (and may give its slots away) only
   * a whole COLD_RESERVATION_STALL_MS after, so a profile decided before this commits long before
   * the sweep looks at the sample; one later is refused and reserved again (lab_profile.ts).
   */
  readonly until: number;
}

/**
 * Reserves the shipment's cold slots on every run it boarded, before a cold-chain profile is set;
 * answers the reservation, which the caller settles once the profile is set or refused. Refused
 * `capacity_exceeded` (details: run_id) when a run has too few cold slots: its reservation is
 * settled then, so it keeps none.
 */
export async function reserveColdSlots(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  by: string,
): Promise<ColdSlotsReserved> {
  const reserved = orRefuse(
    await runtime.ask(shipmentRunsActor, tenant, waybill, { kind: "cold_chain", cold: true }),
  );
  const reservation = reserved.cold_reservations ?? 0;
  // Not pending any more (settled already): lapsed at once.
  const made = pendingOf(reserved).find((p) => p.reservation === reservation)?.at;
  const until = made === undefined ? 0 : made + COLD_RESERVATION_STALL_MS / 2;
  const tell = { waybill, runs: reserved.runs, cold: true, seq: 2 * reservation, by };
  const refused = await tellRuns(runtime, tenant, tell);
  if (refused) {
    await settleColdSlots(runtime, tenant, waybill, reservation, by);
    throw new Refused(refused);
  }
  return { reservation, until };
}

/**
 * Settles `reservation` (null: none, after a profile that is not cold chain), and once none is
 * pending and the sample is not cold, gives the slots back: the index's flag, then the runs
 * (told again by each settling, so a release a crash cut short is completed by the next).
 * Answers whether the reservation was still pending (false: the sweep settled it before).
 */
export async function settleColdSlots(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  reservation: number | null,
  by: string,
): Promise<boolean> {
  const command = reservation === null
    ? { kind: "get" } as const
    : { kind: "cold_settle", reservation } as const;
  const index = orRefuse(await runtime.ask(shipmentRunsActor, tenant, waybill, command));
  const settled = index.settled ?? false;
  if (pendingOf(index).length > 0) return settled;
  // Nothing flagged, nothing boarded: nothing to give back.
  if (!index.cold_chain && index.runs.length === 0) return settled;
  // spec: courier 2.10: a cold sample keeps its slots (one profiled before the flag was kept too).
  if (await sampleIsColdChain(runtime, tenant, waybill)) return settled;
  const seen = index.cold_reservations ?? 0;
  if (index.cold_chain) {
    const released = orRefuse(
      await runtime.ask(shipmentRunsActor, tenant, waybill, {
        kind: "cold_chain",
        cold: false,
        seen,
      }),
    );
    // Another reservation since, or pending: its own settling decides.
    if (released.cold_chain) return settled;
  }
  const tell = { waybill, runs: index.runs, cold: false, seq: 2 * seen + 1, by };
  const refused = await tellRuns(runtime, tenant, tell);
  if (refused) throw new Refused(refused);
  return settled;
}

/**
 * After a profile was set: its reservation settled. A request woken after the sweep settled it
 * (and gave the slots back) whose profile made the sample cold takes the slots again.
 */
export async function profiledColdSlots(
  runtime: ActorRuntime,
  tenant: string,
  o: { readonly waybill: string; readonly reservation: number | null; readonly cold: boolean },
  by: string,
): Promise<void> {
  const settled = await settleColdSlots(runtime, tenant, o.waybill, o.reservation, by);
  if (o.reservation === null || settled || !o.cold) return;
  const again = await reserveColdSlots(runtime, tenant, o.waybill, by);
  await settleColdSlots(runtime, tenant, o.waybill, again.reservation, by);
}

/**
 * The sweep of reservations whose request stopped before settling them (the index's
 * COLD_RESERVATIONS_OUTBOX): each settled as its request would have, so slots no cold sample
 * holds are given back; none named (a release's item), the runs are told again of the release,
 * in case a crash came between the index's release and its runs. Idempotent.
 */
export async function sweepColdReservations(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  reservations: readonly number[],
): Promise<void> {
  if (reservations.length === 0) await settleColdSlots(runtime, tenant, waybill, null, SWEEP_BY);
  for (const reservation of reservations) {
    await settleColdSlots(runtime, tenant, waybill, reservation, SWEEP_BY);
  }
}

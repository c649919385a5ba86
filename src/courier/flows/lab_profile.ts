/**
 * A laboratory sample's profile (courier 2.10, 3.4, 4.5): its type, temperature range, deadline,
 * seal and compliance checklist. Either temperature bound makes the sample cold chain: the runs
 * it boarded count a cold slot per piece (2.10), and the cold-chain charge is booked once
 * (lab.ts bookColdChain).
 */
import { foundOrNull, refuse, Refused, reject } from "../../runtime/actor.ts";
import {
  checklistId,
  type ChecklistVersion,
  complianceChecklistActor,
} from "../../../actors/courier/compliance_checklists.ts";
import type {
  LabChecklistRef,
  LabProfileInput,
  LabSample,
  LabSampleCommand,
} from "../../../actors/courier/lab_sample/mod.ts";
import type { LedgerEntry } from "../rules/ledger.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { FINAL_HEADLINES } from "../rules/lifecycle.ts";
import { askLabSample, bookColdChain, readShipment } from "./lab.ts";
import { profiledColdSlots, reserveColdSlots, settleColdSlots } from "./runs/mod.ts";

export interface LabProfileRequest {
  readonly waybill: string;
  readonly profile: Omit<LabProfileInput, "checklist">;
  /** The compliance checklist by code; its latest version unless one is named. */
  readonly checklist: { readonly code: string; readonly version?: number | undefined } | null;
  readonly by: string;
}

export interface LabProfiled {
  readonly sample: LabSample;
  /** The cold-chain charge the profile booked (once), null when it books none. */
  readonly cold_chain_charge: LedgerEntry | null;
}

/**
 * Sets the profile of a sample of one of the tenant's shipments. Refused `not_found` for another
 * courier's shipment or an unknown checklist, `capacity_exceeded` when a run it boarded has too
 * few cold slots, `shipment_closed` once it is delivered, returned or cancelled (but for the
 * profile it has, sent again), and the sample's and the account's own refusals.
 */
export async function profileLabSample(
  runtime: ActorRuntime,
  tenant: string,
  input: LabProfileRequest,
): Promise<LabProfiled> {
  const { by } = input;
  const shipment = await readShipment(runtime, tenant, input.waybill);
  const checklist = input.checklist
    ? await checklistRef(runtime, tenant, input.checklist.code, input.checklist.version)
    : null;
  // Cold slots on the runs it boarded are taken before the sample is cold, so no run carries
  // it uncounted; a run without room refuses the profile (courier 2.10; 5 runs:override).
  const { waybill } = shipment;
  // A closed shipment is on no run any more: its sample answers only a retry (shipment_closed).
  const closed = FINAL_HEADLINES.has(shipment.status) ? { closed: shipment.status } : {};
  const cold = input.profile.min_temp_c !== null || input.profile.max_temp_c !== null;
  const reserving = cold && !("closed" in closed);
  const command: Extract<LabSampleCommand, { kind: "profile" }> = {
    kind: "profile",
    waybill,
    courier_id: tenant,
    profile: { ...input.profile, checklist },
    by,
    ...closed,
  };
  const { sample, reservation } = await profileUnderReservation(
    runtime,
    tenant,
    command,
    reserving,
  );
  await profiledColdSlots(runtime, tenant, { waybill, reservation, cold: sample.cold_chain }, by);
  const charge = sample.cold_chain ? await bookColdChain(runtime, shipment, by) : null;
  return { sample, cold_chain_charge: charge };
}

/** Profiles asked at most, when each finds its cold slots' reservation lapsed. */
const PROFILE_RESERVATIONS_MAX = 3;

/**
 * Sets the profile under a reservation of its cold slots when `reserving`; answers the sample
 * and the reservation, which the caller settles. A profile refused because its reservation
 * lapsed while it waited (the sweep may have given the slots away) reserves again, so a run
 * with no slot left refuses it `capacity_exceeded` before the sample is made cold (courier 2.10).
 */
async function profileUnderReservation(
  runtime: ActorRuntime,
  tenant: string,
  command: Extract<LabSampleCommand, { kind: "profile" }>,
  reserving: boolean,
): Promise<{ sample: LabSample; reservation: number | null }> {
  const { waybill, by } = command;
  let held = reserving ? await reserveColdSlots(runtime, tenant, waybill, by) : null;
  for (let tries = 1;; tries++) {
    const until = held === null ? {} : { reserved_until: held.until };
    try {
      const sample = await askLabSample(runtime, tenant, waybill, { ...command, ...until });
      return { sample, reservation: held?.reservation ?? null };
    } catch (e) {
      if (held === null) throw e;
      const lapsed = e instanceof Refused && e.rejection.code === "cold_reservation_lapsed";
      // The new reservation first, so slots still held are never let go in between.
      const again = lapsed && tries < PROFILE_RESERVATIONS_MAX
        ? reserveColdSlots(runtime, tenant, waybill, by)
        : null;
      // Refused: the reservation is settled, its slots given back unless the sample is cold. A
      // settling that fails leaves it pending for the sweep (shipment_runs.ts).
      const before = held.reservation;
      await again?.catch(() => undefined);
      await settleColdSlots(runtime, tenant, waybill, before, by).catch(() => undefined);
      if (again === null) throw lapsed ? new Refused(busy(waybill)) : e;
      held = await again;
    }
  }
}

function busy(waybill: string) {
  return reject(
    "request_in_progress",
    `the cold slots for the sample kept lapsing while its profile waited: ${waybill}`,
  );
}

/** The checklist version a profile uses: the named one, else the latest; Refused `not_found`. */
async function checklistRef(
  runtime: ActorRuntime,
  tenant: string,
  code: string,
  version: number | undefined,
): Promise<LabChecklistRef> {
  // A refused read (a full mailbox) is thrown (503), never answered 404 for one that exists.
  const r = foundOrNull(
    await runtime.ask(complianceChecklistActor, tenant, checklistId(tenant, code), { kind: "get" }),
  );
  if (r === null) refuse("not_found", `no compliance checklist ${code}`);
  const versions = r.checklist.versions;
  const found: ChecklistVersion | undefined = version === undefined
    ? versions.at(-1)
    : versions.find((v) => v.version === version);
  if (!found) refuse("not_found", `checklist ${code} has no version ${version}`);
  return {
    code,
    version: found.version,
    items: found.items.map((i) => ({ key: i.key, required: i.required })),
  };
}

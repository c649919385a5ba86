/**
 * A laboratory sample's profile (courier 2.10, 3.4, 4.5): its type, temperature range, deadline,
 * seal and compliance checklist. Either temperature bound makes the sample cold chain: the runs
 * it boarded count a cold slot per piece (2.10), and the cold-chain charge is booked once
 * (lab.ts bookColdChain).
 */
import { foundOrNull, refuse } from "../../runtime/actor.ts";
import {
  checklistId,
  type ChecklistVersion,
  complianceChecklistActor,
} from "../../../actors/courier/compliance_checklists.ts";
import type {
  LabChecklistRef,
  LabProfileInput,
  LabSample,
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
  const reservation = reserving ? await reserveColdSlots(runtime, tenant, waybill, by) : null;
  let sample: LabSample;
  try {
    sample = await askLabSample(runtime, tenant, waybill, {
      kind: "profile",
      waybill,
      courier_id: tenant,
      profile: { ...input.profile, checklist },
      by,
      ...closed,
    });
  } catch (e) {
    // Refused: the reservation is settled, its slots given back unless the sample is cold. A
    // settling that fails leaves it pending for the sweep (shipment_runs.ts).
    if (reservation !== null) {
      await settleColdSlots(runtime, tenant, waybill, reservation, by).catch(() => undefined);
    }
    throw e;
  }
  await profiledColdSlots(runtime, tenant, { waybill, reservation, cold: sample.cold_chain }, by);
  const charge = sample.cold_chain ? await bookColdChain(runtime, shipment, by) : null;
  return { sample, cold_chain_charge: charge };
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

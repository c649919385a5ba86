/**
 * Laboratory samples beyond their own actor (courier 2.6, 3.4, 4.5, 6.1): a sample of one of the
 * tenant's shipments, whether a run may hand it to the laboratory, and the one cold-chain charge
 * of a cold-chain sample (its profile is lab_profile.ts).
 *
 * The cold-chain charge is booked when a profile marks the sample cold chain (a temperature range
 * is set), not at approval: the courier keeps it cold from then on, whatever the laboratory
 * decides. It is a later charge (src/courier/flows/later_charges.ts) priced from the shipment's frozen
 * rate card, source event `sample.cold_chain:<waybill>`, so setting the profile again, or a retry
 * after a failure, books it once; a fee of zero books nothing. The profile's commit keeps it due
 * in the sample until booked (src/courier/reactors/lab_charges.ts), so a request that dies first
 * loses nothing.
 */
import { orRefuse, Refused } from "../../runtime/actor.ts";
import {
  asLabSample,
  coldChainSourceEvent,
  type LabDelivery,
  type LabSample,
  labSampleActor,
  type LabSampleCommand,
} from "../../../actors/courier/lab_sample/mod.ts";
import { asShipment, type Shipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { LedgerEntry } from "../rules/ledger.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { postLaterCharge } from "./later_charges.ts";
import { voidDelivery } from "./run_steps.ts";

/**
 * The tenant's shipment as its actor answers it: another tenant's, or none, is Refused
 * `not_found` with the shipment's own refusal.
 */
export async function readShipment(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
): Promise<Shipment> {
  return asShipment(orRefuse(await runtime.read(shipmentActor, tenant, waybill, { kind: "get" })));
}

/** Tries before a block that keeps meeting new deliveries under way is refused. */
const BLOCK_TRIES = 3;

/**
 * The sample after `command`; its actor's refusal thrown as Refused. spec: courier 3.4: a block
 * (or the laboratory's rejection) meeting a run's delivery under way has that run void it first,
 * so the delivery recorded after is refused lab_handover_blocked (one recorded already stands).
 */
export async function askLabSample(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  command: LabSampleCommand,
): Promise<LabSample> {
  let voiding: string[] = [];
  for (let tries = 1;; tries++) {
    const asked = voiding.length > 0 ? { ...command, voiding } : command;
    const r = await runtime.ask(labSampleActor, tenant, waybill, asked);
    if (r.ok || r.code !== "delivery_under_way" || tries >= BLOCK_TRIES) {
      return asLabSample(orRefuse(r));
    }
    const under = (r.details?.deliveries ?? []) as LabDelivery[];
    const by = "by" in command ? command.by : "laboratory";
    for (const d of under) await voidDelivery(runtime, tenant, d, by, "lab_handover_blocked");
    voiding = [...voiding, ...under.map((d) => d.token)];
  }
}

/**
 * The sample of one of the tenant's shipments after `command` (a tick, a reading, the
 * laboratory's decision, a `get`): another courier's shipment does not exist for the caller.
 */
export async function labSampleCommand(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  command: LabSampleCommand,
): Promise<LabSample> {
  const shipment = await readShipment(runtime, tenant, waybill);
  return await askLabSample(runtime, tenant, shipment.waybill, command);
}

/** Whether a laboratory handover may happen now; `reasons` are stable codes. */
export type LabHandover =
  | { readonly ok: true }
  | { readonly ok: false; readonly reasons: string[] };

/**
 * Asks the sample's actor whether the laboratory handover of `waybill` may happen now (3.4).
 * Reasons: `late_sample`, `temperature_out_of_range`, `seal_broken` (each until someone with
 * runs:override records the laboratory's decision) and `rejected_by_laboratory` (for good).
 * A shipment without a laboratory record, or another tenant's, answers ok. Checking after the
 * deadline records the lateness, so it blocks until a decision even if nobody looked before.
 * `delivery`: the run's delivery it is asked for, reserved when allowed, so a block recorded from
 * now on voids it (actors/courier/lab_sample/handover.ts).
 */
export async function labHandoverAllowed(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  delivery?: LabDelivery,
): Promise<LabHandover> {
  const command = { kind: "handover_check", ...(delivery ? { delivery } : {}) } as const;
  const r = await runtime.ask(labSampleActor, tenant, waybill, command);
  if (!r.ok) {
    if (r.code === "not_found") return { ok: true };
    throw new Refused(r);
  }
  const verdict = r.reply;
  if (!("allowed" in verdict)) throw new Error("expected a handover verdict");
  return verdict.allowed ? { ok: true } : { ok: false, reasons: [...verdict.reasons] };
}

/**
 * Tells the sample's actor that the run handed it to the laboratory at `at` (3.4): lateness is
 * judged up to the handover, so a tick or reading the laboratory records after it, past the
 * deadline, does not mark an on-time sample late. Idempotent; a shipment without a laboratory
 * record is left alone.
 */
export async function labHandedOver(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  at: number,
): Promise<void> {
  const r = await runtime.ask(labSampleActor, tenant, waybill, { kind: "handed_over", at });
  if (!r.ok) throw new Refused(r);
}

export function coldChainReference(waybill: string): string {
  return `COLD-${waybill}`;
}

/**
 * Books the cold-chain charge of a shipment's sample, once. Answers the ledger entry, or null
 * when the courier's rate card charges nothing for it; a refusal of the account is thrown as its
 * API error (the profile stands; sending it again books the charge).
 */
export async function bookColdChain(
  runtime: ActorRuntime,
  shipment: Pick<Shipment, "courier_id" | "client_id" | "waybill" | "pricing">,
  by: string,
): Promise<LedgerEntry | null> {
  const r = await postLaterCharge(runtime, shipment, {
    kind: "cold_chain",
    reference: coldChainReference(shipment.waybill),
    reason: `cold chain kept for laboratory sample ${shipment.waybill}`,
    // spec: courier 2.6 rule 1: every later charge names its evidence: the cold profile set.
    evidence_path: `shipment:${shipment.waybill}/lab/profile`,
    source_event: coldChainSourceEvent(shipment.waybill),
    by,
  });
  if (r === null) return null;
  if (!r.ok) throw new Refused(r);
  const reply = r.reply;
  if (!reply || !("entry" in reply)) throw new Error("expected the ledger entry in the reply");
  return reply.entry;
}

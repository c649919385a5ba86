/**
 * The charges customs moves book (courier 2.6 rules 2, 3), each once, by its source event:
 *
 * - each clearance books one customs-administration charge (`CUS-<crossing>`, source event
 *   `customs.cleared:<crossing>`) at the fee of the shipment's frozen rate card; it is due on the
 *   crossing from the clearance's commit until booked (reactors/customs_charges.ts), so a request
 *   that dies before booking it loses nothing;
 * - duties the client pays book a recoverable entry kept apart from revenue (`DUT-<crossing>-<n>`,
 *   source event `customs.duties:<crossing>`, `:<n>` from the second duty on); duties the account
 *   refuses to book are taken back off the crossing before the refusal is thrown (an account too
 *   busy to answer refused nothing: they stay due). Duties another
 *   payer settles (the recipient, the courier) are recorded on the crossing only: the client is
 *   not charged for them.
 */
import { lastingRefusal, Refused } from "../../runtime/actor.ts";
import {
  clearanceSourceEvent,
  type Crossing,
  type CrossingChargeDue,
  type CustomsMove,
  dutySourceEvent,
} from "../../../actors/courier/customs_crossing/mod.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { askCrossing } from "./customs.ts";
import { postLaterCharge } from "./later_charges.ts";
import { shipmentIn } from "./shipments.ts";

/**
 * Books a charge the crossing keeps due (reactors/customs_charges.ts), throwing when it was not
 * booked: the same source event books once, however often it is due (courier 2.6 rule 2).
 */
export async function bookCrossingCharge(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  due: CrossingChargeDue,
): Promise<void> {
  // Duties taken back since (the account refused them) are due no more: nothing to book.
  if (!(crossing.charges_due ?? []).some((c) => c.source_event === due.source_event)) return;
  const move = crossing.history.find((m) => m.n === due.move);
  if (move?.action === "clear" && due.source_event === clearanceSourceEvent(crossing.id)) {
    await bookClearance(runtime, tenant, crossing, move);
    return;
  }
  const duty = crossing.duties.find((d) => d.move === due.move);
  if (
    move?.action === "duties" && duty && due.source_event === dutySourceEvent(crossing.id, duty.n)
  ) {
    await bookDuty(runtime, tenant, crossing, move);
    return;
  }
  throw new Error(`crossing ${crossing.id}: no charge of move ${due.move} (${due.source_event})`);
}

/**
 * Courier 2.6 rule 3: one customs-administration entry per crossing cleared. Answers its ledger
 * reference, or null when the fee is zero; throws Refused when the account refuses it.
 */
export async function bookClearance(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  move: CustomsMove,
): Promise<string | null> {
  const reference = `CUS-${crossing.id}`;
  const booked = await postLaterCharge(
    runtime,
    await shipmentIn(runtime, tenant, crossing.waybill),
    {
      kind: "customs_admin",
      reference,
      reason: `customs administration: cleared at ${crossing.border_post} ` +
        `(${crossing.country} to ${crossing.to_country})`,
      evidence_path: move.customs_reference,
      source_event: clearanceSourceEvent(crossing.id),
      by: move.by,
    },
  );
  if (booked && !booked.ok) throw new Refused(booked);
  // A fee of zero books nothing: the courier does not charge for clearances.
  return booked ? reference : null;
}

/**
 * Courier 2.6: duties paid on the client's behalf are recoverable, kept apart from revenue. Only
 * duties whose payer is the client are booked on its account: answers the entry's reference, or
 * null for another payer's.
 */
export async function bookDuty(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  move: CustomsMove,
): Promise<string | null> {
  const duty = crossing.duties.find((d) => d.move === move.n);
  if (!duty) throw new Error(`crossing ${crossing.id}: move ${move.n} recorded no duty`);
  if (duty.payer !== "client") return null;
  const reference = `DUT-${crossing.id}-${duty.n}`;
  const booked = await postLaterCharge(
    runtime,
    await shipmentIn(runtime, tenant, crossing.waybill),
    {
      kind: "duties",
      reference,
      reason: `duties paid on the client's behalf at ${crossing.border_post}` +
        (move.reason ? `: ${move.reason}` : ""),
      evidence_path: duty.evidence,
      source_event: dutySourceEvent(crossing.id, duty.n),
      amount_minor: duty.amount_minor,
      currency: duty.currency,
      recoverable: true,
      by: move.by,
    },
  );
  if (booked && !booked.ok) {
    const refused = new Refused(booked);
    // An account too busy or catching up has refused nothing: the duties stay recorded and due,
    // booked by their retry or the crossing's charge timer (courier 2.6 rules 2, 3).
    if (lastingRefusal(refused) === null) throw refused;
    // Product rule: a refusal changes nothing: the crossing claims no duty the client was not
    // charged; the same duties sent again once the account takes them are recorded and booked.
    await askCrossing(runtime, tenant, crossing.id, { kind: "withdraw_duty", move });
    throw refused;
  }
  return reference;
}

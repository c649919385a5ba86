/**
 * Later charges (courier 2.6 rules 1 to 3): runs, customs and laboratories book each charge as
 * its own ledger entry on the client's account, priced from the rate-card version the shipment
 * was booked on (never the card in force today), with payer, reason, evidence and the source
 * event. The same source event books once, however often it is sent (rule 2).
 */
import { Refused } from "../../runtime/actor.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import { asClient, courierClientActor } from "../../../actors/courier/courier_client.ts";
import { asRateCard, rateCardActor } from "../../../actors/courier/rate_card.ts";
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import type { ClientFee } from "../../../actors/courier/network_run/mod.ts";
import { type ChargeKind, TEXT_CHARS_MAX } from "../rules/ledger.ts";
import { scanCharge, type ScanEvent } from "../rules/lifecycle.ts";
import { type RateCardTerms, versionInForce } from "../rules/rate_card.ts";
import type { AskResult } from "../../runtime/plan.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { CourierClientReply } from "../../../actors/courier/courier_client.ts";

/**
 * What booking a later charge on the client's account can refuse (client_ledger.ts postCharge),
 * for the routes whose action books one: every other refusal there is ruled out by the charge
 * the service builds itself (amount, reference, reason, evidence).
 */
export const LATER_CHARGE_REFUSALS: Readonly<Record<string, string>> = {
  unresolved_fx_limit: "the charge is in another currency than the client's billing currency " +
    "and too many of the client's charges await an FX rate",
  amount_too_large: "the charge would take a balance of the client's account past the largest " +
    "amount stated exactly",
};

/** The rate-card fee each later charge is priced with, when it has one. */
export const FEE_OF: Partial<Record<ChargeKind, keyof RateCardTerms>> = {
  customs_admin: "customs_admin_fee",
  errand: "errand_fee",
  failed_collection: "failed_collection_fee",
  cold_chain: "cold_chain_fee",
  waiting: "waiting_fee",
  redelivery: "redelivery_fee",
  return: "return_fee",
};

/** The frozen rate-card terms of a shipment (its card at the version it was priced on). */
export async function frozenTerms(
  runtime: ActorRuntime,
  s: Pick<Shipment, "courier_id" | "pricing">,
): Promise<RateCardTerms> {
  const got = await runtime.read(rateCardActor, s.courier_id, s.pricing.rate_card_id, {
    kind: "get",
  });
  if (!got.ok) throw new Error(`rate card ${s.pricing.rate_card_id}: ${got.message}`);
  const version = asRateCard(got.reply).versions.find((v) =>
    v.version === s.pricing.rate_card_version
  );
  if (!version) throw new Error(`rate card ${s.pricing.rate_card_id} lost its version`);
  return version.terms;
}

export interface LaterCharge {
  readonly kind: ChargeKind;
  /** A stable reference, e.g. `CUS-<crossing>` or `WAIT-<stop>`. */
  readonly reference: string;
  readonly reason: string;
  readonly evidence_path: string | null;
  /** The event that caused it, e.g. `customs.cleared:<crossing>`; it books once. */
  readonly source_event: string;
  /** Minor units; absent: the fee of the shipment's frozen rate card for this kind. */
  readonly amount_minor?: number;
  /** With amount_minor: its currency (duties are paid in the border's currency). */
  readonly currency?: string;
  readonly recoverable?: boolean;
  readonly fx?: { readonly rate: string; readonly source: string };
  readonly by: string;
}

/**
 * Books one later charge on the shipment's client. A fee of zero books nothing (answers null):
 * the courier does not charge for it.
 */
export async function postLaterCharge(
  runtime: ActorRuntime,
  s: Pick<Shipment, "courier_id" | "client_id" | "waybill" | "pricing">,
  charge: LaterCharge,
): Promise<AskResult<CourierClientReply> | null> {
  let amount = charge.amount_minor;
  let currency = charge.currency ?? s.pricing.currency;
  if (amount === undefined) {
    const field = FEE_OF[charge.kind];
    const terms = await frozenTerms(runtime, s);
    amount = field ? Number(terms[field] ?? 0) : 0;
    currency = terms.currency;
  }
  if (!amount) return null;
  return await askCharge(runtime, s.courier_id, s.client_id, s.waybill, charge, amount, currency);
}

/** Asks the client's account to book the charge, once per source event (courier 2.6 rule 2). */
function askCharge(
  runtime: ActorRuntime,
  courierId: string,
  clientId: string,
  waybill: string | null,
  charge: LaterCharge,
  amountMinor: number,
  currency: string,
): Promise<AskResult<CourierClientReply>> {
  return runtime.ask(courierClientActor, courierId, clientId, {
    kind: "post_charge",
    reference: charge.reference,
    entry_kind: charge.kind,
    amount_minor: amountMinor,
    currency,
    reason: reasonWithin(charge.reason),
    evidence_path: charge.evidence_path,
    source_event: charge.source_event,
    shipment: waybill,
    recoverable: charge.recoverable ?? false,
    ...(charge.fx ? { fx: charge.fx } : {}),
    by: charge.by,
  }, entryAsk(charge.source_event));
}

/**
 * A charge's reason within the ledger's bound (TEXT_CHARS_MAX): the words the service puts around
 * a caller's note (`waited 30 minutes at stop ...: <note>`) may take a note within its own bound
 * past it, and the account refused the charge (reason_required) after the run had recorded the
 * wait, on every retry too. A later charge is a fact that happened (courier 2.6 rules 1, 3): its
 * reason is cut, marked with an ellipsis, never between the two halves of a character.
 */
export function reasonWithin(reason: string): string {
  if (reason.length <= TEXT_CHARS_MAX) return reason;
  const cut = reason.slice(0, TEXT_CHARS_MAX - 1);
  return `${cut.isWellFormed() ? cut : cut.slice(0, -1)}…`;
}

/**
 * The fee of `kind` on the client's rate card in force at `now`, in minor units; null when the
 * client has no card, or no version in force then. Read when the fact happens, so its charge
 * books the same whenever it is booked (courier 2.6 rules 1, 2).
 */
export async function clientFeeAt(
  runtime: ActorRuntime,
  courierId: string,
  clientId: string,
  kind: ChargeKind,
  now: number,
): Promise<ClientFee | null> {
  const account = await runtime.read(courierClientActor, courierId, clientId, { kind: "get" });
  if (!account.ok) throw new Refused(account);
  const cardId = asClient(account.reply).settings.rate_card_id;
  if (!cardId) return null;
  const card = await runtime.read(rateCardActor, courierId, cardId, { kind: "get" });
  if (!card.ok) throw new Refused(card);
  const terms = versionInForce(asRateCard(card.reply).versions, now)?.terms;
  const field = FEE_OF[kind];
  if (!terms || !field) return null;
  return { amount_minor: Number(terms[field] ?? 0), currency: terms.currency };
}

/**
 * Books a later charge that no shipment carries (a failed collection picks nothing up) on the
 * client named by the work, at `fee`, the client's fee in force when it happened. A fee of
 * zero, or none, books nothing (answers null). `fee` undefined: a follow-up recorded before the
 * fee was carried keeps its behaviour then, the client's card of the moment priced at `at`.
 */
export async function postClientCharge(
  runtime: ActorRuntime,
  courierId: string,
  clientId: string,
  charge: LaterCharge,
  priced: { readonly fee?: ClientFee | null; readonly at: number },
): Promise<AskResult<CourierClientReply> | null> {
  const fee = priced.fee !== undefined
    ? priced.fee
    : await clientFeeAt(runtime, courierId, clientId, charge.kind, priced.at);
  if (!fee || !fee.amount_minor) return null;
  return await askCharge(
    runtime,
    courierId,
    clientId,
    null,
    charge,
    fee.amount_minor,
    fee.currency,
  );
}

/**
 * Books the later charge a recorded scan causes, if any (courier 2.6 rule 3); once per fact. The
 * request that recorded the scan books it before answering; the shipment's own `charge_due`
 * event books it too (scan_charges.ts), so a request that dies after the scan loses nothing.
 */
export async function bookScanCharge(
  runtime: ActorRuntime,
  s: Pick<Shipment, "courier_id" | "client_id" | "waybill" | "pricing" | "attempts">,
  event: ScanEvent,
  by: string,
): Promise<void> {
  const charge = scanCharge(s, event);
  if (!charge) return;
  const r = await postLaterCharge(runtime, s, { ...charge, by });
  if (r && !r.ok) throw new Refused(r);
}

/**
 * Claims (courier 2.4 claim terms, 2.6 rule 5, 4.6): the courier files a claim for a client's
 * shipment within the claim window of the shipment's frozen rate card, up to its cover; a holder
 * of claims:approve decides it once. An approved amount is booked once under the claim's
 * reference, in full: a credit note on the shipment's booked price up to what it still holds,
 * the rest a `compensation` entry (2.4 liability cover; rules/ledger/compensation.ts); when the
 * ledger refuses it (say, an unresolved FX rate) the decision stands and the claim says why.
 */
import { NOT_NOW_CODES, orRefuse, refuse, Refused, type Rejection } from "../../runtime/actor.ts";
import {
  asClaim,
  type Claim,
  claimActor,
  type ClaimCredit,
  claimKeyOf,
  type ClaimKind,
  claimLimitOf,
  type ClaimOutcome,
  claimWindowClosesAt,
  type CreditResult,
} from "../../../actors/courier/claim/mod.ts";
import { termsOf } from "../../../actors/courier/shipment/mod.ts";
import { toMinor } from "../../domain/money.ts";
import { derivedId } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { namedEvidence } from "./evidence.ts";
import { frozenTerms } from "./later_charges.ts";
import { shipmentIn } from "./shipments.ts";

/**
 * A claim id: one per shipment (claimKeyOf), so the same loss filed again, with any key or none,
 * names the claim filed first and is never paid twice (spec: courier 2.6 rule 2).
 */
export function claimIdOf(courier: string, waybill: string): string {
  return derivedId("clm", claimKeyOf(courier, waybill));
}

/** An amount as sent, in `currency`'s minor units; Refused `validation_failed` naming `path`. */
function minorOf(amount: number | string, currency: string, path: string): number {
  const r = toMinor(amount, currency);
  if (!r.ok) {
    refuse("validation_failed", `invalid request: ${path}: ${r.message}`, {
      errors: [{ path, message: r.message }],
    });
  }
  return r.minor;
}

export interface ClaimFilingInput {
  readonly waybill: string;
  readonly kind: ClaimKind;
  readonly amount: number | string;
  /** The shipment's currency when absent; another is refused. */
  readonly currency?: string | undefined;
  readonly description: string;
  readonly evidence: string | null;
  readonly by: string;
}

/**
 * Files the shipment's claim, or answers the one it has (`created: false`) when filed again with
 * the same details. Refused `not_found` (another courier's shipment), `currency_mismatch`, and
 * the claim's own refusals (window closed, above the limit, cancelled, conflict).
 */
export async function fileClaim(
  runtime: ActorRuntime,
  courier: string,
  input: ClaimFilingInput,
): Promise<{ readonly claim: Claim; readonly created: boolean }> {
  const shipment = await shipmentIn(runtime, courier, input.waybill);
  const currency = input.currency ?? shipment.pricing.currency;
  if (currency !== shipment.pricing.currency) {
    refuse(
      "currency_mismatch",
      `a claim is in the shipment's currency ${shipment.pricing.currency}: ${currency}`,
    );
  }
  // spec: courier 2.6: the evidence its credit note keeps; a file it names must be the courier's.
  if (input.evidence !== null) await namedEvidence(runtime, courier, input.evidence, "evidence");
  const terms = await frozenTerms(runtime, shipment);
  const filing = (id: string) => ({
    kind: "file" as const,
    claim: {
      id,
      courier_id: courier,
      client_id: shipment.client_id,
      waybill: shipment.waybill,
      kind: input.kind,
      amount_minor: minorOf(input.amount, currency, "amount"),
      currency,
      description: input.description,
      evidence: input.evidence,
      window_closes_at: claimWindowClosesAt(
        { ...shipment, calendar: termsOf(shipment).calendar },
        terms.claim_window_days,
      ),
    },
    // spec: courier 2.4: the cover frozen on the shipment, not today's card.
    bounds: { ...claimLimitOf(shipment), cancelled: shipment.status === "cancelled" },
    by: input.by,
  });
  const id = claimIdOf(courier, shipment.waybill);
  let reply = orRefuse(await runtime.ask(claimActor, courier, id, filing(id)));
  // A claim filed under another id before a shipment had one (old data: nameClaimsFiledBefore) answers
  // for the shipment: the same claim again, or claim_conflict naming it.
  if ("filed_as" in reply) {
    reply = orRefuse(
      await runtime.ask(claimActor, courier, reply.filed_as, filing(reply.filed_as)),
    );
  }
  if (!("created" in reply)) throw new Error("file answers whether it filed");
  return reply;
}

/** What a credit note of a claim asks of the ledger (courier 2.6 rule 5). */
export interface ClaimNote {
  /** Negative: a credit. */
  readonly amount_minor: number;
  readonly reason: string;
  readonly reference: string;
  readonly evidence_path: string | null;
  /**
   * Compensation, not a price correction: not capped by the booked price (courier 2.4); what
   * the entry cannot take is booked as a `compensation` entry beside the note.
   */
  readonly compensation: true;
  readonly by: string;
}

/**
 * Books a note on the claim's shipment's booked price entry (a payment quoting the waybill holds
 * the same reference): the ledger's answer, or a thrown refusal of the entry's read.
 */
export type BookClaimNote = (
  claim: Claim,
  note: ClaimNote,
) => Promise<{ readonly ok: true } | Rejection>;

export interface ClaimDecisionInput {
  readonly outcome: ClaimOutcome;
  readonly approved_amount?: number | string | undefined;
  readonly reason: string | null;
  readonly by: string;
}

/**
 * Decides a claim once and books the credit note of an approved amount. The decision recorded,
 * sent again, answers as it stands: a credit note a crash left pending is booked by that retry
 * (spec: courier 2.6 rule 2: booked once).
 */
export async function decideClaim(
  deps: Pick<Deps, "runtime" | "settle">,
  o: { readonly courier: string; readonly id: string; readonly bookNote: BookClaimNote },
  input: ClaimDecisionInput,
): Promise<Claim> {
  const { runtime } = deps;
  const current = asClaim(
    orRefuse(await runtime.read(claimActor, o.courier, o.id, { kind: "get" })),
  );
  const decided = asClaim(orRefuse(
    await runtime.ask(claimActor, o.courier, o.id, {
      kind: "decide",
      outcome: input.outcome,
      approved_amount_minor: input.approved_amount === undefined
        ? null
        : minorOf(input.approved_amount, current.currency, "approved_amount"),
      reason: input.reason,
      by: input.by,
    }),
  ));
  return await settleCredit(deps, decided, o.bookNote);
}

/** Books the pending credit note of a decided claim once, and records how that went. */
async function settleCredit(
  deps: Pick<Deps, "runtime" | "settle" | "requestId">,
  claim: Claim,
  bookNote: BookClaimNote,
): Promise<Claim> {
  const credit = claim.credit;
  if (credit === null || credit.state !== "pending") return claim;
  const result = await creditNote(deps, claim, credit, bookNote);
  return asClaim(orRefuse(
    await deps.runtime.ask(claimActor, claim.courier_id, claim.id, {
      kind: "settle_credit",
      result,
    }, { requestId: deps.requestId }),
  ));
}

/** spec: courier 2.6 rule 5: a credit note pointing at the shipment's booked price entry. */
async function creditNote(
  deps: Pick<Deps, "settle">,
  claim: Claim,
  credit: ClaimCredit,
  bookNote: BookClaimNote,
): Promise<CreditResult> {
  // The notes already on the entry are read from the query side: let it catch up first.
  await deps.settle();
  let r;
  try {
    r = await bookNote(claim, {
      amount_minor: -credit.amount_minor,
      reason: `claim ${claim.id} (${claim.kind}) ${claim.decision?.outcome ?? "decided"}`,
      reference: credit.reference,
      evidence_path: claim.evidence,
      compensation: true,
      by: claim.decision?.decided_by ?? "claims",
    });
  } catch (e) {
    const refused = e instanceof Refused ? e.rejection : null;
    if (refused && !NOT_NOW_CODES.has(refused.code)) {
      return { booked: false, code: refused.code, message: refused.message };
    }
    throw e;
  }
  if (r.ok) return { booked: true };
  // A ledger that cannot take the note for the moment (busy, catching up) has not refused it:
  // the credit stays pending and the decision sent again books it (product rule: a retry
  // completes what was left undone; spec: courier 2.6 rule 5).
  if (NOT_NOW_CODES.has(r.code)) throw new Refused(r);
  return { booked: false, code: r.code, message: r.message };
}

/**
 * Claims as answered (courier 2.4, 2.6 rule 5, 4.6): the client's view of a claim and its
 * outcome, and the courier's, which adds who filed and decided it, the client and the window.
 * Documentation: tests/http/answers_operations_test.ts holds answers to these.
 */
import {
  type Claim,
  CLAIM_KINDS,
  CLAIM_OUTCOMES,
  CLAIM_STATUSES,
  type ClaimCredit,
} from "../../../actors/courier/claim/mod.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import { z } from "../../../src/http/route.ts";
import { Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";

function creditView(credit: ClaimCredit | null, currency: string) {
  if (credit === null) return null;
  return {
    reference: credit.reference,
    amount: decimal(credit.amount_minor, currency),
    state: credit.state,
    ...(credit.state === "not_booked" ? { code: credit.code, message: credit.message } : {}),
  };
}

/** A claim and its outcome, as the client sees it: no staff names. */
export function clientClaimView(claim: Claim) {
  const d = claim.decision;
  return {
    id: claim.id,
    waybill: claim.waybill,
    kind: claim.kind,
    amount: decimal(claim.amount_minor, claim.currency),
    currency: claim.currency,
    description: claim.description,
    evidence: claim.evidence,
    status: claim.status,
    filed_at: iso(claim.filed_at),
    outcome: d === null ? null : {
      outcome: d.outcome,
      approved_amount: decimal(d.approved_amount_minor, claim.currency),
      reason: d.reason,
      decided_at: iso(d.decided_at),
    },
    credit_note: creditView(claim.credit, claim.currency),
  };
}

/** The courier's view: who filed and decided, the client, the window. */
export function claimView(claim: Claim) {
  return {
    ...clientClaimView(claim),
    client_id: claim.client_id,
    filed_by: claim.filed_by,
    window_closes_at: iso(claim.window_closes_at),
    decided_by: claim.decision?.decided_by ?? null,
  };
}

/** spec: courier 2.4, 2.6 rule 5: the credit note of an approved amount (creditView). */
const ClaimCreditAnswer = z.object({
  reference: z.string().openapi({
    description: "The ledger reference of the credit: a credit_note on the booked price up to " +
      "what it still holds and, for the rest, a compensation entry under the same reference",
  }),
  amount: Money.openapi({ description: "In the claim's currency: the whole approved amount" }),
  state: z.enum(["pending", "booked", "not_booked"]).openapi({
    description: "not_booked: the ledger refused it (code, message); the courier settles it " +
      "another way",
  }),
  code: z.string().optional().openapi({ description: "not_booked only: the ledger's refusal" }),
  message: z.string().optional().openapi({ description: "not_booked only" }),
}).openapi("ClaimCreditNote");

/** spec: courier 4.6: a claim and its outcome, as the client sees it (clientClaimView). */
const clientClaimFields = {
  id: z.string(),
  waybill: z.string(),
  kind: z.enum(CLAIM_KINDS),
  amount: Money.openapi({ description: "Claimed, in `currency`" }),
  currency: Currency.openapi({ description: "The shipment's currency" }),
  description: z.string(),
  evidence: z.string().nullable(),
  status: z.enum(CLAIM_STATUSES),
  filed_at: UtcInstant,
  outcome: orNull(
    z.object({
      outcome: z.enum(CLAIM_OUTCOMES),
      approved_amount: Money.openapi({ description: "0 when rejected" }),
      reason: z.string().nullable(),
      decided_at: UtcInstant,
    }).openapi("ClaimOutcome"),
  ).openapi({ description: "null until decided" }),
  credit_note: orNull(ClaimCreditAnswer).openapi({
    description: "null until an amount is approved",
  }),
};

export const ClientClaimAnswer = z.object(clientClaimFields).openapi("ClientClaim");

/** The courier's view of a claim: who filed and decided it, the client, the window (claimView). */
export const ClaimAnswer = z.object({
  ...clientClaimFields,
  client_id: z.string(),
  filed_by: z.string(),
  window_closes_at: UtcInstant.openapi({
    description: "The end of the claim window of the shipment's rate card (courier 2.4)",
  }),
  decided_by: z.string().nullable(),
}).openapi("Claim");

/**
 * The claim's state, commands, events and replies (courier 2.4, 2.6 rule 5, 4.6): what was filed,
 * the decision, and the credit note of an approved amount.
 */
import type { Decision } from "../../../src/runtime/actor.ts";

export const CLAIM_KINDS = ["loss", "damage", "delay"] as const;
export type ClaimKind = typeof CLAIM_KINDS[number];
export const CLAIM_OUTCOMES = ["approved", "partly_approved", "rejected"] as const;
export type ClaimOutcome = typeof CLAIM_OUTCOMES[number];
export const CLAIM_STATUSES = ["filed", ...CLAIM_OUTCOMES] as const;
export type ClaimStatus = typeof CLAIM_STATUSES[number];

/** A claim's description and a decision's reason. */
export const CLAIM_TEXT_CHARS_MAX = 2_000;
/** An evidence reference (a path, a file reference, a URL). */
export const CLAIM_EVIDENCE_CHARS_MAX = 500;

export interface ClaimDecision {
  readonly outcome: ClaimOutcome;
  readonly approved_amount_minor: number;
  readonly reason: string | null;
  readonly decided_at: number;
  readonly decided_by: string;
}

/**
 * The credit of an approved amount (courier 2.6 rule 5: a credit note pointing at the shipment's
 * booked price, and above the price a `compensation` entry, 2.4). `pending` until the ledger
 * answered; `not_booked` names the ledger's refusal (e.g. the shipment's FX rate is unresolved),
 * and the courier settles it another way.
 */
export type ClaimCredit =
  | { readonly state: "pending"; readonly reference: string; readonly amount_minor: number }
  | {
    readonly state: "booked";
    readonly reference: string;
    readonly amount_minor: number;
    readonly at: number;
  }
  | {
    readonly state: "not_booked";
    readonly reference: string;
    readonly amount_minor: number;
    readonly code: string;
    readonly message: string;
    readonly at: number;
  };

/** What filing says; the actor adds the status and the decision. */
export interface ClaimFiling {
  readonly id: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly waybill: string;
  readonly kind: ClaimKind;
  readonly amount_minor: number;
  readonly currency: string;
  readonly description: string;
  readonly evidence: string | null;
  /** The end of the claim window (epoch ms); a claim after it is refused. */
  readonly window_closes_at: number;
}

export interface Claim extends ClaimFiling {
  readonly status: ClaimStatus;
  readonly filed_at: number;
  readonly filed_by: string;
  readonly decision: ClaimDecision | null;
  readonly credit: ClaimCredit | null;
}

/**
 * What the shipment's own claim id holds when its claim was filed under another id, before a
 * shipment had one claim (claimKeyOf): that claim's id, so filing again answers that claim.
 */
export interface ClaimFiledAs {
  readonly filed_as: string;
  readonly waybill: string;
}

export type ClaimState = Claim | ClaimFiledAs | null;

/** Whether the state names a claim filed under another id (ClaimFiledAs). */
export function isFiledAs(state: ClaimState): state is ClaimFiledAs {
  return state !== null && "filed_as" in state;
}

export type CreditResult =
  | { readonly booked: true }
  | { readonly booked: false; readonly code: string; readonly message: string };

/** What a shipment lets a claim on it be for (claimLimitOf), fixed when it is filed. */
export interface ClaimBounds {
  /** The most a claim may be for, in the shipment's minor units. */
  readonly limit_minor: number;
  /** What the limit is, as a refusal names it. */
  readonly limit_basis: "declared_value" | "charged";
  /** A cancelled shipment was never carried: nothing to claim for. */
  readonly cancelled: boolean;
}

export type ClaimCommand =
  | { kind: "file"; claim: ClaimFiling; bounds: ClaimBounds; by: string }
  | {
    kind: "decide";
    outcome: ClaimOutcome;
    /** Absent for `approved` (the whole claim) and `rejected` (nothing). */
    approved_amount_minor: number | null;
    reason: string | null;
    by: string;
  }
  | { kind: "settle_credit"; result: CreditResult }
  /** The shipment's claim was filed under `claim_id` (old data: ClaimFiledAs). */
  | { kind: "name_filed_claim"; claim_id: string; waybill: string }
  | { kind: "get" };

export type ClaimEvent =
  | { kind: "claim_filed"; claim: Claim }
  | { kind: "claim_decided"; decision: ClaimDecision; credit: ClaimCredit | null }
  | { kind: "credit_settled"; credit: ClaimCredit }
  | { kind: "filed_claim_named"; claim_id: string; waybill: string };

/** `file` answers whether this call filed it (false: the same claim sent again). */
export interface ClaimFiled {
  readonly claim: Claim;
  readonly created: boolean;
}

export type ClaimReply = Claim | ClaimFiled | ClaimFiledAs;

/** What a decision of the claim answers: its events, or a refusal. */
export type Decided = Decision<ClaimState, ClaimEvent, ClaimReply>;

/** The claim a reply names. */
export function asClaim(reply: ClaimReply): Claim {
  if ("filed_as" in reply) throw new Error(`claim filed as ${reply.filed_as}: ask that one`);
  return "created" in reply ? reply.claim : reply;
}

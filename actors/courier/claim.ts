/**
 * A claim on a shipment (courier 4.6 `GET /client/claims`, 5 scope `claims:approve`; the claim
 * terms of the rate card, 2.4): the courier files it for a client's shipment within the claim
 * window of the shipment's frozen rate card, a holder of `claims:approve` decides it once. An
 * approved amount is credited through the ledger's credit-note path (2.6 rule 5); the claim
 * records whether that note was booked.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { promiseDueAt } from "../../src/courier/rules/lifecycle.ts";
import { formatMinor } from "../../src/domain/money.ts";
import type { WorkingCalendar } from "../../src/domain/calendar.ts";

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

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ClaimDecision {
  readonly outcome: ClaimOutcome;
  readonly approved_amount_minor: number;
  readonly reason: string | null;
  readonly decided_at: number;
  readonly decided_by: string;
}

/**
 * The credit of an approved amount (courier 2.6 rule 5: a credit note pointing at the shipment's
 * booked price). `pending` until the ledger answered; `not_booked` names the ledger's refusal
 * (e.g. the shipment's FX rate is unresolved; compensation above the booked price is booked), and
 * the courier settles it another way.
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

export type ClaimState = Claim | null;

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
  | { kind: "get" };

export type ClaimEvent =
  | { kind: "claim_filed"; claim: Claim }
  | { kind: "claim_decided"; decision: ClaimDecision; credit: ClaimCredit | null }
  | { kind: "credit_settled"; credit: ClaimCredit };

/** `file` answers whether this call filed it (false: the same claim sent again). */
export interface ClaimFiled {
  readonly claim: Claim;
  readonly created: boolean;
}

export type ClaimReply = Claim | ClaimFiled;

type D = Decision<ClaimState, ClaimEvent, ClaimReply>;

/**
 * spec: courier 2.4 claim terms: the window runs `claim_window_days` from delivery, or, for a
 * shipment not delivered (loss, delay), from the end of its promised latest delivery day in the
 * service level's calendar.
 */
export function claimWindowClosesAt(
  s: {
    readonly delivered_at: number | null;
    readonly pricing: { readonly promise: { readonly latest_delivery: string } };
    readonly calendar: WorkingCalendar;
  },
  windowDays: number,
): number {
  const start = s.delivered_at ?? promiseDueAt(s.calendar, s.pricing.promise.latest_delivery);
  return start + windowDays * DAY_MS;
}

/**
 * spec: courier 2.4: liability cover is a percentage of the declared value, bought at booking.
 * With it a claim is for at most the declared value; without it the courier refunds at most what
 * it charged (the frozen total). Product rule: a claim is never paid beyond what the shipment
 * stood for.
 */
export function claimLimitOf(s: {
  readonly declared_value_minor: number | null;
  readonly liability_cover: boolean;
  readonly pricing: { readonly total_minor: number };
}): Pick<ClaimBounds, "limit_minor" | "limit_basis"> {
  if (s.liability_cover && s.declared_value_minor !== null && s.declared_value_minor > 0) {
    return { limit_minor: s.declared_value_minor, limit_basis: "declared_value" };
  }
  return { limit_minor: s.pricing.total_minor, limit_basis: "charged" };
}

/**
 * A claim's id: one per shipment (product rule: a claim is never paid twice; the same loss filed
 * again, under any key, names the claim already filed).
 */
export function claimKeyOf(courier: string, waybill: string): string {
  return `${courier}:claim:${waybill}`;
}

/** What every claim's credit note reference begins with: `CLM-` and the claim id (`clm_...`). */
export const CLAIM_CREDIT_PREFIX = "CLM-clm_";

/** The credit note's reference of a claim: stable, so booking it again books it once. */
export function creditReferenceOf(claimId: string): string {
  return `CLM-${claimId}`;
}

function sameFiling(a: ClaimFiling, b: ClaimFiling): boolean {
  return a.waybill === b.waybill && a.kind === b.kind && a.amount_minor === b.amount_minor &&
    a.currency === b.currency && a.description === b.description;
}

/**
 * An amount as a refusal states it: a decimal with its currency, as every answer speaks money
 * (spec: courier 2.2, 9.4), never minor units; a value that is no whole number of minor units
 * as it was given.
 */
function moneyText(minor: number, currency: string): string {
  return Number.isSafeInteger(minor) ? `${formatMinor(minor, currency)} ${currency}` : `${minor}`;
}

function badText(text: string | null, max: number): boolean {
  return text === null || text.trim() === "" || text.length > max;
}

function file(state: ClaimState, c: Extract<ClaimCommand, { kind: "file" }>, now: number): D {
  const f = c.claim;
  if (state !== null) {
    if (!sameFiling(state, f)) {
      return reject(
        "claim_conflict",
        `shipment ${state.waybill} already has a claim, filed with other details: ${state.id} ` +
          `(${state.status})`,
        { id: state.id, status: state.status },
      );
    }
    return accept([], () => ({ claim: state, created: false }));
  }
  if (!(CLAIM_KINDS as readonly string[]).includes(f.kind)) {
    return reject("validation_failed", `kind is one of ${CLAIM_KINDS.join(", ")}: ${f.kind}`);
  }
  if (!Number.isSafeInteger(f.amount_minor) || f.amount_minor <= 0) {
    return reject(
      "invalid_amount",
      `a claim is for an amount above zero: ${moneyText(f.amount_minor, f.currency)}`,
    );
  }
  if (badText(f.description, CLAIM_TEXT_CHARS_MAX)) {
    return reject("validation_failed", "a claim needs a description");
  }
  const b = c.bounds;
  if (b.cancelled) {
    return reject(
      "shipment_cancelled",
      `shipment ${f.waybill} was cancelled: nothing was carried to claim for`,
    );
  }
  // spec: courier 2.4: liability cover on the declared value; else what was charged.
  if (f.amount_minor > b.limit_minor) {
    const basis = b.limit_basis === "declared_value"
      ? "the declared value under liability cover"
      : "what was charged, no liability cover bought";
    return reject(
      "claim_above_limit",
      `a claim on ${f.waybill} is for at most ${moneyText(b.limit_minor, f.currency)} (${basis}): ${
        moneyText(f.amount_minor, f.currency)
      }`,
      { limit: formatMinor(b.limit_minor, f.currency), limit_basis: b.limit_basis },
    );
  }
  // spec: courier 2.4: the rate card's claim terms; a claim after the window is refused.
  if (now > f.window_closes_at) {
    return reject(
      "claim_window_closed",
      `the claim window of this shipment closed at ${new Date(f.window_closes_at).toISOString()}`,
      { window_closes_at: new Date(f.window_closes_at).toISOString() },
    );
  }
  const claim: Claim = {
    ...f,
    status: "filed",
    filed_at: now,
    filed_by: c.by,
    decision: null,
    credit: null,
  };
  return accept([{ kind: "claim_filed", claim }], (next) => ({ claim: next!, created: true }));
}

/** What a decision is judged on: the claim's amount and currency, and what the decider sent. */
export interface ApprovalInput {
  /** The claimed amount, in minor units of `currency`. */
  readonly claimed: number;
  readonly currency: string;
  readonly outcome: ClaimOutcome;
  /** The approved amount sent, in minor units; null when none was. */
  readonly given: number | null;
  readonly reason: string | null;
}

/** The approved amount an outcome stands for, or the refusal naming what is wrong. */
export function approvedAmount(
  input: ApprovalInput,
): { ok: true; amount: number } | { ok: false; code: string; message: string } {
  const { claimed, currency, outcome, given, reason } = input;
  const refuse = (code: string, message: string) => ({ ok: false as const, code, message });
  const money = (minor: number) => moneyText(minor, currency);
  if (given !== null && (!Number.isSafeInteger(given) || given < 0)) {
    return refuse("invalid_amount", `approved_amount is zero or more: ${money(given)}`);
  }
  switch (outcome) {
    case "approved":
      if (given !== null && given !== claimed) {
        return refuse(
          "invalid_amount",
          `approved means the whole claim (${money(claimed)}); use partly_approved: ${
            money(given)
          }`,
        );
      }
      return { ok: true, amount: claimed };
    case "partly_approved":
      if (given === null || given <= 0 || given >= claimed) {
        return refuse(
          "invalid_amount",
          `partly_approved needs an approved_amount above zero and below the claim (${
            money(claimed)
          }): ${given === null ? "none" : money(given)}`,
        );
      }
      if (badText(reason, CLAIM_TEXT_CHARS_MAX)) {
        return refuse("reason_required", "a partial approval needs a reason");
      }
      return { ok: true, amount: given };
    case "rejected":
      if (given !== null && given !== 0) {
        return refuse("invalid_amount", `a rejected claim approves nothing: ${money(given)}`);
      }
      if (badText(reason, CLAIM_TEXT_CHARS_MAX)) {
        return refuse("reason_required", "a rejection needs a reason");
      }
      return { ok: true, amount: 0 };
    default:
      return unreachable(outcome);
  }
}

/** The amount decision `c` approves on the claim, or why it cannot. */
function decisionAmount(state: Claim, c: Extract<ClaimCommand, { kind: "decide" }>) {
  return approvedAmount({
    claimed: state.amount_minor,
    currency: state.currency,
    outcome: c.outcome,
    given: c.approved_amount_minor,
    reason: c.reason,
  });
}

/** Whether `c` is the decision the claim recorded: its outcome, approved amount and reason. */
function sameDecision(state: Claim, c: Extract<ClaimCommand, { kind: "decide" }>): boolean {
  const d = state.decision;
  if (d === null || d.outcome !== c.outcome || d.reason !== c.reason) return false;
  const amount = decisionAmount(state, c);
  return amount.ok && amount.amount === d.approved_amount_minor;
}

function decideClaim(
  state: Claim,
  c: Extract<ClaimCommand, { kind: "decide" }>,
  now: number,
): D {
  if (state.status !== "filed") {
    // spec: courier 2.6 rule 2; product rule: a crash between two steps leaves state a retry
    // completes. The decision recorded, sent again, is answered as it stands (the route then
    // books a credit note the crash left pending); another decision is refused.
    if (sameDecision(state, c)) return accept([], () => state);
    return reject(
      "claim_already_decided",
      `the claim was already decided: ${state.status}`,
      { status: state.status },
    );
  }
  if (c.reason !== null && c.reason.length > CLAIM_TEXT_CHARS_MAX) {
    return reject("validation_failed", `a reason has at most ${CLAIM_TEXT_CHARS_MAX} characters`);
  }
  const amount = decisionAmount(state, c);
  if (!amount.ok) return reject(amount.code, amount.message);
  const decision: ClaimDecision = {
    outcome: c.outcome,
    approved_amount_minor: amount.amount,
    reason: c.reason,
    decided_at: now,
    decided_by: c.by,
  };
  const credit: ClaimCredit | null = amount.amount > 0
    ? { state: "pending", reference: creditReferenceOf(state.id), amount_minor: amount.amount }
    : null;
  return accept([{ kind: "claim_decided", decision, credit }], (next) => next!);
}

function decide(state: ClaimState, command: ClaimCommand | { kind: "timer" }, ctx: {
  readonly now: number;
}): D {
  if (command.kind === "file") return file(state, command, ctx.now);
  if (state === null) return reject("not_found", "claim not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return accept([], () => state);
    case "decide":
      return decideClaim(state, command, ctx.now);
    case "settle_credit": {
      // Settling again (a retried decision) changes nothing.
      const credit = state.credit;
      if (credit === null || credit.state !== "pending") return accept([], () => state);
      const r = command.result;
      const settled: ClaimCredit = r.booked
        ? { ...credit, state: "booked", at: ctx.now }
        : { ...credit, state: "not_booked", code: r.code, message: r.message, at: ctx.now };
      return accept([{ kind: "credit_settled", credit: settled }], (next) => next!);
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: ClaimState, event: ClaimEvent): ClaimState {
  if (event.kind === "claim_filed") return event.claim;
  if (state === null) throw new Error(`claim: ${event.kind} before claim_filed`);
  switch (event.kind) {
    case "claim_decided":
      return {
        ...state,
        status: event.decision.outcome,
        decision: event.decision,
        credit: event.credit,
      };
    case "credit_settled":
      return { ...state, credit: event.credit };
    default:
      return unreachable(event);
  }
}

export const claimActor: ActorDefinition<ClaimState, ClaimCommand, ClaimEvent, ClaimReply> = {
  type: "claim",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : s,
};

export function asClaim(reply: ClaimReply): Claim {
  return "created" in reply ? reply.claim : reply;
}

/**
 * The decision on a claim (courier 5 scope `claims:approve`, 2.6 rule 5): approved (the whole
 * claim), partly approved (an amount below it, with a reason) or rejected (with a reason), once.
 * An approved amount is credited through a credit note, pending until the ledger answers.
 */
import { accept, reject, unreachable } from "../../../src/runtime/actor.ts";
import { creditReferenceOf } from "./terms.ts";
import { badText, moneyText } from "./texts.ts";
import {
  type Claim,
  CLAIM_TEXT_CHARS_MAX,
  type ClaimCommand,
  type ClaimCredit,
  type ClaimDecision,
  type ClaimOutcome,
  type Decided,
} from "./types.ts";

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

/** The decision on a filed claim, once; the same decision again is answered as it stands. */
export function decideClaim(
  state: Claim,
  c: Extract<ClaimCommand, { kind: "decide" }>,
  now: number,
): Decided {
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

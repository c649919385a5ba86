/** The claim's decisions: filed once, decided once, its credit settled once. */
import { accept, reject, unreachable } from "../../../src/runtime/actor.ts";
import { decideClaim } from "./approval.ts";
import { file } from "./file.ts";
import {
  type Claim,
  type ClaimCommand,
  type ClaimCredit,
  type ClaimFiledAs,
  type ClaimState,
  type CreditResult,
  type Decided,
  isFiledAs,
} from "./types.ts";

export function decide(state: ClaimState, command: ClaimCommand | { kind: "timer" }, ctx: {
  readonly now: number;
}): Decided {
  if (isFiledAs(state)) return filedAs(state, command);
  if (command.kind === "name_filed_claim") return nameFiledClaim(state, command);
  if (command.kind === "file") return file(state, command, ctx.now);
  if (state === null) return reject("not_found", "claim not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return accept([], () => state);
    case "decide":
      return decideClaim(state, command, ctx.now);
    case "settle_credit":
      return settleCredit(state, command.result, ctx.now);
    default:
      return unreachable(command);
  }
}

/**
 * The shipment's claim filed under another id: filing again is sent there (the flow asks it);
 * naming it again changes nothing; it is no claim itself, so anything else finds none.
 */
function filedAs(state: ClaimFiledAs, command: ClaimCommand | { kind: "timer" }): Decided {
  if (command.kind === "file") return accept([], () => state);
  if (command.kind === "name_filed_claim" || command.kind === "timer") return accept([]);
  return reject("not_found", "claim not found");
}

/**
 * Names the shipment's claim filed under another id before a shipment had one claim (old data),
 * once: a claim already here, or one already named, stays (product rule: one claim a shipment).
 */
function nameFiledClaim(
  state: Claim | null,
  c: Extract<ClaimCommand, { kind: "name_filed_claim" }>,
): Decided {
  if (state !== null) return accept([]);
  return accept([{ kind: "filed_claim_named", claim_id: c.claim_id, waybill: c.waybill }]);
}

/** The ledger answered the credit note: booked, or refused (kept with its refusal). */
function settleCredit(state: Claim, r: CreditResult, now: number): Decided {
  // Settling again (a retried decision) changes nothing.
  const credit = state.credit;
  if (credit === null || credit.state !== "pending") return accept([], () => state);
  const settled: ClaimCredit = r.booked
    ? { ...credit, state: "booked", at: now }
    : { ...credit, state: "not_booked", code: r.code, message: r.message, at: now };
  return accept([{ kind: "credit_settled", credit: settled }], (next) => next!);
}

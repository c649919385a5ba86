/** The claim's decisions: filed once, decided once, its credit settled once. */
import { accept, reject, unreachable } from "../../../src/runtime/actor.ts";
import { decideClaim } from "./approval.ts";
import { file } from "./file.ts";
import type {
  Claim,
  ClaimCommand,
  ClaimCredit,
  ClaimState,
  CreditResult,
  Decided,
} from "./types.ts";

export function decide(state: ClaimState, command: ClaimCommand | { kind: "timer" }, ctx: {
  readonly now: number;
}): Decided {
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

/** The claim's events applied. */
import { unreachable } from "../../../src/runtime/actor.ts";
import { type ClaimEvent, type ClaimState, isFiledAs } from "./types.ts";

export function evolve(state: ClaimState, event: ClaimEvent): ClaimState {
  if (event.kind === "claim_filed") return event.claim;
  if (event.kind === "filed_claim_named") {
    return { filed_as: event.claim_id, waybill: event.waybill };
  }
  if (state === null || isFiledAs(state)) {
    throw new Error(`claim: ${event.kind} before claim_filed`);
  }
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

/**
 * A claim on a shipment (courier 4.6 `GET /client/claims`, 5 scope `claims:approve`; the claim
 * terms of the rate card, 2.4): the courier files it for a client's shipment within the claim
 * window of the shipment's frozen rate card, a holder of `claims:approve` decides it once. An
 * approved amount is credited through the ledger's credit-note path (2.6 rule 5); the claim
 * records whether that note was booked.
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import {
  type ClaimCommand,
  type ClaimEvent,
  type ClaimReply,
  type ClaimState,
  isFiledAs,
} from "./types.ts";

export * from "./types.ts";
export * from "./terms.ts";
export { type ApprovalInput, approvedAmount } from "./approval.ts";

export const claimActor: ActorDefinition<ClaimState, ClaimCommand, ClaimEvent, ClaimReply> = {
  type: "claim",
  version: 1,
  initial: null,
  decide,
  evolve,
  // A shipment's claim filed under another id is no claim of its own: nothing to list.
  project: (s) => s === null || isFiledAs(s) ? undefined : s,
};

/** How the business's decisions answer: the events accepted and the business after them. */
import { accept, reject } from "../../../src/runtime/actor.ts";
import type { BusinessEvent, BusinessReply, BusinessState } from "./types.ts";

export type Accepted = ReturnType<typeof accept<BusinessState, BusinessEvent, BusinessReply>>;

/** Accepts the events and answers the business as it stands after them. */
export function ok(
  events: BusinessEvent[],
  reply: (s: BusinessState) => BusinessReply = (s) => s ?? undefined,
): Accepted {
  return accept(events, reply);
}

/** A credential or session the business does not (or no longer) know. */
export const UNAUTHENTICATED = reject("unauthenticated", "unknown or revoked credential");

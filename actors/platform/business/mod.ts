/**
 * The business account (Business API 4.3 account rows, 5; CONTRACT operator API): plan, the
 * operator's switches, the integration key, partner keys, portal people and the webhook. Keys are
 * held only as hashes; every change is an event naming who made it, so the event log is the audit
 * trail. An endpoint set hands the events that waited for one to the outbox (outbox.ts).
 */
import type { ActorDefinition, IndexEntry } from "../../../src/runtime/actor.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import { businessOutbox } from "./outbox.ts";
import type { BusinessCommand, BusinessEvent, BusinessReply, BusinessState } from "./types.ts";
import { logged, publicView } from "./views.ts";

export { retire, secretMention } from "../../../src/domain/credentials.ts";
export type { KeyRecord, PreviousSecret, WebhookSecret } from "../../../src/domain/credentials.ts";
export * from "./types.ts";
export { accessOf, asBusiness, auditDetail, publicView, thresholdAmount } from "./views.ts";

function indexes(state: BusinessState): IndexEntry[] {
  if (state === null) return [];
  const credentials = [
    state.api_key,
    state.legacy_api_key,
    ...state.partner_keys.filter((k) => k.revoked_at === null),
  ].flatMap((k) => k === null ? [] : [{ index: "credential", key: k.hash }]);
  return [
    ...credentials,
    ...state.partner_keys.map((k) => ({ index: "partner_key", key: k.id })),
    // spec: business 4.4, 5.2: the sandbox signs no one in to the portal, so a twin's owner
    // holds no claim to the e-mail: anyone may sign up any e-mail there (the code is always
    // 123456), and such an account must never stop the live account's twin, nor the reverse.
    ...(state.sandbox_twin ? [] : state.staff.map((s) => ({ index: "staff_email", key: s.email }))),
  ];
}

export const businessActor: ActorDefinition<
  BusinessState,
  BusinessCommand,
  BusinessEvent,
  BusinessReply
> = {
  type: "business",
  version: 1,
  initial: null,
  decide,
  evolve,
  outbox: businessOutbox,
  indexes,
  // An e-mail signs in to one portal user.
  uniqueIndexes: ["staff_email"],
  project: (s) => s === null ? null : publicView(s),
  // The webhook secret, even sealed, stays in the state, off the log and the bus (as an outbound
  // event's target): those are read far more widely than the state. Events logged with it by
  // earlier versions still evolve to the same state.
  logged,
};

/**
 * What follows a business account's committed change, added in the same commit (STYLE
 * "transactional outbox"): an endpoint set makes the events that waited for one due now.
 */
import type { OutboxAdd } from "../../../src/runtime/actor.ts";
import {
  ENDPOINT_SET_OUTBOX,
  type EndpointRecipient,
  type EndpointSetItem,
} from "../../../src/platform/rules/endpoint_set.ts";
import type { BusinessEvent, BusinessState } from "./types.ts";

export function businessOutbox(e: BusinessEvent, next: BusinessState): readonly OutboxAdd[] {
  if (e.kind !== "profile_changed" || next === null) return [];
  const recipients: EndpointRecipient[] = e.changes.webhook_url
    // spec: courier 6.1: the webhook URL stands in for a billing endpoint never set; business 6:
    // the business's own webhooks go to it.
    ? ["courier", "business"]
    : e.changes.billing_endpoint_url
    ? ["courier"]
    : [];
  if (recipients.length === 0) return [];
  const item: EndpointSetItem = { business_id: next.id, recipients };
  return [{ outbox: ENDPOINT_SET_OUTBOX, payload: item }];
}

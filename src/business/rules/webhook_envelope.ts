/**
 * The business webhook envelope (Business API 2.7, 6): what is signed and sent for one event.
 *
 * `id` and `event_id` are one id, derived from the business and the `event_id` its actor gave
 * the fact (e.g. `<trip id>:created`): the same on every retry, requeue and second handling of
 * the item, and the `X-Service-Delivery` header (CONTRACT "Signatures": the event id), as the
 * client webhooks have it. Receivers dedupe on `id` (spec: business 6); it is also the id
 * GET /business/webhook-deliveries lists and requeues. The event's data travels under `data`,
 * never spread beside the envelope: the trip representation's own integer `id` (2.2) would
 * otherwise overwrite the envelope's.
 */
import { derivedId } from "../../domain/secrets.ts";
import { tripTrackingUrl } from "./tracking.ts";
import type { BusinessWebhookItem } from "./webhook_events.ts";

/** The id of the webhook of the fact `eventId` of `business`: stable for the fact reported. */
export function webhookEventId(business: string, eventId: string): string {
  return derivedId("evt", `business_webhook\n${business}\n${eventId}`, 26);
}

/** A webhook as sent: its id and the exact body signed. */
export interface BusinessWebhook {
  readonly id: string;
  readonly event: string;
  readonly raw_body: string;
}

export interface EnvelopeOptions {
  /** The sample POST /business/webhook-test sends. */
  readonly test?: boolean;
  /** The environment's address (without `/api`): a trip's tracking_url starts with it. */
  readonly publicUrl?: string;
}

/**
 * The envelope of one event: `{id, event, event_id, timestamp, external_reference, test, data}`.
 * `test` marks the sample POST /business/webhook-test sends (a receiver applies none of it).
 */
export function businessWebhookOf(
  business: string,
  item: BusinessWebhookItem,
  options: EnvelopeOptions = {},
): BusinessWebhook {
  const id = webhookEventId(business, item.event_id);
  const body = {
    id,
    event: item.event,
    event_id: id,
    timestamp: new Date(item.occurred_at).toISOString(),
    // spec: business 2.1, 2.7: every event carries the booking's external_reference.
    external_reference: item.external_reference,
    test: options.test === true,
    data: dataOf(item, options),
  };
  return { id, event: item.event, raw_body: JSON.stringify(body) };
}

/**
 * spec: business 2.2, 2.4 rule 6: a trip's event carries its tracking_url, null while the link is
 * off, placed after `reference` as 2.2 lists it; the other fields stay as the actor gave them.
 */
function dataOf(item: BusinessWebhookItem, options: EnvelopeOptions): Record<string, unknown> {
  const token = item.tracking_token;
  if (token === undefined) return { ...item.data };
  if (token !== null && options.publicUrl === undefined) {
    // A broken caller, not a value to send: a link without an address would be wrong for good.
    throw new Error("a trip's webhook needs the environment's address for its tracking_url");
  }
  const url = token === null ? null : tripTrackingUrl(options.publicUrl!, token);
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item.data)) {
    data[key] = value;
    if (key === "reference") data.tracking_url = url;
  }
  if (!("tracking_url" in data)) data.tracking_url = url;
  return data;
}

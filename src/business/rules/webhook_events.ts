/**
 * A business's webhook events (Business API 6, 2.7): the actor whose committed change an event
 * reports (the trip, the wallet) adds an item to this outbox in that same commit, and the
 * business webhooks reactor sends it through the outbound engine after the commit (or after a
 * crash, from the runtime's outbox sweep). So an event is sent if and only if its transition
 * committed, at least once.
 */

/** The runtime outbox of business webhook events. */
export const BUSINESS_WEBHOOK_OUTBOX = "business_webhook";

/** spec: business 6, the events named. */
export const BUSINESS_WEBHOOK_EVENTS = [
  "trip.created",
  "trip.accepted",
  "trip.picked_up",
  "trip.age_verified",
  "trip.age_verification_failed",
  "cod.collected",
  "trip.completed",
  "trip.delivery_failed",
  "trip.cancelled",
  "trip.exception",
  "trip.delivery_outcome",
  "shopping.basket_collected",
  "wallet.low_balance",
  "invoice.issued",
] as const;

export type BusinessWebhookEvent = typeof BUSINESS_WEBHOOK_EVENTS[number];

/** One event to send; the envelope (id, event, event_id, timestamp) is made from it. */
export interface BusinessWebhookItem {
  /** The business (tenant) whose webhook URL receives it. */
  readonly business_id: string;
  /**
   * Stable for the fact it reports (e.g. `<trip id>:created`), so a redelivery or a second
   * handling after a crash carries the same id and the receiver dedupes on it.
   */
  readonly event_id: string;
  readonly event: BusinessWebhookEvent;
  /** spec: business 2.1, 2.7: every webhook carries the booking's external_reference. */
  readonly external_reference: string | null;
  /** When the fact happened (epoch ms): the envelope's timestamp. */
  readonly occurred_at: number;
  /** The event's data: the trip representation of 2.2 plus the event's own fields. */
  readonly data: Readonly<Record<string, unknown>>;
  /**
   * spec: business 2.2, 2.4 rule 6: an event about a trip: its tracking token when the link was
   * on as the fact happened, null when it was revoked or expired (as reads then answered). The
   * envelope makes the data's `tracking_url` from it under the environment's address, which the
   * trip actor does not know. The token is kept here only as long as the item, in the store that
   * holds the trip's state, token included. Absent on events about no trip (and items stored
   * before trips' webhooks carried their link).
   */
  readonly tracking_token?: string | null;
}

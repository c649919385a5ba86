/**
 * The sample POST /business/webhook-test sends (Business API 6): `trip.created` of a sample trip
 * in the shape of 2.2, marked as a test (`is_test`, `test`), in the business's currency, under an
 * event id of its own, so a receiver can check its signature verification and its parsing.
 */
import type { BusinessWebhookItem } from "./webhook_events.ts";

export interface SampleInput {
  readonly business: string;
  readonly currency: string;
  /** When it is sent (epoch ms): its timestamp. */
  readonly now: number;
  /** Unique per test sent: each test is a webhook of its own. */
  readonly sample: string;
}

export function sampleTripCreated(input: SampleInput): BusinessWebhookItem {
  const reference = "TEST-SAMPLE";
  return {
    business_id: input.business,
    event_id: `${input.sample}:created`,
    event: "trip.created",
    external_reference: "SAMPLE-ORDER-1",
    occurred_at: input.now,
    data: {
      id: 0,
      reference,
      tracking_url: null,
      status: "pending",
      type: "parcel",
      billing_amount: 0,
      billing_currency: input.currency,
      eta_minutes: null,
      is_test: true,
      test: true,
      external_reference: "SAMPLE-ORDER-1",
      // Every trip event carries these (trip/outbox.ts tripEventData): a new trip's values.
      returning: false,
      delivery_outcome: null,
    },
  };
}

/**
 * An endpoint set (courier 3.1, 6.1; Business API 6): events that waited for one go now, not at
 * their next hourly try. The business account adds an item to this outbox in the commit that sets
 * its webhook URL or billing endpoint, and the platform's handler makes the waiting events due
 * after the commit (or after a crash, from the runtime's outbox sweep).
 */

/** The runtime outbox of endpoints set. */
export const ENDPOINT_SET_OUTBOX = "endpoint_set";

/** The recipients of a business whose events an endpoint it set now reaches. */
export type EndpointRecipient = "courier" | "business";

/** One endpoint set: whose events, for which of its recipients, are due now. */
export interface EndpointSetItem {
  readonly business_id: string;
  readonly recipients: readonly EndpointRecipient[];
}

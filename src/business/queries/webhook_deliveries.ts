/**
 * A business's webhook deliveries (Business API 6): its business webhook events in the
 * `outbound_events` read table (migration 0016), newest made first, by the stream's index.
 */
import type { Kysely } from "kysely";
import type { OutboundEventSummary } from "../../../actors/platform/outbound_event/mod.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

export interface WebhookDeliveryFilters {
  readonly status?: string | undefined;
  readonly event?: string | undefined;
}

/** One page of the business's webhook deliveries, newest made first (then by id). */
export async function webhookDeliveryPage(
  db: Kysely<Database>,
  business: string,
  filters: WebhookDeliveryFilters,
  page: PageRequest,
): Promise<KeysetPage<OutboundEventSummary>> {
  let q = db.selectFrom("outbound_events")
    .select(["id", "created_at", snapshotData("outbound_event", "outbound_events.id").as("data")])
    .where("tenant", "=", business)
    .where("stream", "=", "business_webhook");
  if (filters.status) q = q.where("status", "=", filters.status);
  if (filters.event) q = q.where("event_type", "=", filters.event);
  const found = await keysetPage(
    q,
    { at: "outbound_events.created_at", id: "outbound_events.id", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: r.id }),
  );
  return { rows: snapshotsOf<OutboundEventSummary>(found.rows), next: found.next };
}

/**
 * spec: shopping 4, 8: a business's last 100 shopping events and their state, from the
 * `outbound_events` read table (migration 0016) by the stream's index, newest made first.
 */
import type { Kysely } from "kysely";
import type { OutboundEventSummary } from "../../../actors/platform/outbound_event/mod.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";
import { SHOPPING_DELIVERY_HISTORY_MAX } from "../../limits.ts";
import { SHOPPING_WEBHOOK_STREAM } from "../rules/settings.ts";

export async function shoppingDeliveries(
  db: Kysely<Database>,
  business: string,
): Promise<OutboundEventSummary[]> {
  const rows = await db.selectFrom("outbound_events")
    .select(snapshotData("outbound_event", "outbound_events.id").as("data"))
    .where("tenant", "=", business)
    .where("stream", "=", SHOPPING_WEBHOOK_STREAM)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(SHOPPING_DELIVERY_HISTORY_MAX)
    .execute();
  return snapshotsOf<OutboundEventSummary>(rows);
}

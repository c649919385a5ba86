/**
 * The outbound events waiting for an endpoint (courier 3.1), over the `outbound_events` read
 * table (migration 0016), whichever document's recipient they are for.
 */
import type { Kysely } from "kysely";
import type { Recipient } from "../../../actors/platform/outbound_event/mod.ts";
import type { Database } from "../../db/schema.ts";

/**
 * Ids of a recipient's pending events that found no endpoint (courier 3.1), in id order after
 * `after`, at most `limit`.
 */
export async function eventsWaitingForEndpoint(
  db: Kysely<Database>,
  tenant: string,
  recipient: Recipient,
  page: { readonly after: string; readonly limit: number },
): Promise<string[]> {
  let q = db.selectFrom("outbound_events").select("id")
    .where("tenant", "=", tenant)
    .where("status", "=", "pending")
    .where("endpoint_missing_at", "is not", null)
    .where("recipient_kind", "=", recipient.kind)
    .where("id", ">", page.after);
  if (recipient.kind === "client") q = q.where("recipient_client_id", "=", recipient.client_id);
  const rows = await q.orderBy("id").limit(page.limit).execute();
  return rows.map((r) => r.id);
}

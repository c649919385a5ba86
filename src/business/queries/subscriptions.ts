/**
 * Business API 4.2 GET /business/subscriptions: the `business_subscriptions` read table (migration
 * 0026), written by the `business_read_tables` projection from the subscription actor's snapshots,
 * newest first, a keyset page at a time.
 */
import type { Kysely } from "kysely";
import type { Subscription } from "../../../actors/business/subscription.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface SubscriptionValues {
  readonly created_at: number;
  readonly status: string;
}

export const businessSubscriptionsTable: ReadTable<SubscriptionValues> = {
  table: "business_subscriptions",
  actorType: "business_subscription",
  columns: { created_at: "bigint", status: "text" },
  rowOf: (snapshot) => {
    const s = snapshot as unknown as Subscription;
    if (typeof s.id !== "string" || typeof s.created_at !== "number") {
      throw new TypeError("a subscription snapshot must have an id and created_at");
    }
    return { created_at: s.created_at, status: s.status };
  },
};

/** One page of a business's subscriptions, newest first (then by id); `status` filters. */
export async function subscriptionPage(
  db: Kysely<Database>,
  tenant: string,
  status: string | undefined,
  page: PageRequest,
): Promise<KeysetPage<Subscription>> {
  let q = db.selectFrom("business_subscriptions")
    .select([
      "id",
      "created_at",
      snapshotData("business_subscription", "business_subscriptions.id").as("data"),
    ])
    .where("tenant", "=", tenant);
  if (status) q = q.where("status", "=", status);
  const found = await keysetPage(
    q,
    { at: "business_subscriptions.created_at", id: "business_subscriptions.id", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: r.id }),
  );
  return { rows: snapshotsOf<Subscription>(found.rows), next: found.next };
}

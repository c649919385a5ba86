/**
 * Business API 4.1 GET /business/checkouts: the `business_checkouts` read table (migration 0028),
 * written by the `business_read_tables` projection from the checkout actor's snapshots, newest
 * first, a keyset page at a time.
 */
import type { Kysely } from "kysely";
import type { Checkout } from "../../../actors/business/checkout.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface CheckoutValues {
  readonly created_at: number;
  readonly status: string;
  readonly cart_reference: string | null;
}

export const businessCheckoutsTable: ReadTable<CheckoutValues> = {
  table: "business_checkouts",
  actorType: "business_checkout",
  columns: { created_at: "bigint", status: "text", cart_reference: "text" },
  rowOf: (snapshot) => {
    const c = snapshot as unknown as Checkout;
    if (typeof c.reference !== "string" || typeof c.created_at !== "number") {
      throw new TypeError("a checkout snapshot must have a reference and created_at");
    }
    return { created_at: c.created_at, status: c.status, cart_reference: c.cart_reference };
  },
};

export interface CheckoutFilters {
  readonly status?: string | undefined;
  readonly cart_reference?: string | undefined;
}

/** One page of a business's checkouts, newest first (then by reference). */
export async function checkoutPage(
  db: Kysely<Database>,
  tenant: string,
  filters: CheckoutFilters,
  page: PageRequest,
): Promise<KeysetPage<Checkout>> {
  let q = db.selectFrom("business_checkouts")
    .select([
      "id",
      "created_at",
      snapshotData("business_checkout", "business_checkouts.id").as("data"),
    ])
    .where("tenant", "=", tenant);
  if (filters.status) q = q.where("status", "=", filters.status);
  if (filters.cart_reference) q = q.where("cart_reference", "=", filters.cart_reference);
  const found = await keysetPage(
    q,
    { at: "business_checkouts.created_at", id: "business_checkouts.id", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: r.id }),
  );
  return { rows: snapshotsOf<Checkout>(found.rows), next: found.next };
}

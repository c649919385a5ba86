/**
 * The shipment lists other than the board, over the `shipments` read table (migration 0016): a
 * client's own list (courier 4.6), search by reference (courier 4.1), the collection manifest's
 * candidates, an earlier booking of an external reference (courier 4.2) and the closed
 * shipments the completion sweep pages through (courier 6.1). A page shows its shipments as
 * projected, read by key.
 */
import type { Kysely } from "kysely";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { Database } from "../../db/schema.ts";
import { referenceIs } from "./operations_board.ts";
import { searchMatches, shipmentSearch } from "./search.ts";
import type { ShipmentSnapshot } from "./operations_row.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

const shipmentData = () => snapshotData("shipment", "shipments.id").as("data");

/** Newest booked first, then by waybill. */
const NEWEST_BOOKED = { at: "shipments.booked_at", id: "shipments.id", order: "desc" } as const;

function bookedKey(r: { booked_at: number; id: string }) {
  return { at: r.booked_at, id: r.id };
}

/** One page of a client's shipments, newest first, by status and by any reference. */
export async function clientShipmentPage(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  filters: { readonly status?: string | undefined; readonly reference?: string | undefined },
  page: PageRequest,
): Promise<KeysetPage<ShipmentSnapshot>> {
  // spec: courier 4.6: always within the courier and the calling client.
  let q = db.selectFrom("shipments").select(["id", "booked_at", shipmentData()])
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId);
  if (filters.status) q = q.where("status", "=", filters.status);
  const reference = filters.reference;
  if (reference) q = q.where((eb) => referenceIs(eb, reference));
  const found = await keysetPage(q, NEWEST_BOOKED, page, bookedKey);
  return { rows: snapshotsOf<ShipmentSnapshot>(found.rows), next: found.next };
}

/**
 * One page of a courier's shipments whose waybill, external reference, consignee's or client's
 * name starts with `q`, newest first.
 */
export async function shipmentSearchPage(
  db: Kysely<Database>,
  tenant: string,
  q: string,
  page: PageRequest,
): Promise<KeysetPage<ShipmentSnapshot>> {
  // spec: courier 4.1: any reference, only within the calling courier; by prefix of a reference
  // or a name, in any case (search.ts).
  const search = await shipmentSearch(db, tenant, q);
  const query = db.selectFrom("shipments").select(["id", "booked_at", shipmentData()])
    .where("tenant", "=", tenant)
    .where((eb) => searchMatches(eb, search));
  const found = await keysetPage(query, NEWEST_BOOKED, page, bookedKey);
  return { rows: snapshotsOf<ShipmentSnapshot>(found.rows), next: found.next };
}

/** The newest booked shipment of a courier with this external reference (not its waybill). */
export async function shipmentByExternalReference(
  db: Kysely<Database>,
  tenant: string,
  reference: string,
): Promise<string | null> {
  const row = await db.selectFrom("shipments").select("id")
    .where("tenant", "=", tenant)
    .where((eb) =>
      eb.or([
        eb("external_customer_code", "=", reference),
        eb("external_billing_reference", "=", reference),
        eb("client_order_reference", "=", reference),
      ])
    )
    .orderBy("booked_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * One page, oldest booked first, of a client's shipments in these statuses whose collection day
 * lies within `[from, to]` (`YYYY-MM-DD`).
 */
export async function collectionCandidates(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  filter: { readonly statuses: readonly string[]; readonly from: string; readonly to: string },
  page: PageRequest,
): Promise<KeysetPage<ShipmentSnapshot>> {
  const q = db.selectFrom("shipments").select(["id", "booked_at", shipmentData()])
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("status", "in", filter.statuses)
    .where("collection_on", ">=", filter.from)
    .where("collection_on", "<=", filter.to);
  const found = await keysetPage(
    q,
    { at: "shipments.booked_at", id: "shipments.id", order: "asc" },
    page,
    bookedKey,
  );
  return { rows: snapshotsOf<ShipmentSnapshot>(found.rows), next: found.next };
}

/**
 * A shipment of this client booked under another waybill with the external reference a booking
 * claims (its client_order_reference, else its external_billing_reference), the earliest; or
 * null (shipments_claimed_reference_idx).
 */
export async function bookedBefore(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  reference: string,
  waybill: string,
): Promise<string | null> {
  const row = await db.selectFrom("shipments").select("id")
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where((eb) =>
      eb(eb.fn.coalesce("client_order_reference", "external_billing_reference"), "=", reference)
    )
    .where("id", "<>", waybill)
    .orderBy("booked_at")
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

export interface ClosedShipment {
  readonly id: string;
  readonly tenant: string;
  readonly status: string;
  readonly closed_at: number;
}

/** One page of the shipments closed in `[from, until)`, in closing order, after `after`. */
export async function closedShipments(
  db: Kysely<Database>,
  window: {
    readonly from: number;
    readonly until: number;
    readonly after: { readonly at: number; readonly key: string } | null;
  },
  limit: number,
): Promise<ClosedShipment[]> {
  const q = db.selectFrom("shipments")
    .select(["id", "tenant", "status", "closed_at"])
    .where("closed_at", "is not", null)
    .where("closed_at", ">=", window.from)
    .where("closed_at", "<", window.until);
  const after = window.after === null ? null : { at: window.after.at, id: window.after.key };
  const found = await keysetPage(
    q,
    { at: "shipments.closed_at", id: "shipments.id", order: "asc" },
    { limit, after },
    (r) => ({ at: r.closed_at!, id: r.id }),
  );
  return found.rows.map((r) => ({ ...r, closed_at: r.closed_at! }));
}

/** The snapshots of these shipments, by id (those not projected are absent). */
export async function shipmentSnapshots(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<{ id: string; tenant: string; data: ShipmentSnapshot }[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom("snapshots").select(["id", "tenant", "data"])
    .where("type", "=", "shipment")
    .where("id", "in", ids)
    .execute();
  return rows.map((r) => ({ id: r.id, tenant: r.tenant, data: r.data as ShipmentSnapshot }));
}

/** Which of these waybills are shipments of the courier. */
export async function shipmentsHeld(
  db: Kysely<Database>,
  tenant: string,
  waybills: readonly string[],
): Promise<Set<string>> {
  if (waybills.length === 0) return new Set();
  const rows = await db.selectFrom("shipments").select("id")
    .where("tenant", "=", tenant)
    .where("id", "in", waybills)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Business API 4.2 GET /business/batches: the `business_batches` read table (migration 0027),
 * written by the business read tables' projection from the batch actor's snapshots, newest first
 * a keyset page at a time; each stop's status comes from `business_trips` in one query a page.
 */
import { type Kysely, sql, type SqlBool } from "kysely";
import { type Batch, batchReferenceOf } from "../../../actors/business/batch.ts";
import type { KeysetPage, PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface BatchValues {
  readonly created_at: number;
  readonly external_reference: string | null;
  readonly stop_count: number;
}

export const businessBatchesTable: ReadTable<BatchValues> = {
  table: "business_batches",
  actorType: "business_batch",
  columns: { created_at: "bigint", external_reference: "text", stop_count: "integer" },
  rowOf: (snapshot) => {
    const b = snapshot as unknown as Batch;
    if (typeof b.id !== "string" || !Array.isArray(b.stops)) {
      throw new TypeError("a batch snapshot must have an id and stops");
    }
    return {
      created_at: b.created_at,
      external_reference: batchReferenceOf(b),
      stop_count: b.stops.length,
    };
  },
};

/** A stop's trip as the read table shows it: its integer id and status. */
export interface StopTrip {
  readonly id: number;
  readonly status: string;
}

/**
 * Where batch `id` stands among those made in its millisecond: its stops' first trip number
 * (booking order, migration 0036); a batch whose trips are not projected yet is the newest.
 */
function madeOrder(tenant: string, id: unknown) {
  return sql<string>`coalesce((select min(t.number) from business_trips t
    where t.tenant = ${tenant} and t.batch_id = ${id}), ${MADE_LAST})`;
}

/** The largest bigint: the order of a batch no trip of which is projected yet. */
const MADE_LAST = sql.lit("9223372036854775807");

/**
 * One page of a business's batches, newest first, with each stop's trip as projected. Batches made
 * in one millisecond keep the order they were made in (madeOrder), then their id; the cursor
 * names the page's last batch by time and id, as it always did, its order read with it, so a
 * cursor given before keeps asking the page after its batch.
 */
export async function batchPage(
  db: Kysely<Database>,
  tenant: string,
  filters: { readonly reference?: string | undefined },
  page: PageRequest,
): Promise<KeysetPage<Batch> & { readonly trips: ReadonlyMap<string, StopTrip> }> {
  const made = madeOrder(tenant, sql.ref("business_batches.id"));
  let q = db.selectFrom("business_batches")
    .select(["id", "created_at", snapshotData("business_batch", "business_batches.id").as("data")])
    .where("tenant", "=", tenant);
  if (filters.reference) {
    const ref = filters.reference;
    q = q.where((eb) => eb.or([eb("id", "=", ref), eb("external_reference", "=", ref)]));
  }
  if (page.after !== null) {
    const { at, id } = page.after;
    q = q.where(sql<SqlBool>`(business_batches.created_at, ${made}, business_batches.id)
      < (cast(${at} as bigint), ${madeOrder(tenant, id)}, ${id})`);
  }
  // One row more than the page tells whether another page follows.
  const all = await q.orderBy("created_at", "desc").orderBy(made, "desc").orderBy("id", "desc")
    .limit(page.limit + 1).execute();
  const last = all[page.limit - 1];
  const found = {
    rows: all.slice(0, page.limit),
    next: all.length > page.limit && last !== undefined
      ? { at: last.created_at, id: last.id }
      : null,
  };
  const rows = snapshotsOf<Batch>(found.rows);
  const refs = rows.flatMap((b) => b.stops.map((s) => s.trip_reference));
  const trips = new Map<string, StopTrip>();
  if (refs.length > 0) {
    const found = await db.selectFrom("business_trips").select(["id", "number", "status"])
      .where("tenant", "=", tenant).where("id", "in", refs).execute();
    for (const t of found) trips.set(t.id, { id: Number(t.number), status: t.status });
  }
  return { rows, next: found.next, trips };
}

/**
 * Business API 4.2 GET /business/batches: the `business_batches` read table (migration 0027),
 * written by the business read tables' projection from the batch actor's snapshots, newest first
 * a keyset page at a time; each stop's status comes from `business_trips` in one query a page.
 */
import type { Kysely } from "kysely";
import type { Batch } from "../../../actors/business/batch.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
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
      external_reference: b.external_reference ?? b.batch_reference,
      stop_count: b.stops.length,
    };
  },
};

/** A stop's trip as the read table shows it: its integer id and status. */
export interface StopTrip {
  readonly id: number;
  readonly status: string;
}

/** One page of a business's batches, newest first, with each stop's trip as projected. */
export async function batchPage(
  db: Kysely<Database>,
  tenant: string,
  filters: { readonly reference?: string | undefined },
  page: PageRequest,
): Promise<KeysetPage<Batch> & { readonly trips: ReadonlyMap<string, StopTrip> }> {
  let q = db.selectFrom("business_batches")
    .select(["id", "created_at", snapshotData("business_batch", "business_batches.id").as("data")])
    .where("tenant", "=", tenant);
  if (filters.reference) {
    const ref = filters.reference;
    q = q.where((eb) => eb.or([eb("id", "=", ref), eb("external_reference", "=", ref)]));
  }
  const found = await keysetPage(
    q,
    { at: "business_batches.created_at", id: "business_batches.id", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: r.id }),
  );
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

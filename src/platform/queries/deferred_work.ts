/**
 * Bus work that failed past its retries and waits on a durable timer, or was refused for good and
 * is parked (actors/platform/deferred_work.ts), as the operator lists it, over the `deferred_work` read table (migration
 * 0017), oldest deferred first.
 */
import { type Kysely, sql } from "kysely";
import type { DeferredWork } from "../../../actors/platform/deferred_work.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";

interface DeferredWorkValues {
  readonly status: string;
  readonly deferred_at: number | null;
}

/** The `deferred_work` read table: one row per deferral. */
export const deferredWorkTable: ReadTable<DeferredWorkValues> = {
  table: "deferred_work",
  actorType: "deferred_work",
  columns: { status: "text", deferred_at: "bigint" },
  rowOf: ({ status, deferred_at }) => {
    if (typeof status !== "string") throw new TypeError("a deferral snapshot must have a status");
    return { status, deferred_at: typeof deferred_at === "number" ? deferred_at : null };
  },
};

export interface DeferredWorkRow {
  readonly id: string;
  readonly tenant: string;
  /** The deferral without the message it was working on (what the listing shows). */
  readonly work: Omit<DeferredWork, "payload">;
}

/** The deferrals in `status`, oldest deferred first, without their messages; at most `limit`. */
export async function listDeferredWork(
  db: Kysely<Database>,
  filter: { readonly status: "waiting" | "done" | "parked"; readonly limit: number },
): Promise<DeferredWorkRow[]> {
  const rows = await db.selectFrom("deferred_work")
    .select([
      "id",
      "tenant",
      // Not the message itself (up to a shipment's whole change): what the listing shows.
      sql<DeferredWork | null>`(select s.data - 'payload' from snapshots s
        where s.type = 'deferred_work' and s.id = deferred_work.id)`.as("data"),
    ])
    .where("status", "=", filter.status)
    .orderBy("deferred_at")
    .limit(filter.limit)
    .execute();
  return rows.flatMap((r) => r.data === null ? [] : [{ id: r.id, tenant: r.tenant, work: r.data }]);
}

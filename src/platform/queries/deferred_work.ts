/**
 * Bus work that failed past its retries and waits on a durable timer (actors/platform/
 * deferred_work.ts), as the operator lists it, oldest first. The query side holds each
 * deferral's snapshot (every actor type is projected).
 */
import { type Kysely, sql } from "kysely";
import { type DeferredWork, deferredWorkActor } from "../../../actors/platform/deferred_work.ts";
import type { Database } from "../../db/schema.ts";

export interface DeferredWorkRow {
  readonly id: string;
  readonly tenant: string;
  /** The deferral without the message it was working on (what the listing shows). */
  readonly work: Omit<DeferredWork, "payload">;
}

export async function listDeferredWork(
  db: Kysely<Database>,
  filter: { readonly status: "waiting" | "done"; readonly limit: number },
): Promise<DeferredWorkRow[]> {
  const rows = await db.selectFrom("snapshots")
    // Not the message itself (up to a shipment's whole change): what the listing shows.
    .select([
      "tenant",
      "id",
      sql<DeferredWork>`data - 'payload'`.as("data"),
    ])
    .where("type", "=", deferredWorkActor.type)
    .where(sql<string>`data->>'status'`, "=", filter.status)
    .orderBy(sql`(data->>'deferred_at')::bigint`)
    .limit(filter.limit)
    .execute();
  return rows.map((r) => ({ id: r.id, tenant: r.tenant, work: r.data as DeferredWork }));
}

/**
 * A courier's claims (courier 4.2, 4.6) over the `claims` read table (migration 0016), newest
 * filed first; a page shows its claims as projected.
 */
import type { Kysely } from "kysely";
import type { Claim } from "../../../actors/courier/claim/mod.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface ClaimValues {
  readonly client_id: string;
  readonly waybill: string;
  readonly status: string;
  readonly filed_at: number;
}

/** The `claims` read table: one row per claim. */
export const claimsTable: ReadTable<ClaimValues> = {
  table: "claims",
  actorType: "claim",
  columns: { client_id: "text", waybill: "text", status: "text", filed_at: "bigint" },
  rowOf: (snapshot) => {
    const c = snapshot as Partial<Claim>;
    if (typeof c.client_id !== "string" || typeof c.waybill !== "string") {
      throw new TypeError("a claim snapshot must have a client_id and a waybill");
    }
    if (typeof c.status !== "string" || !Number.isSafeInteger(c.filed_at)) {
      throw new TypeError("a claim snapshot must have a status and filed_at");
    }
    return { client_id: c.client_id, waybill: c.waybill, status: c.status, filed_at: c.filed_at! };
  },
};

export interface ClaimFilters {
  /** A client's own list (courier 4.6) always names the client. */
  readonly client_id?: string | undefined;
  readonly status?: string | undefined;
  readonly waybill?: string | undefined;
}

/** One page of a courier's claims, newest filed first (then by id). */
export async function claimPage(
  db: Kysely<Database>,
  tenant: string,
  filters: ClaimFilters,
  page: PageRequest,
): Promise<KeysetPage<Claim>> {
  let q = db.selectFrom("claims")
    .select(["id", "filed_at", snapshotData("claim", "claims.id").as("data")])
    .where("tenant", "=", tenant);
  if (filters.client_id) q = q.where("client_id", "=", filters.client_id);
  if (filters.status) q = q.where("status", "=", filters.status);
  if (filters.waybill) q = q.where("waybill", "=", filters.waybill);
  const found = await keysetPage(
    q,
    { at: "claims.filed_at", id: "claims.id", order: "desc" },
    page,
    (r) => ({ at: r.filed_at, id: r.id }),
  );
  return { rows: snapshotsOf<Claim>(found.rows), next: found.next };
}

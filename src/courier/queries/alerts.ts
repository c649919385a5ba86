/**
 * The courier's alerts (courier 2.9) over the `alerts` read table (migration 0016): the list,
 * newest first, and one shipment's alerts. Rows carry the filters; what a page shows is its
 * alerts' snapshots, read by key for that page only.
 */
import type { Kysely } from "kysely";
import type { AlertSummary } from "../../../actors/courier/alert.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface AlertValues {
  readonly waybill: string | null;
  readonly kind: string;
  readonly status: string;
  readonly owner: string;
  readonly raised_at: number;
  readonly resolved_at: number | null;
}

/** The `alerts` read table: one row per alert, from its summary. */
export const alertsTable: ReadTable<AlertValues> = {
  table: "alerts",
  actorType: "alert",
  columns: {
    waybill: "text",
    kind: "text",
    status: "text",
    owner: "text",
    raised_at: "bigint",
    resolved_at: "bigint",
  },
  rowOf: (snapshot) => {
    const a = snapshot as Partial<AlertSummary>;
    if (typeof a.kind !== "string" || typeof a.status !== "string") {
      throw new TypeError("an alert snapshot must have a kind and a status");
    }
    if (typeof a.owner !== "string" || !Number.isSafeInteger(a.raised_at)) {
      throw new TypeError("an alert snapshot must have an owner and raised_at");
    }
    return {
      waybill: a.waybill ?? null,
      kind: a.kind,
      status: a.status,
      owner: a.owner,
      raised_at: a.raised_at!,
      resolved_at: a.resolved_at ?? null,
    };
  },
};

export interface AlertFilters {
  readonly status?: string | undefined;
  readonly kind?: string | undefined;
  readonly owner?: string | undefined;
}

/** One page of a courier's alerts, newest raised first (then by id). */
export async function alertPage(
  db: Kysely<Database>,
  tenant: string,
  filters: AlertFilters,
  page: PageRequest,
): Promise<KeysetPage<AlertSummary>> {
  let q = db.selectFrom("alerts")
    .select(["id", "raised_at", snapshotData("alert", "alerts.id").as("data")])
    .where("tenant", "=", tenant);
  if (filters.status) q = q.where("status", "=", filters.status);
  if (filters.kind) q = q.where("kind", "=", filters.kind);
  if (filters.owner) q = q.where("owner", "=", filters.owner);
  const found = await keysetPage(
    q,
    { at: "alerts.raised_at", id: "alerts.id", order: "desc" },
    page,
    (r) => ({ at: r.raised_at, id: r.id }),
  );
  return { rows: snapshotsOf<AlertSummary>(found.rows), next: found.next };
}

/** A shipment's alerts, newest first, at most `limit`. */
export async function alertsOfShipment(
  db: Kysely<Database>,
  tenant: string,
  waybill: string,
  limit: number,
): Promise<AlertSummary[]> {
  const rows = await db.selectFrom("alerts")
    .select(snapshotData("alert", "alerts.id").as("data"))
    .where("tenant", "=", tenant)
    .where("waybill", "=", waybill)
    .orderBy("raised_at", "desc")
    .limit(limit)
    .execute();
  return snapshotsOf<AlertSummary>(rows);
}

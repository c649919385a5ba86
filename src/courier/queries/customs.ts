/**
 * A shipment's customs crossings (courier 4.2 customs) over the `customs_crossings` read table
 * (migration 0017), in the order they were opened.
 */
import type { Kysely } from "kysely";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";

interface CrossingValues {
  readonly waybill: string;
  readonly opened_at: number;
}

/** The `customs_crossings` read table: one row per crossing, from its summary. */
export const crossingsTable: ReadTable<CrossingValues> = {
  table: "customs_crossings",
  actorType: "customs_crossing",
  columns: { waybill: "text", opened_at: "bigint" },
  rowOf: ({ waybill, opened_at }) => {
    if (typeof waybill !== "string" || !Number.isSafeInteger(opened_at)) {
      throw new TypeError("a crossing snapshot must have a waybill and opened_at");
    }
    return { waybill, opened_at: opened_at as number };
  },
};

/** The ids of a shipment's crossings, first opened first (then by id); at most `limit`. */
export async function crossingIdsOf(
  db: Kysely<Database>,
  tenant: string,
  waybill: string,
  limit: number,
): Promise<string[]> {
  const rows = await db.selectFrom("customs_crossings").select("id")
    .where("tenant", "=", tenant)
    .where("waybill", "=", waybill)
    .orderBy("opened_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

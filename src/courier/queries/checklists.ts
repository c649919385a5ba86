/**
 * The courier's compliance checklists (courier 4.4) over the `checklists` read table (migration
 * 0017), by code, a page at a time.
 */
import type { Kysely } from "kysely";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface ChecklistValues {
  readonly supplier: string | null;
  readonly code: string;
}

/** The `checklists` read table: one row per checklist, its latest version's supplier. */
export const checklistsTable: ReadTable<ChecklistValues> = {
  table: "checklists",
  actorType: "compliance_checklist",
  columns: { supplier: "text", code: "text" },
  rowOf: ({ supplier, code }) => {
    if (typeof code !== "string") throw new TypeError("a checklist snapshot must have a code");
    return { supplier: typeof supplier === "string" ? supplier : null, code };
  },
};

/** One page of the courier's checklists by code, of one supplier or all. */
export async function checklistPage<S>(
  db: Kysely<Database>,
  tenant: string,
  supplier: string | undefined,
  page: { readonly limit: number; readonly offset: number },
): Promise<S[]> {
  let q = db.selectFrom("checklists")
    .select(snapshotData("compliance_checklist", "checklists.id").as("data"))
    .where("tenant", "=", tenant);
  if (supplier) q = q.where("supplier", "=", supplier);
  const rows = await q.orderBy("code").limit(page.limit).offset(page.offset).execute();
  return snapshotsOf<S>(rows);
}

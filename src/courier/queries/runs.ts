/**
 * A driver's open runs (courier 4.5) over the `network_runs` read table (migration 0016).
 */
import type { Kysely } from "kysely";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface RunValues {
  readonly driver_id: string | null;
  readonly status: string;
  readonly created_at: number;
}

/** The `network_runs` read table: one row per run, from its summary. */
export const runsTable: ReadTable<RunValues> = {
  table: "network_runs",
  actorType: "network_run",
  columns: { driver_id: "text", status: "text", created_at: "bigint" },
  rowOf: ({ driver_id, status, created_at }) => {
    if (typeof status !== "string" || !Number.isSafeInteger(created_at)) {
      throw new TypeError("a run snapshot must have a status and created_at");
    }
    return {
      driver_id: typeof driver_id === "string" ? driver_id : null,
      status,
      created_at: created_at as number,
    };
  },
};

/** A driver's runs not closed, first made first (network_runs_driver_idx). */
function openRuns(db: Kysely<Database>, tenant: string, driverId: string, limit: number) {
  return db.selectFrom("network_runs")
    .where("tenant", "=", tenant)
    .where("driver_id", "=", driverId)
    .where("status", "<>", "closed")
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit);
}

/**
 * The runs assigned to a driver and not closed, as projected (the run's summary); at most
 * `limit`.
 */
export async function openRunsOfDriver<RunSummary>(
  db: Kysely<Database>,
  tenant: string,
  driverId: string,
  limit: number,
): Promise<RunSummary[]> {
  const rows = await openRuns(db, tenant, driverId, limit)
    .select(snapshotData("network_run", "network_runs.id").as("data"))
    .execute();
  return snapshotsOf<RunSummary>(rows);
}

/**
 * Changes the query side could not write for a lasting reason (src/db/parked_changes.ts), as the
 * operator lists them, oldest first.
 */
import type { Kysely } from "kysely";
import type { Database, ParkedChangeTable } from "../../db/schema.ts";

export interface ParkedChangeRow {
  readonly projection: ParkedChangeTable["projection"];
  readonly digest: string;
  readonly subject: string;
  readonly attempts: number;
  readonly error: string;
  readonly parked_at: Date;
  readonly failed_at: Date;
}

export function listParkedChanges(
  db: Kysely<Database>,
  limit: number,
): Promise<ParkedChangeRow[]> {
  return db.selectFrom("parked_changes")
    .select(["projection", "digest", "subject", "attempts", "error", "parked_at", "failed_at"])
    .orderBy("parked_at").orderBy("digest")
    .limit(limit)
    .execute();
}

/**
 * The platform's typed read tables (migration 0017), each with the mapper of its actor's
 * snapshot: what the `platform_read_tables` projection writes (src/db/read_tables.ts).
 */
import type { ProjectionOptions } from "../../db/bus_projection.ts";
import { ReadTablesProjection } from "../../db/read_tables.ts";
import { deferredWorkTable } from "./deferred_work.ts";

/** Starts the projection of the platform's read tables; its parked changes are its own. */
export function startPlatformReadTables(options: ProjectionOptions): ReadTablesProjection {
  return new ReadTablesProjection(options, "platform_read_tables", [deferredWorkTable]);
}

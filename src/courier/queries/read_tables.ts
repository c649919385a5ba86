/**
 * The courier's typed read tables (migration 0016), each with the mapper of its actor's snapshot:
 * what the `read_tables` projection writes (src/db/read_tables.ts) and the lists read.
 */
import type { ProjectionOptions } from "../../db/bus_projection.ts";
import { type AnyReadTable, ReadTablesProjection } from "../../db/read_tables.ts";
import { alertsTable } from "./alerts.ts";
import { outboundEventsTable } from "./billing_events.ts";
import { claimsTable } from "./claims.ts";
import { shipmentsTable } from "./operations_board.ts";
import { quotesTable } from "./quotes.ts";
import { runsTable } from "./runs.ts";

export const COURIER_READ_TABLES: readonly AnyReadTable[] = [
  shipmentsTable,
  alertsTable,
  claimsTable,
  runsTable,
  outboundEventsTable,
  quotesTable,
];

/** Starts the projection of the courier's read tables; its parked changes are `read_tables`'. */
export function startReadTables(options: ProjectionOptions): ReadTablesProjection {
  return new ReadTablesProjection(options, "read_tables", COURIER_READ_TABLES);
}

/**
 * The courier's typed read tables (migrations 0016, 0017), each with the mapper of its actor's snapshot:
 * what the `read_tables` projection writes (src/db/read_tables.ts) and the lists read.
 */
import type { ProjectionOptions } from "../../db/bus_projection.ts";
import { type AnyReadTable, ReadTablesProjection } from "../../db/read_tables.ts";
import { alertsTable } from "./alerts.ts";
import { outboundEventsTable } from "./billing_events.ts";
import { checklistsTable } from "./checklists.ts";
import { claimsTable } from "./claims.ts";
import { addressesTable } from "./client_addresses.ts";
import { packetsTable, storesTable } from "./client_stores.ts";
import { courierClientsTable } from "./courier_clients.ts";
import { crossingsTable } from "./customs.ts";
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
  crossingsTable,
  addressesTable,
  storesTable,
  packetsTable,
  checklistsTable,
  courierClientsTable,
];

/** Starts the projection of the courier's read tables; its parked changes are `read_tables`'. */
export function startReadTables(options: ProjectionOptions): ReadTablesProjection {
  return new ReadTablesProjection(options, "read_tables", COURIER_READ_TABLES);
}

/**
 * Business API 4.1 GET /business/trips/export: a business's trips as CSV, oldest first, read from
 * the `business_trips` read table (its filters: created_at, type, status) in database chunks and
 * written as they come, so the file takes bounded memory however many trips it holds.
 */
import type { Kysely } from "kysely";
import type { Trip } from "../../../actors/business/trip/mod.ts";
import { csvStream } from "../../domain/csv.ts";
import { iso } from "../../domain/iso.ts";
import { formatMinor } from "../../domain/money.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData } from "../../db/snapshot_join.ts";

/** Rows read from the database at a time, and written as one piece of the file. */
export const TRIPS_EXPORT_CHUNK_ROWS = 500;

export interface TripExportFilters {
  /** Created at or after, epoch ms. */
  readonly from: number | null;
  /** Created at or before, epoch ms. */
  readonly to: number | null;
  readonly type: string | null;
  readonly status: string | null;
}

/** The header: stable column names, new ones only ever added at the end. */
export const TRIPS_CSV_COLUMNS = [
  "reference",
  "id",
  "external_reference",
  "type",
  "segment",
  "status",
  "created_at",
  "scheduled_at",
  "completed_at",
  "cancelled_at",
  "passenger_name",
  "passenger_phone",
  "pickup_address",
  "stops",
  "dest_address",
  "vehicle_type_id",
  "distance_km",
  "billing_amount",
  "billing_currency",
  "refund_amount",
  "expense_code",
  "is_test",
  // spec: business 6 trip.completed: a returned trip is completed too; the outcome tells them
  // apart, and the cash taken at the door is the accountant's to reconcile.
  "delivery_outcome",
  "return_reason",
  "cod_amount",
  "cod_collected_amount",
] as const;

/** One trip as its row, in the header's order. */
export function tripCsvRow(t: Trip): string[] {
  const money = (minor: number | undefined) =>
    minor === undefined ? "" : formatMinor(minor, t.billing_currency);
  const cells: Record<typeof TRIPS_CSV_COLUMNS[number], string> = {
    reference: t.reference,
    id: String(t.id),
    external_reference: t.external_reference ?? "",
    type: t.type,
    segment: t.segment ?? "",
    status: t.status,
    created_at: iso(t.created_at),
    scheduled_at: iso(t.scheduled_at) ?? "",
    completed_at: iso(t.completed_at) ?? "",
    cancelled_at: iso(t.cancelled_at) ?? "",
    passenger_name: t.passenger_name ?? "",
    passenger_phone: t.passenger_phone ?? "",
    pickup_address: t.pickup.address,
    stops: String(t.stops.length),
    dest_address: t.dest.address,
    vehicle_type_id: String(t.vehicle.vehicle_class.id),
    distance_km: (t.distance_m / 1000).toFixed(3),
    billing_amount: money(t.billing_amount_minor),
    billing_currency: t.billing_currency,
    refund_amount: money(t.refund?.amount_minor),
    expense_code: t.expense_code ?? "",
    is_test: t.is_test ? "true" : "false",
    delivery_outcome: t.delivery_outcome ?? "",
    return_reason: t.return_reason ?? "",
    cod_amount: money(t.cod_amount_minor ?? undefined),
    cod_collected_amount: money(t.delivery_proof?.cod_collected_minor ?? undefined),
  };
  return TRIPS_CSV_COLUMNS.map((c) => cells[c]);
}

/** The business's trips matching the filters as a CSV stream, oldest first, then by id. */
export function tripsCsvStream(
  db: Kysely<Database>,
  tenant: string,
  filters: TripExportFilters,
): Promise<ReadableStream<Uint8Array>> {
  let q = db.selectFrom("business_trips")
    .select(snapshotData("business_trip", "business_trips.id").as("data"))
    .where("tenant", "=", tenant);
  if (filters.from !== null) q = q.where("created_at", ">=", filters.from);
  if (filters.to !== null) q = q.where("created_at", "<=", filters.to);
  if (filters.type !== null) q = q.where("type", "=", filters.type);
  if (filters.status !== null) q = q.where("status", "=", filters.status);
  const rows = q.orderBy("created_at").orderBy("number").stream(TRIPS_EXPORT_CHUNK_ROWS);
  return csvStream(TRIPS_CSV_COLUMNS, withSnapshots(rows), tripCsvRow, TRIPS_EXPORT_CHUNK_ROWS);
}

/** The rows whose snapshot is written, as their trips. */
async function* withSnapshots(
  rows: AsyncIterable<{ readonly data: unknown }>,
): AsyncIterable<Trip> {
  for await (const r of rows) if (r.data !== null && r.data !== undefined) yield r.data as Trip;
}

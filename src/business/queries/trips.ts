/**
 * Business API 4.1 GET /business/trips and /business/trips/active: the `business_trips` read
 * table (migration 0019), written by the `business_read_tables` projection from the trip actor's
 * snapshots, newest first, a keyset page at a time.
 */
import { type Kysely, sql, type SqlBool } from "kysely";
import type { Trip } from "../../../actors/business/trip/mod.ts";
import type { ProjectionOptions } from "../../db/bus_projection.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import { type ReadTable, ReadTablesProjection } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";
import { poolDriversTable } from "./pool_drivers.ts";
import { businessSubscriptionsTable } from "./subscriptions.ts";
import { businessBatchesTable } from "./batches.ts";
import { businessCheckoutsTable } from "./checkouts.ts";
import { TRIP_STATUS_FLAGS, type TripStatus } from "../rules/trip_status.ts";
import { offerDueOf } from "../rules/dispatch.ts";
import { DEFAULT_OFFSET } from "../rules/booking.ts";

interface TripValues {
  readonly number: number;
  readonly created_at: number;
  readonly month: string;
  readonly type: string;
  readonly status: string;
  readonly active: number;
  readonly is_test: number;
  readonly external_reference: string | null;
  readonly search: string;
  /** The driver holding the trip (the driver app's list, GET /driver/trips). */
  readonly driver_id: string | null;
  /** When the trip is due to be offered: the dispatcher's restart sweep reads due trips first. */
  readonly offer_due_at: number;
  /** The batch the trip is a stop of: the batches list orders by its stops' numbers. */
  readonly batch_id: string | null;
}

/**
 * Between the fields of a search text: a character no reference, name or address holds, so a
 * search matches within one field, never across two (the end of one and the start of the next).
 */
export const SEARCH_FIELD_SEPARATOR = "\u001f";

/**
 * What a search matches: reference, passenger, every address (pickup, the stops, destination)
 * and external_reference (spec: business 4.1; migration 0034 for rows written before).
 */
export function searchTextOf(t: Trip): string {
  // A snapshot kept before trips had stops has none.
  const stops = t.stops ?? [];
  const addresses = [t.pickup.address, ...stops.map((s) => s.address), t.dest.address];
  return [t.reference, t.passenger_name, ...addresses, t.external_reference]
    .filter((x) => x !== null && x !== "").join(SEARCH_FIELD_SEPARATOR).toLowerCase();
}

export const businessTripsTable: ReadTable<TripValues> = {
  table: "business_trips",
  actorType: "business_trip",
  columns: {
    number: "bigint",
    created_at: "bigint",
    month: "text",
    type: "text",
    status: "text",
    active: "integer",
    is_test: "integer",
    external_reference: "text",
    search: "text",
    driver_id: "text",
    offer_due_at: "bigint",
    batch_id: "text",
  },
  rowOf: (snapshot) => {
    const t = snapshot as unknown as Trip;
    if (typeof t.reference !== "string" || typeof t.created_at !== "number") {
      throw new TypeError("a trip snapshot must have a reference and created_at");
    }
    return {
      number: t.id,
      created_at: t.created_at,
      month: new Date(t.created_at).toISOString().slice(0, 7),
      type: t.type,
      status: t.status,
      active: TRIP_STATUS_FLAGS[t.status as TripStatus]?.final ? 0 : 1,
      is_test: t.is_test ? 1 : 0,
      external_reference: t.external_reference,
      search: searchTextOf(t),
      driver_id: t.driver?.id ?? null,
      offer_due_at: offerDueOf(t),
      batch_id: t.batch?.id ?? null,
    };
  },
};

export function startBusinessReadTables(options: ProjectionOptions): ReadTablesProjection {
  return new ReadTablesProjection(options, "business_read_tables", [
    businessTripsTable,
    // The dispatch board's drivers on shift (migration 0024).
    poolDriversTable,
    // Recurring deliveries (migration 0026).
    businessSubscriptionsTable,
    // The batches list (migration 0027).
    businessBatchesTable,
    // The checkouts list (migration 0028).
    businessCheckoutsTable,
  ]);
}

export interface TripFilters {
  /** `YYYY-MM`, the market's calendar month (UTC+2). */
  readonly month?: string | undefined;
  /** The trip's reference or the business's external_reference, exactly. */
  readonly reference?: string | undefined;
  /** Part of the reference, passenger, an address or the external_reference. */
  readonly search?: string | undefined;
  readonly test?: boolean | undefined;
  readonly active?: boolean | undefined;
}

/**
 * A month `YYYY-MM` as [start, next month's start) in epoch ms, read in the market's time
 * (UTC+2, as a scheduled_at without an offset is, spec: business 2.1): a trip booked at 00:30
 * on the 1st in Gaborone is that month's, not the month before's as in UTC.
 */
export function monthRange(month: string): [number, number] {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const offsetMs = Date.parse("2000-01-01T00:00:00Z") -
    Date.parse(`2000-01-01T00:00:00${DEFAULT_OFFSET}`);
  // setUTCFullYear: Date.UTC would read years 0 to 99 as 1900 to 1999.
  const start = (mon: number) => new Date(0).setUTCFullYear(y, mon - 1, 1) - offsetMs;
  return [start(m), start(m + 1)];
}

/**
 * One page of a business's trips, newest first: by created_at, then by the trip's number, so
 * trips booked in the same millisecond keep their booking order (spec: business 4.1). The
 * keyset's id is the number, as text.
 */
export async function tripPage(
  db: Kysely<Database>,
  tenant: string,
  filters: TripFilters,
  page: PageRequest,
): Promise<KeysetPage<Trip>> {
  let q = db.selectFrom("business_trips")
    .select(["id", "created_at", snapshotData("business_trip", "business_trips.id").as("data")])
    .where("tenant", "=", tenant);
  if (filters.month) {
    const [from, to] = monthRange(filters.month);
    q = q.where("created_at", ">=", from).where("created_at", "<", to);
  }
  if (filters.reference) {
    const ref = filters.reference;
    q = q.where((eb) => eb.or([eb("id", "=", ref), eb("external_reference", "=", ref)]));
  }
  if (filters.search) {
    const like = `%${filters.search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    q = q.where("search", "like", like);
  }
  if (filters.test !== undefined) q = q.where("is_test", "=", filters.test ? 1 : 0);
  if (filters.active) q = q.where("active", "=", 1);
  const found = await keysetPage(
    q.select("number"),
    { at: "business_trips.created_at", id: "business_trips.number", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: String(r.number) }),
  );
  return { rows: snapshotsOf<Trip>(found.rows), next: found.next };
}

/**
 * One page of the trips a platform driver holds, across businesses, newest first (CONTRACT
 * "Driver app" GET /driver/trips). Trips booked in the same millisecond keep booking order: by
 * created_at, then the trip's number (numbered per business), then its reference (two businesses'
 * trips of one number). The keyset's id is the reference, as cursors always named it: the number
 * of the trip it names is read with it, so a cursor given before the number joined the order still
 * asks the page after its trip. A trip given back leaves the list once projected.
 */
export async function driverTripPage(
  db: Kysely<Database>,
  driverId: string,
  page: PageRequest,
): Promise<KeysetPage<Trip>> {
  let q = db.selectFrom("business_trips")
    .select([
      "id",
      "number",
      "created_at",
      snapshotData("business_trip", "business_trips.id").as("data"),
    ])
    .where("driver_id", "=", driverId);
  if (page.after !== null) {
    const { at, id } = page.after;
    // A cursor naming no trip (forged) has no number: only the trips older than its time follow
    // (a row comparison stops at the first unequal pair, and is null at the number's).
    const number = sql`(select p.number from business_trips p where p.id = ${id})`;
    q = q.where(sql<SqlBool>`(business_trips.created_at, business_trips.number, business_trips.id)
      < (cast(${at} as bigint), ${number}, ${id})`);
  }
  // One row more than the page tells whether another page follows.
  const found = await q.orderBy("created_at", "desc").orderBy("number", "desc")
    .orderBy("id", "desc").limit(page.limit + 1).execute();
  const last = found[page.limit - 1];
  const next = found.length > page.limit && last !== undefined
    ? { at: last.created_at, id: last.id }
    : null;
  // The snapshot may be newer than the row: a trip given back since is not the driver's.
  const rows = snapshotsOf<Trip>(found.slice(0, page.limit))
    .filter((t) => t.driver?.id === driverId);
  return { rows, next };
}

/** A row of the dispatcher's sweep: a trip waiting for a driver, and when it is due. */
export interface DueTrip {
  readonly tenant: string;
  readonly id: string;
  readonly offer_due_at: number;
}

/**
 * spec: business 3.1: the trips waiting for a driver (pending, or scheduled until a driver
 * accepts) due to be offered by `now`, the longest due first, after `after`. Trips scheduled far
 * ahead (subscriptions book many) are brought back by their own timers: read, they would fill
 * the bound while a trip due now waits unoffered.
 */
export async function dueTrips(
  db: Kysely<Database>,
  now: number,
  after: DueTrip | null,
  limit: number,
): Promise<DueTrip[]> {
  let q = db.selectFrom("business_trips").select(["tenant", "id", "offer_due_at"])
    .where("status", "in", ["pending", "scheduled"]).where("driver_id", "is", null)
    .where("active", "=", 1).where("offer_due_at", "<=", now);
  if (after !== null) {
    const { offer_due_at: due, id } = after;
    q = q.where((eb) =>
      eb.or([
        eb("offer_due_at", ">", due),
        eb.and([eb("offer_due_at", "=", due), eb("id", ">", id)]),
      ])
    );
  }
  const rows = await q.orderBy("offer_due_at").orderBy("id").limit(limit).execute();
  return rows.map((r) => ({ ...r, offer_due_at: Number(r.offer_due_at) }));
}

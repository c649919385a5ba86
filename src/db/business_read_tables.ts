/**
 * The Business API's typed read tables (migration 0019 onwards): trips, batches, checkouts,
 * the dispatch pool, drivers' positions, the sandbox inbox and recurring deliveries.
 */
import type { Generated } from "kysely";
import type { Int8Column, JsonbColumn, Millis, VersionedRow } from "./columns.ts";

/** A Business API trip as its list filters and sorts it (migration 0019). */
export interface BusinessTripTable extends VersionedRow {
  number: Int8Column;
  created_at: Millis;
  /** `YYYY-MM` of created_at in UTC. */
  month: string;
  /** `ride` or `parcel` (2.1). */
  type: string;
  status: string;
  /** 1 while the trip is not final (3.1), else 0. */
  active: number;
  is_test: number;
  external_reference: string | null;
  /** Lower-cased reference, passenger, addresses and external_reference. */
  search: string;
  /** The driver holding the trip (migration 0023). */
  driver_id: string | null;
  /** When the trip is due to be offered (3.1; migration 0033): the restart sweep's order. */
  offer_due_at: Millis;
  /** The batch the trip is a stop of (2.3; migration 0036): the batches list's order. */
  batch_id: string | null;
}

/** A batch as GET /business/batches lists it (migration 0027), newest first. */
export interface BusinessBatchTable extends VersionedRow {
  created_at: Int8Column;
  /** The batch's external_reference, else its batch_reference. */
  external_reference: string | null;
  stop_count: number;
}

/** A checkout as the checkouts list filters it (Business API 4.1, migration 0028). */
export interface BusinessCheckoutTable extends VersionedRow {
  created_at: Millis;
  /** open, booking, booked, cancelled or expired. */
  status: string;
  cart_reference: string | null;
}

/** A driver of the dispatch pool as the dispatch board lists drivers on shift (migration 0024). */
export interface PoolDriverTable extends VersionedRow {
  name: string;
  vehicle_type_id: number;
  zone_id: string;
  /** 1 while on shift, else 0. */
  online: number;
}

/** Drivers' positions, kept in batches (migration 0023): a trip's breadcrumb. */
export interface DriverPositionTable {
  driver_id: string;
  at: Int8Column;
  lat: number;
  lng: number;
  accuracy: number | null;
  heading: number | null;
}

/** A delivery the sandbox inbox received (migration 0025): the exact body and headers sent. */
export interface SandboxInboxTable extends VersionedRow {
  event: string;
  event_id: string;
  received_at: Millis;
  headers: JsonbColumn;
  body: string;
  /** Numbers the rows as written: the order of deliveries kept in one millisecond (0035). */
  seq: Generated<string>;
}

/**
 * A webhook a business's own receiver answered 2xx that a going-live flow needs (migration 0025,
 * Business API appendix 3); primary key (tenant, event_id).
 */
export interface SandboxReceiverStepTable {
  event_id: string;
  tenant: string;
  step: string;
  trip_reference: string;
  delivered_at: Millis;
}

/** Business API 4.2 recurring deliveries (migration 0026): the list's filter and order. */
export interface BusinessSubscriptionTable extends VersionedRow {
  created_at: Int8Column;
  /** active, paused or cancelled. */
  status: string;
}

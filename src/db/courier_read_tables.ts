/**
 * The courier platform's typed read tables (migration 0016 onwards): the columns its lists,
 * board, reports and exports filter and sort by.
 */
import type { ColumnType, Expression } from "kysely";
import type { Int8Column, JsonbColumn, MaybeMillis, Millis, VersionedRow } from "./columns.ts";

/** A shipment as the board (courier 4.4) and the shipment lists (4.1, 4.6) filter and show it. */
export interface ShipmentTable extends VersionedRow {
  client_id: string;
  status: string;
  health: string | null;
  health_reason: string | null;
  external_customer_code: string | null;
  external_billing_reference: string | null;
  client_order_reference: string | null;
  /** The consignee's name (the board's and the search's `q`). */
  recipient_name: string | null;
  /** The most recently scanned piece's holder and facility. */
  custody_holder: string | null;
  custody_facility_id: string | null;
  /** Every facility a piece is at (the board's `facility_id` filter). */
  facility_ids: ColumnType<string[], Expression<string[]>, Expression<string[]>>;
  pieces_count: number;
  /** Distinct facility and holder pairs the pieces are at. */
  places_count: number;
  last_scan_event: string | null;
  last_scan_at: MaybeMillis;
  last_scan_facility_id: string | null;
  last_scan_note: string | null;
  next_milestone: string | null;
  next_due_at: MaybeMillis;
  next_owner: string | null;
  /** The earliest deadline of an open milestone: the board's order, `overdue` once passed. */
  first_due_at: MaybeMillis;
  estimated_delivery_on: string | null;
  earliest_delivery: string | null;
  latest_delivery: string | null;
  collection_on: string | null;
  tax_minor: ColumnType<number | null, number | null, number | null>;
  booked_at: Millis;
  closed_at: MaybeMillis;
  delivered_at: MaybeMillis;
}

/** An alert (courier 2.9) as its list, the board and the report filter it. */
export interface AlertTable extends VersionedRow {
  waybill: string | null;
  kind: string;
  status: string;
  owner: string;
  raised_at: Millis;
  resolved_at: MaybeMillis;
}

export interface ClaimTable extends VersionedRow {
  client_id: string;
  waybill: string;
  status: string;
  filed_at: Millis;
}

export interface NetworkRunTable extends VersionedRow {
  driver_id: string | null;
  status: string;
  created_at: Millis;
}

/** An outbound event (courier 3.1, 6.1): the billing event outbox and events awaiting an endpoint. */
export interface OutboundEventTable extends VersionedRow {
  stream: string;
  event_type: string;
  status: string;
  /** The event's client, else its entry's. */
  client_id: string | null;
  recipient_kind: string | null;
  recipient_client_id: string | null;
  endpoint_missing_at: MaybeMillis;
  /** What the recipient's system acknowledged (courier 3.1). */
  reported_state: string | null;
  external_references: JsonbColumn<Readonly<Record<string, string>> | null>;
  created_at: Millis;
  /**
   * The delivery log of an event no actor holds (migration 0020): set only on a row its outbox's
   * handler wrote, null on rows projected from an actor.
   */
  raw_body: string | null;
  attempts: JsonbColumn<unknown>;
  attempts_total: number | null;
  next_attempt_at: MaybeMillis;
  entry: JsonbColumn<unknown>;
  request_id: string | null;
}

/**
 * A courier's open shipments by health and next owner (courier 4.4 `meta.by_health`), kept by a
 * trigger on `shipments` (migration 0016); '' for none. Never written by the app.
 */
export interface BoardCountTable {
  tenant: string;
  health: string;
  next_owner: string;
  n: Int8Column;
}

/** A client's saved quotation (courier 4.1): a price offer of kind `quote`. */
export interface QuoteTable extends VersionedRow {
  client_id: string;
  created_at: Millis;
}

/** A shipment's customs crossing (migration 0017), by the order they were opened. */
export interface CustomsCrossingTable extends VersionedRow {
  waybill: string;
  opened_at: Millis;
}

/** A client's saved address (courier 4.6), listed by its label in any case. */
export interface ClientAddressTable extends VersionedRow {
  client_id: string;
  label: string;
}

export interface ClientStoreTable extends VersionedRow {
  client_id: string;
  code: string;
}

/** A retail packet, counted by store and state on its store's row. */
export interface RetailPacketTable extends VersionedRow {
  client_id: string;
  store_id: string;
  state: string;
}

/** A compliance checklist, its latest version's supplier. */
export interface ChecklistTable extends VersionedRow {
  supplier: string | null;
  code: string;
}

/** A courier's client account: its code, for the billing export (courier 3.1). */
export interface CourierClientTable extends VersionedRow {
  code: string;
  /** The client's name (`q` on the board and the shipment search); null until projected. */
  name: string | null;
}

/** Bus work deferred past its retries (the operator's list). */
export interface DeferredWorkTable extends VersionedRow {
  status: string;
  deferred_at: MaybeMillis;
}

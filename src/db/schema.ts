/**
 * The query side's tables, as Kysely sees them (kysely's `example/src/user/` shape). The tables
 * themselves are made by `migrations/`, which never import this file.
 */
import type { ColumnType, Expression, Generated, Insertable, Selectable } from "kysely";
import type {
  LoginThrottleTable,
  RateCounterTable,
  RecipientRateCounterTable,
} from "./counter_tables.ts";

/**
 * A jsonb column: reads as the parsed value; writes only through an expression, normally
 * `jsonb(value)` from `json.ts`, so every driver binds JSON the same way.
 */
export type JsonbColumn<S = unknown> = ColumnType<S, Expression<unknown>, Expression<unknown>>;

/** int8 columns read as numbers; the drivers parse them so (see `db.ts`). */
export type Int8Column = ColumnType<number, number, number>;

export interface Database {
  snapshots: SnapshotTable;
  audit_log: AuditLogTable;
  ledger_entries: LedgerEntryTable;
  ledger_watermarks: LedgerWatermarkTable;
  parked_changes: ParkedChangeTable;
  invoices: InvoiceTable;
  billing_exports: BillingExportTable;
  shipments: ShipmentTable;
  alerts: AlertTable;
  business_trips: BusinessTripTable;
  business_checkouts: BusinessCheckoutTable;
  claims: ClaimTable;
  network_runs: NetworkRunTable;
  outbound_events: OutboundEventTable;
  quotes: QuoteTable;
  board_counts: BoardCountTable;
  customs_crossings: CustomsCrossingTable;
  client_addresses: ClientAddressTable;
  client_stores: ClientStoreTable;
  retail_packets: RetailPacketTable;
  checklists: ChecklistTable;
  deferred_work: DeferredWorkTable;
  courier_clients: CourierClientTable;
  rate_counters: RateCounterTable;
  login_throttles: LoginThrottleTable;
  recipient_rate_counters: RecipientRateCounterTable;
  driver_positions: DriverPositionTable;
  pool_drivers: PoolDriverTable;
  business_batches: BusinessBatchTable;
  sandbox_inbox: SandboxInboxTable;
  sandbox_receiver_steps: SandboxReceiverStepTable;
  business_subscriptions: BusinessSubscriptionTable;
}

/** The latest projected state of each actor; primary key (type, id). */
export interface SnapshotTable {
  type: string;
  id: string;
  tenant: string;
  /** Sequence of the actor's last event when this snapshot was taken. */
  version: Int8Column;
  data: JsonbColumn;
  updated_at: Generated<Date>;
}

/** Who did what, when, in which tenant. */
export interface AuditLogTable {
  id: string;
  tenant: string;
  at: Generated<Date>;
  /** The principal: its kind and id, e.g. `api_key:key_123`. */
  actor: string;
  action: string;
  detail: JsonbColumn;
}

/**
 * One entry of a client account (courier 2.6), projected from the client actor's events; primary
 * key (tenant, client_id, reference, kind). Amounts are signed minor units: positive is owed by the
 * client, negative reduces what it owes.
 */
export interface LedgerEntryTable {
  tenant: string;
  client_id: string;
  reference: string;
  /** The order in which the entry reached the account (a resolved conversion gets a new one). */
  seq: number;
  /** `YYYY-MM` (UTC). */
  period: string;
  kind: string;
  amount_minor: Int8Column;
  currency: string;
  /** `posted`, `external` or `unresolved_fx`. */
  status: string;
  payer: string;
  recoverable: boolean;
  /** Goes on an invoice of its period (posted in credit mode). */
  invoiceable: Generated<boolean>;
  reason: string | null;
  evidence_path: string | null;
  source_event: string | null;
  original_amount_minor: ColumnType<number | null, number | null, number | null>;
  original_currency: string | null;
  fx_rate: string | null;
  fx_source: string | null;
  corrects: string | null;
  /** The kind of the entry a note corrects (null on notes projected before it was kept). */
  corrects_kind: ColumnType<string | null, string | null | undefined, string | null>;
  shipment: string | null;
  /** When the entry was booked: its export range and CSV date (a resolved conversion: then). */
  created_at: ColumnType<Date, Date, Date>;
  /** When the charge arose, when it was booked later (a conversion resolved); else null. */
  charged_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  invoice_id: string | null;
  /** Courier 3.1: pending, exported, acknowledged, invoiced_externally, reconciled. */
  export_state: Generated<string>;
  event_state: Generated<string>;
  external_reference: string | null;
  updated_at: Generated<Date>;
  /** The billing event reporting this entry (courier 6.1), when the entry is a charge. */
  event_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The `charge.resolved` event of the entry's conversion (courier 6.1), once resolved. */
  resolved_event_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The export that moved the entry from pending to exported (courier 3.1). */
  exported_by: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * A payment's or remittance's allocations by invoice (`[{invoice_id, amount_minor}]`); null
   * for other entries and for those projected before they were kept.
   */
  allocations: ColumnType<
    readonly PaymentAllocation[] | null,
    Expression<readonly PaymentAllocation[]> | null | undefined,
    never
  >;
}

export interface PaymentAllocation {
  readonly invoice_id: string;
  readonly amount_minor: number;
}

/**
 * How far the ledger projection has got with one client account (migration 0013): every entry
 * of the account up to `seq` is in `ledger_entries`, or was kept out and reported.
 */
export interface LedgerWatermarkTable {
  tenant: string;
  client_id: string;
  seq: number;
}

/**
 * A change a projection could not write for a lasting reason, kept to be written again
 * (migration 0014); primary key (projection, digest).
 */
export interface ParkedChangeTable {
  projection:
    | "snapshots"
    | "ledger"
    | "read_tables"
    | "platform_read_tables"
    | "business_read_tables"
    | "sandbox_inbox";
  /** SHA-256 of `payload`. */
  digest: string;
  subject: string;
  /** The change as JSON text. */
  payload: string;
  error: string;
  attempts: Generated<number>;
  parked_at: Generated<Date>;
  failed_at: Generated<Date>;
  /**
   * A ledger change: its client account and the lowest entry seq it hands out, which readers'
   * watermark stops before (migration 0015); null for others.
   */
  tenant: string | null;
  actor_id: string | null;
  holds_seq: number | null;
}

/** One POST /business/courier/billing/export (courier 4.3). */
export interface BillingExportTable {
  id: string;
  tenant: string;
  client_id: string | null;
  from_date: string | null;
  to_date: string | null;
  as_of: Date;
  marked: number;
  by: string;
  created_at: Generated<Date>;
}

/** An invoice issued for one period and currency of a client (courier 4.2). */
export interface InvoiceTable {
  id: string;
  tenant: string;
  client_id: string;
  period: string;
  currency: string;
  amount_minor: Int8Column;
  paid_minor: Int8Column;
  supplementary: boolean;
  issued_at: ColumnType<Date, Date, never>;
  /** A `date`; written as `YYYY-MM-DD`. */
  due_on: ColumnType<Date | string, string, never>;
  /** The highest entry seq the invoice covers. */
  watermark: number;
}

/** Epoch milliseconds (bigint), as the actors keep times. */
type Millis = Int8Column;
type MaybeMillis = ColumnType<number | null, number | null, number | null>;

/**
 * The typed read tables (migration 0016): one row per actor, keyed by id, at the `version` of the
 * change it was made from; a projection writes a row only over an older one. Their columns are
 * the filters and sorts of the lists that read them.
 */
interface VersionedRow {
  id: string;
  tenant: string;
  version: Int8Column;
}

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

export type ShipmentRow = Selectable<ShipmentTable>;
export type AlertRow = Selectable<AlertTable>;
export type BillingExportRow = Selectable<BillingExportTable>;
export type SnapshotRow = Selectable<SnapshotTable>;
export type NewSnapshot = Insertable<SnapshotTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type NewAuditLog = Insertable<AuditLogTable>;
export type LedgerEntryRow = Selectable<LedgerEntryTable>;
export type NewLedgerEntry = Insertable<LedgerEntryTable>;
export type InvoiceRow = Selectable<InvoiceTable>;
export type NewInvoice = Insertable<InvoiceTable>;

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

/**
 * The query side's database, as Kysely sees it (kysely's `example/src/user/` shape): its tables
 * and their row types. The tables themselves are made by `migrations/`, which never import this
 * file; each group of tables is declared in its own file, re-exported here.
 */
import type { Insertable, Selectable } from "kysely";
import type {
  LoginThrottleTable,
  RateCounterTable,
  RecipientRateCounterTable,
} from "./counter_tables.ts";
import type { AuditLogTable, ParkedChangeTable, SnapshotTable } from "./bookkeeping_tables.ts";
import type {
  BillingExportTable,
  InvoiceTable,
  LedgerEntryTable,
  LedgerWatermarkTable,
} from "./ledger_tables.ts";
import type {
  AlertTable,
  BoardCountTable,
  ChecklistTable,
  ClaimTable,
  ClientAddressTable,
  ClientStoreTable,
  CourierClientTable,
  CustomsCrossingTable,
  DeferredWorkTable,
  NetworkRunTable,
  OutboundEventTable,
  QuoteTable,
  RetailPacketTable,
  ShipmentTable,
} from "./courier_read_tables.ts";
import type {
  BusinessBatchTable,
  BusinessCheckoutTable,
  BusinessSubscriptionTable,
  BusinessTripTable,
  DriverPositionTable,
  PoolDriverTable,
  SandboxInboxTable,
  SandboxReceiverStepTable,
} from "./business_read_tables.ts";

export type { Int8Column, JsonbColumn } from "./columns.ts";
export type * from "./bookkeeping_tables.ts";
export type * from "./ledger_tables.ts";
export type * from "./courier_read_tables.ts";
export type * from "./business_read_tables.ts";

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

/**
 * The query side's tables, as Kysely sees them (kysely's `example/src/user/` shape). The tables
 * themselves are made by `migrations/`, which never import this file.
 */
import type { ColumnType, Expression, Generated, Insertable, Selectable } from "kysely";

/**
 * A jsonb column: reads as the parsed value; writes only through an expression, normally
 * `jsonb(value)` from `json.ts`, so every driver binds JSON the same way.
 */
export type JsonbColumn<S = unknown> = ColumnType<S, Expression<unknown>, Expression<unknown>>;

/** int8 columns read as numbers; the drivers parse them so (see `db.ts`). */
export type Int8Column = ColumnType<number, number, number>;

export interface Database {
  snapshots: SnapshotTable;
  actor_events: ActorEventTable;
  audit_log: AuditLogTable;
  ledger_entries: LedgerEntryTable;
  ledger_watermarks: LedgerWatermarkTable;
  parked_changes: ParkedChangeTable;
  invoices: InvoiceTable;
  billing_exports: BillingExportTable;
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

/** Every event of every actor, in order: trails, reports, audit. Primary key (type, id, seq). */
export interface ActorEventTable {
  type: string;
  id: string;
  tenant: string;
  seq: ColumnType<number, number, never>;
  at: ColumnType<Date, Date, never>;
  /** The event's `kind` tag. */
  kind: ColumnType<string, string, never>;
  event: ColumnType<unknown, Expression<unknown>, never>;
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
  projection: "snapshots" | "ledger";
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

export type BillingExportRow = Selectable<BillingExportTable>;
export type SnapshotRow = Selectable<SnapshotTable>;
export type NewSnapshot = Insertable<SnapshotTable>;
export type ActorEventRow = Selectable<ActorEventTable>;
export type NewActorEvent = Insertable<ActorEventTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type NewAuditLog = Insertable<AuditLogTable>;
export type LedgerEntryRow = Selectable<LedgerEntryTable>;
export type NewLedgerEntry = Insertable<LedgerEntryTable>;
export type InvoiceRow = Selectable<InvoiceTable>;
export type NewInvoice = Insertable<InvoiceTable>;

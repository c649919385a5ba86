/**
 * The courier billing tables (courier 2.6, 3.1, 4.2, 4.3): client account entries, the ledger
 * projection's watermarks, invoices and billing exports.
 */
import type { ColumnType, Expression, Generated } from "kysely";
import type { Int8Column } from "./columns.ts";

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

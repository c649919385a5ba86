/**
 * The billing export file (courier 4.3): exactly the columns the spec lists, in its order, one
 * row per ledger entry. Pure: a row is shaped from facts the query side supplies.
 */
import { formatMinor } from "../../domain/money.ts";
import {
  type ExportState,
  furthest,
  type ReportedState,
} from "../../platform/rules/export_state.ts";

/** spec: courier 4.3 "CSV columns", in order. */
export const BILLING_CSV_COLUMNS = [
  "date",
  "client",
  "waybill",
  "external customer code",
  "external billing reference",
  "reference",
  "kind",
  "description",
  "amount",
  "currency",
  "tax",
  "status",
  "payer",
  "recoverable",
  "reason",
  "source event",
  "corrects",
  "original amount",
  "original currency",
  "FX rate",
  "invoice id",
  "shipment status",
  "delivered at",
  "export state",
  "event state",
  "external reference",
] as const;

/** What one row is made from: the entry, its client, its shipment and its billing event. */
export interface BillingCsvFacts {
  readonly created_at: Date;
  readonly client_code: string | null;
  readonly client_id: string;
  readonly shipment: string | null;
  readonly external_customer_code: string | null;
  readonly external_billing_reference: string | null;
  readonly reference: string;
  readonly kind: string;
  readonly amount_minor: number;
  readonly currency: string;
  /** The tax in the booked price of a shipment entry; null for other entries. */
  readonly tax_minor: number | null;
  readonly status: string;
  readonly payer: string;
  readonly recoverable: boolean;
  readonly reason: string | null;
  readonly source_event: string | null;
  readonly corrects: string | null;
  readonly original_amount_minor: number | null;
  readonly original_currency: string | null;
  readonly fx_rate: string | null;
  readonly invoice_id: string | null;
  readonly shipment_status: string | null;
  /** When the shipment was delivered, in epoch milliseconds as the shipment keeps it. */
  readonly delivered_at: number | null;
  /** The export state stored for the entry (pending or exported). */
  readonly export_state: ExportState;
  /** The billing event's delivery state, or null for an entry that is no charge. */
  readonly event_state: string | null;
  readonly reported_state: ReportedState | null;
  readonly external_references: Readonly<Partial<Record<ReportedState, string>>> | null;
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  shipment: "Shipment booked",
  customs_admin: "Customs administration",
  duties: "Duties paid on the client's behalf",
  errand: "Errand",
  waiting: "Waiting time",
  cold_chain: "Cold chain",
  failed_collection: "Failed collection",
  redelivery: "Redelivery",
  return: "Return",
  top_up: "Prepaid top-up",
  payment: "Payment received",
  debit_note: "Debit note",
  credit_note: "Credit note",
  compensation: "Claim compensation",
  cod_remitted: "Cash on delivery remitted",
};

/**
 * One row, in BILLING_CSV_COLUMNS order. The export state shown is the furthest of the stored
 * one and what the courier's system reported for the entry's event (courier 3.1 rule 1); the
 * external reference is the one kept for that furthest reported state (rule 3).
 */
export function billingCsvRow(f: BillingCsvFacts): string[] {
  const { state, reference } = exportStateOf(f);
  return [
    f.created_at.toISOString().slice(0, 10),
    f.client_code ?? f.client_id,
    f.shipment ?? "",
    f.external_customer_code ?? "",
    f.external_billing_reference ?? "",
    f.reference,
    f.kind,
    DESCRIPTIONS[f.kind] ?? f.kind,
    formatMinor(f.amount_minor, f.currency),
    f.currency,
    f.tax_minor === null ? "" : formatMinor(f.tax_minor, f.currency),
    f.status,
    f.payer,
    f.recoverable ? "true" : "false",
    f.reason ?? "",
    f.source_event ?? "",
    f.corrects ?? "",
    f.original_amount_minor === null || f.original_currency === null
      ? ""
      : formatMinor(f.original_amount_minor, f.original_currency),
    f.original_currency ?? "",
    f.fx_rate ?? "",
    f.invoice_id ?? "",
    f.shipment_status ?? "",
    // spec: courier 2.7 delivered_at (timestamp): ISO 8601, as the completion event states it.
    f.delivered_at === null ? "" : new Date(f.delivered_at).toISOString(),
    state,
    f.event_state ?? "",
    reference ?? "",
  ];
}

/**
 * An entry's export state as the courier sees it, in the CSV and the statement alike: the
 * furthest of the stored one and what its system reported for the entry's event (courier 3.1
 * rule 1), with the external reference kept for that furthest reported state (rule 3), or null.
 */
export function exportStateOf(
  f: Pick<BillingCsvFacts, "export_state" | "reported_state" | "external_references">,
): { state: ExportState; reference: string | null } {
  if (!f.reported_state) return { state: f.export_state, reference: null };
  return {
    state: furthest<ExportState>(f.export_state, f.reported_state),
    reference: f.external_references?.[f.reported_state] ?? null,
  };
}

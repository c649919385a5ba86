/**
 * A ledger entry (courier 2.6): every money fact of a client account. Sign of an entry's amount:
 * from the client's side. Positive adds to what the client owes (charges, debit notes); negative
 * reduces it (top-ups, payments, credit notes, COD remitted).
 */
import { periodOf } from "./periods.ts";

/** Later charges (courier 2.6 rule 3): one entry per fact, posted with `post_charge`. */
export const CHARGE_KINDS = [
  "customs_admin",
  "duties",
  "errand",
  "waiting",
  "cold_chain",
  "failed_collection",
  "redelivery",
  "return",
] as const;

export type ChargeKind = typeof CHARGE_KINDS[number];

export const ENTRY_KINDS = [
  "shipment",
  ...CHARGE_KINDS,
  "top_up",
  "payment",
  "debit_note",
  "credit_note",
  // A claim's approved amount above the booked price (courier 2.4 cover; rules/ledger/compensation).
  "compensation",
  "cod_remitted",
] as const;

export type EntryKind = typeof ENTRY_KINDS[number];

/** `external`: recorded for audit and profit, no receivable (courier 4.2 external row). */
export const ENTRY_STATUSES = ["posted", "external", "unresolved_fx"] as const;

export type EntryStatus = typeof ENTRY_STATUSES[number];

export interface LedgerEntry {
  readonly reference: string;
  /** Order in which entries reached the account; a conversion gets a new one when resolved. */
  readonly seq: number;
  /** `YYYY-MM` (UTC) of `created_at`: the period whose statement and invoice it goes on. */
  readonly period: string;
  readonly kind: EntryKind;
  /** Signed, see the top of this file; in `currency`'s minor units. */
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly payer: "client";
  /** Duties paid on the client's behalf: recovered, never revenue (courier 2.6). */
  readonly recoverable: boolean;
  readonly reason: string | null;
  readonly evidence_path: string | null;
  readonly source_event: string | null;
  readonly original_amount_minor: number | null;
  readonly original_currency: string | null;
  /** Exact decimal text, e.g. `"0.0734"`. */
  readonly fx_rate: string | null;
  readonly fx_source: string | null;
  readonly corrects: string | null;
  /**
   * The kind of the entry a note corrects: a reference is unique within its kind only (absent on
   * notes made before it was kept).
   */
  readonly corrects_kind?: EntryKind | null;
  readonly shipment: string | null;
  /**
   * When the entry was booked: the moment it counts in its period's statement, invoice and
   * export range. A conversion resolved after it was posted is booked when resolved.
   */
  readonly created_at: number;
  /**
   * When the charge arose (its source event), set only when it was booked later: a conversion
   * resolved after it was posted. Absent or null: it arose at `created_at`.
   */
  readonly charged_at?: number | null;
}

/** The fields every entry starts from; the caller sets what differs. */
export function entryOf(
  fields:
    & Pick<LedgerEntry, "reference" | "seq" | "kind" | "amount_minor" | "currency" | "status">
    & Partial<LedgerEntry>
    & { readonly created_at: number },
): LedgerEntry {
  return {
    payer: "client",
    recoverable: false,
    reason: null,
    evidence_path: null,
    source_event: null,
    original_amount_minor: null,
    original_currency: null,
    fx_rate: null,
    fx_source: null,
    corrects: null,
    shipment: null,
    ...fields,
    period: fields.period ?? periodOf(fields.created_at),
  };
}

/**
 * What the money part of the client account takes and tells (courier 2.6, 4.2): its commands,
 * the events that state what was decided, its replies, and the ask options of a money fact.
 */
import type { AskOptions } from "../../../src/runtime/actor.ts";
import type {
  Allocation,
  Balances,
  ChargeKind,
  CodAwaiting,
  Effect,
  EntryKind,
  EntryStatus,
  Invoice,
  LedgerEntry,
} from "../../../src/courier/rules/ledger.ts";
import type { SettlementMode } from "../../../src/courier/rules/settlement.ts";

export interface FxInput {
  /** Exact decimal text: 1 unit of the charge's currency in the billing currency. */
  readonly rate: string;
  readonly source: string;
}

export type LedgerCommand =
  | {
    kind: "post_charge";
    reference: string;
    entry_kind: ChargeKind;
    amount_minor: number;
    currency: string;
    reason: string;
    evidence_path: string | null;
    source_event: string;
    shipment: string | null;
    recoverable: boolean;
    fx?: FxInput;
    by: string;
  }
  | { kind: "resolve_fx"; reference: string; rate: string; source: string; by: string }
  | {
    kind: "payment";
    amount_minor: number;
    currency: string;
    reference: string;
    allocations?: readonly { invoice_id: string; amount_minor: number }[];
    by: string;
  }
  | {
    kind: "correct";
    /** The corrected entry as stored, and its net amount with the notes already on it. */
    original: OriginalEntry;
    /** The highest entry seq of the account Postgres held when `original` was read. */
    seen_seq: number;
    /** Positive: debit note; negative: credit note. */
    amount_minor: number;
    reason: string;
    reference?: string;
    evidence_path?: string | null;
    /**
     * A credit paying an approved claim (courier 2.4 liability cover, 4.6 claims): it is
     * compensation, not a price correction, so it may exceed the entry's net (a covered loss is
     * worth the declared value, not the price): a credit note takes the entry to zero and the
     * rest is a `compensation` entry, in one commit. Only for credits.
     */
    compensation?: boolean;
    /**
     * The note's reservation on its charged entry (actors/courier/charged_entry/): `original`
     * came from there, with every note booked or being booked on it, and `seen_seq` is unread.
     */
    reservation?: NoteReservation;
    by: string;
  }
  | { kind: "cod_collected"; waybill: string; amount_minor: number; currency: string; by: string }
  | { kind: "cod_remitted"; waybill: string; evidence_path: string; by: string }
  | {
    kind: "issue_invoice";
    period: string;
    by: string;
    /**
     * Currencies the query side holds an invoice of this period in: a period invoiced long ago
     * is no longer in the account's state (PERIODS_KEPT_MAX), and an entry reaching it late
     * (a conversion resolved before resolutions were booked in their own period) still goes on
     * a supplementary invoice.
     */
    invoiced_currencies?: readonly string[];
  };

/** A note held on its charged entry until the account posts it (courier 2.6 rule 5). */
export interface NoteReservation {
  /** The note's idempotency key: the same request reserves, and posts, under it. */
  readonly key: string;
  /** When it was reserved: the account posts it within NOTE_POST_WITHIN_MS only. */
  readonly at: number;
}

export interface OriginalEntry {
  readonly reference: string;
  readonly kind: EntryKind;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly recoverable: boolean;
  readonly shipment: string | null;
  /** The original amount plus every note already pointing at it. */
  readonly net_minor: number;
  /**
   * The adjustments of its shipment (courier 2.7: later charges and notes) Postgres held at
   * `seen_seq`; absent: not read.
   */
  readonly shipment_adjustments?: number;
}

/** A conversion that got its rate: the fields of the entry that change. */
export interface FxResolution {
  readonly reference: string;
  readonly seq: number;
  readonly period: string;
  readonly kind: EntryKind;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly recoverable: boolean;
  readonly original_amount_minor: number;
  readonly original_currency: string;
  readonly fx_rate: string;
  readonly fx_source: string;
  /** The resolution's moment: the converted charge is booked then (absent `charged_at`: not). */
  readonly created_at: number;
  /** When the charge arose; absent on resolutions booked at that time, made before it was kept. */
  readonly charged_at?: number;
  /** Unchanged by the conversion: the charge's waybill and evidence (courier 2.7 charge event). */
  readonly shipment?: string | null;
  readonly evidence_path?: string | null;
}

export type LedgerEvent =
  | {
    kind: "entry_posted";
    entry: LedgerEntry;
    effect: Effect;
    invoiceable: boolean;
    by: string;
    /** A note: the Postgres watermark it was judged against (absent on older notes). */
    seen_seq?: number;
    /** A note reserved on its charged entry: the reservation's key, which the posting confirms. */
    reservation?: string;
  }
  | {
    kind: "fx_resolved";
    resolution: FxResolution;
    effect: Effect;
    invoiceable: boolean;
    by: string;
  }
  | {
    kind: "payment_received" | "cod_remitted";
    entry: LedgerEntry;
    effect: Effect;
    allocations: readonly Allocation[];
    /** What no invoice took: credit on account, applied to the next invoice. */
    unallocated_minor: number;
    by: string;
  }
  | {
    kind: "cod_collected";
    waybill: string;
    amount_minor: number;
    currency: string;
    collected_at: number;
    by: string;
  }
  | {
    kind: "invoices_issued";
    invoices: readonly Invoice[];
    /** Credit on account applied at this issue to invoices issued before (absent: none). */
    allocations?: readonly Allocation[];
    /**
     * Duties of invoices that credit on account paid at this issue, by currency: recovered
     * (courier 2.6), moved from the recoverable balance to the receivable. Absent: none.
     */
    duties_recovered?: Readonly<Record<string, number>>;
    by: string;
  };

/** The account's figures a billing reply carries (minor units of `currency`). */
export interface AccountBalances {
  readonly settlement_mode: SettlementMode;
  readonly currency: string;
  readonly prepaid_minor: number;
  readonly receivable_minor: number;
  readonly recoverable_minor: number;
  /** Credit on account not yet applied to an invoice. */
  readonly unallocated_minor: number;
  /** Sum of the posted entries: what the client owes (negative: what it holds). */
  readonly owed_minor: number;
  readonly credit_limit_minor: number;
  readonly available_minor: number | null;
  /**
   * The balances in other currencies (notes on entries from before the billing currency changed,
   * credit on account left in the old one), by currency; absent on replies kept before them.
   */
  readonly other_currencies?: readonly OtherCurrencyBalances[];
}

/** An account's balances in a currency other than its billing currency (minor units). */
export interface OtherCurrencyBalances extends Balances {
  readonly currency: string;
  readonly unallocated_minor: number;
  readonly owed_minor: number;
}

export type LedgerReply =
  | {
    readonly entry: LedgerEntry;
    readonly allocations: readonly Allocation[];
    readonly balances: AccountBalances;
    /**
     * A payment's allocations as sent (the rest is allocated oldest first, so `allocations` may
     * name more): a replay under its reference is the same payment only if it sends these.
     * Absent on other entries, and on payments kept before it was recorded.
     */
    readonly requested?: readonly { readonly invoice_id: string; readonly amount_minor: number }[];
  }
  | { readonly resolved: FxResolution; readonly balances: AccountBalances }
  /** COD recorded as collected (absent on records kept before it was answered). */
  | { readonly cod: CodAwaiting }
  | { readonly invoices: readonly Invoice[]; readonly balances: AccountBalances };

/** Ask options for a money fact: the same source event books once, however late (2.6 rule 2). */
export function entryAsk(sourceEvent: string): AskOptions {
  return { idempotencyKey: `entry:${sourceEvent}`, permanent: true };
}

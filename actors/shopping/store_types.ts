/**
 * The shopping_store actor's state, commands and events (store.ts): a store of a shopping order
 * with its lines (shopping 2.2, 2.3, 3).
 */
import type { Decision } from "../../src/runtime/actor.ts";
import type {
  ExternalId,
  OrderLine,
  OrderStore,
  SubstitutionPreference,
} from "../../src/shopping/rules/order.ts";
import type {
  DecidedBy,
  Decision as CustomerDecision,
  LineReport,
  ReportedOutcome,
  Substitute,
} from "../../src/shopping/rules/shopper.ts";

export type { DecidedBy, Substitute };

/** spec: shopping 3: a store is collected or unavailable; pending until the shopper says. */
export type StoreStatus = "pending" | "collected" | "unavailable";
/**
 * spec: shopping 3: a line is found, substituted or unavailable; pending until the shopper says,
 * awaiting_decision while a substitution under `ask` waits for the customer.
 */
export type LineOutcome = "pending" | "awaiting_decision" | ReportedOutcome;

/** The till receipt's image, kept in the evidence store (as a trip's proof photo). */
export interface ReceiptPhoto {
  readonly sha256: string;
  readonly content_type: string;
}

export interface ShoppingLine extends OrderLine {
  readonly outcome: LineOutcome;
  readonly qty_found: number | null;
  readonly unit_price_paid_minor: number | null;
  readonly substitute: Substitute | null;
  readonly decided_by: DecidedBy | null;
  /** The end of the customer's decision window (ms), kept once asked: a late answer is told so. */
  readonly decide_by: number | null;
  readonly recorded_at: number | null;
}

export interface ShoppingStore extends Omit<OrderStore, "items"> {
  readonly business_id: string;
  /** This actor's id (the order's StoreSummary.store_id). */
  readonly store_id: string;
  readonly order_reference: string;
  readonly substitution_preference: SubstitutionPreference;
  readonly status: StoreStatus;
  readonly collected_amount_minor: number | null;
  readonly receipt_photo: ReceiptPhoto | null;
  readonly finished_at: number | null;
  readonly lines: readonly ShoppingLine[];
  readonly opened_at: number;
  /**
   * Only in the reply to a shopper's change (never in the state): the digest of the driver app's
   * request, kept under its key so another request under the key is told from its replay.
   */
  readonly request?: string;
}

export type ShoppingStoreState = ShoppingStore | null;

export type ShoppingStoreCommand =
  | {
    kind: "open";
    order_reference: string;
    business_id: string;
    store_id: string;
    substitution_preference: SubstitutionPreference;
    store: OrderStore;
  }
  // spec: shopping 3: the shopper's outcome of one line; ask_timeout_ms is the capability's
  // ask_timeout_minutes as read when the command was given.
  | {
    kind: "record_line";
    external_item_id: ExternalId;
    report: LineReport;
    ask_timeout_ms: number;
    request?: string;
  }
  // receipt_photo null: none was uploaded (refused, after what the store itself refuses).
  | {
    kind: "collect";
    collected_amount_minor: number;
    receipt_photo: ReceiptPhoto | null;
    request?: string;
  }
  // `request`: the shopper's request digest, answered back in the reply (ShoppingStore).
  | { kind: "mark_unavailable"; request?: string }
  // The order's trip was cancelled before the store was finished: nothing more is bought here.
  | { kind: "trip_ended" }
  | { kind: "decide"; external_item_id: ExternalId; decision: CustomerDecision }
  // The sandbox's simulated timeout: the window of a line awaiting a decision closes now.
  | { kind: "close_window"; external_item_id: ExternalId }
  // The order's claim was released before its trip was booked: this store is no order's.
  | { kind: "discard" }
  | { kind: "get" };

/** A line's outcome as decided, whoever decided it. */
export interface LineRecorded {
  readonly kind: "line_recorded";
  readonly external_item_id: ExternalId;
  readonly outcome: ReportedOutcome;
  readonly qty_found: number;
  readonly unit_price_paid_minor: number | null;
  readonly substitute: Substitute | null;
  readonly decided_by: DecidedBy;
  readonly at: number;
}

export type ShoppingStoreEvent =
  | { kind: "store_opened"; store: ShoppingStore }
  /** Opened for a claim released unbooked: its lines are dropped (the state is null again). */
  | { kind: "store_discarded"; at: number }
  | LineRecorded
  | {
    kind: "decision_awaited";
    external_item_id: ExternalId;
    qty_found: number;
    unit_price_paid_minor: number | null;
    substitute: Substitute;
    decide_by: number;
    event_id: string;
    at: number;
  }
  | {
    kind: "store_collected";
    collected_amount_minor: number;
    receipt_photo: ReceiptPhoto;
    event_id: string;
    at: number;
  }
  | {
    kind: "store_unavailable";
    lines: readonly ExternalId[];
    /**
     * Of `lines`, those that awaited the customer's decision when the trip ended: refunded as no
     * answer in time is, decided_by `preference` (absent on events stored before: none).
     */
    unanswered?: readonly ExternalId[];
    event_id: string;
    at: number;
  };

/** A line as the order opens it: nothing found yet. */
export function openLine(l: OrderLine): ShoppingLine {
  return {
    ...l,
    outcome: "pending",
    qty_found: null,
    unit_price_paid_minor: null,
    substitute: null,
    decided_by: null,
    decide_by: null,
    recorded_at: null,
  };
}

/** The line of this store with that id, as sent or as its text. */
export function lineOf(s: ShoppingStore, id: ExternalId): ShoppingLine | undefined {
  return s.lines.find((l) => String(l.external_item_id) === String(id));
}

export type Decided = Decision<ShoppingStoreState, ShoppingStoreEvent, ShoppingStoreState>;

/**
 * The purchase float's reconciliation (shopping 1.1, 3; issue 41 item 7): once every store of the
 * order is finished (collected or unavailable), the float fronted to the shopper reconciles
 * against the till amounts: spent per store, its difference against the store's estimate, and the
 * refunds of the lines not bought (unavailable, or found short), priced exactly at the line's
 * expected unit price in minor units. Pure: the order actor decides with it, evolve never runs it.
 *
 * What the business is charged follows from it: the goods, exactly as spent at the tills (nothing
 * for them is taken at booking, where only the trip's fare is charged); the float's unspent
 * remainder is returned and is never charged.
 */
import { sumMinor } from "../../domain/money.ts";
import type { ExternalId } from "./order.ts";

/** A line as the store finished it (shopping 2.3). */
export interface FinishedLine {
  readonly external_item_id: ExternalId;
  readonly qty: number;
  readonly unit_price_minor: number | null;
  readonly outcome: "pending" | "awaiting_decision" | "found" | "substituted" | "unavailable";
  readonly qty_found: number | null;
}

/** A store as the shopper finished it. */
export interface FinishedStore {
  readonly store_id: string;
  readonly status: "pending" | "collected" | "unavailable";
  readonly estimated_amount_minor: number;
  readonly collected_amount_minor: number | null;
  readonly lines: readonly FinishedLine[];
}

/** One store's part of the reconciliation, as the order records it. */
export interface StorePart {
  readonly store_id: string;
  readonly status: "collected" | "unavailable";
  readonly estimated_minor: number;
  /** The till amount; 0 for an unavailable store. */
  readonly spent_minor: number;
  /** spent - estimated: positive when the store cost more than expected. */
  readonly difference_minor: number;
  /** The lines not bought, at their expected unit price. */
  readonly refund_minor: number;
  readonly lines_refunded: number;
  /** Lines not bought that carry no expected unit price: refunded by the merchant's own price. */
  readonly lines_unpriced: number;
}

export interface Reconciliation {
  readonly purchase_minor: number;
  readonly estimated_minor: number;
  readonly spent_minor: number;
  /** spent - estimated, across the stores. */
  readonly difference_minor: number;
  /**
   * purchase - spent: what of the float comes back; never negative, as a till amount past what
   * is left of the float is refused (flows/shopper.ts refuseBeyondFloat).
   */
  readonly float_returned_minor: number;
  readonly refund_minor: number;
  /** What the business is charged for the goods: exactly the amount spent at the tills. */
  readonly charge_minor: number;
}

/** How many units of a line were supplied: found or substituted as counted, else none. */
export function qtySupplied(l: FinishedLine): number {
  if (l.outcome !== "found" && l.outcome !== "substituted") return 0;
  return Math.min(l.qty, l.qty_found ?? l.qty);
}

/** spec: shopping 3: an unavailable line is refunded whole; one found short, its shortfall. */
export function lineRefundMinor(l: FinishedLine): number | null {
  const missing = l.qty - qtySupplied(l);
  if (missing === 0) return 0;
  return l.unit_price_minor === null ? null : l.unit_price_minor * missing;
}

/** A store's part once finished; null while the store is pending. */
export function storePart(s: FinishedStore): StorePart | null {
  if (s.status === "pending") return null;
  const refunds = s.lines.map(lineRefundMinor);
  const spent = s.status === "collected" ? s.collected_amount_minor ?? 0 : 0;
  return {
    store_id: s.store_id,
    status: s.status,
    estimated_minor: s.estimated_amount_minor,
    spent_minor: spent,
    difference_minor: spent - s.estimated_amount_minor,
    refund_minor: sumMinor(refunds.flatMap((r) => r ?? [])),
    lines_refunded: refunds.filter((r) => r !== 0).length,
    lines_unpriced: refunds.filter((r) => r === null).length,
  };
}

/** Whether the basket is complete: every store of the order has its part. */
export function basketComplete(
  storeIds: readonly string[],
  parts: Readonly<Record<string, StorePart>>,
): boolean {
  return storeIds.every((id) => parts[id] !== undefined);
}

/** The float against the stores' parts (the order's every store, once complete). */
export function reconcile(
  purchaseMinor: number,
  parts: readonly StorePart[],
): Reconciliation {
  const spent = sumMinor(parts.map((p) => p.spent_minor));
  const estimated = sumMinor(parts.map((p) => p.estimated_minor));
  return {
    purchase_minor: purchaseMinor,
    estimated_minor: estimated,
    spent_minor: spent,
    difference_minor: spent - estimated,
    float_returned_minor: purchaseMinor - spent,
    refund_minor: sumMinor(parts.map((p) => p.refund_minor)),
    charge_minor: spent,
  };
}

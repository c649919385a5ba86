/**
 * The terms of one rate-card version (courier 2.4; CONTRACT field names). Amounts are integer
 * minor units of the card's currency, percentages basis points, weights grams: the API converts
 * decimals at the edge, so pricing never touches floating point.
 */

/**
 * The largest amount a rate card may state, in minor units (10,000,000,000.00 of a 2-decimal
 * currency). Far past any courier fee, and low enough that no price worked from the card's own
 * amounts leaves the exact integer range: with every amount at this bound and every percentage
 * at its own (service level +1000 %, surcharge 1000 %, tax 100 %) a price stays under 3 * 10^14
 * minor units, below the 15 digits a price may have (pricing.ts PRICE_MINOR_MAX). Only a
 * request's weight or declared value can then carry a price past it, and pricing refuses that
 * request (PriceOutOfRange).
 */
export const RATE_CARD_AMOUNT_MINOR_MAX = 1_000_000_000_000;

export interface Corridor {
  /** Two-letter country codes. */
  readonly from: string;
  readonly to: string;
  readonly base_charge: number;
  /** Per kg above the included weight. */
  readonly per_kg: number;
  readonly label: string;
}

export interface RateCardTerms {
  readonly currency: string;
  readonly base_charge: number;
  readonly per_kg: number;
  readonly included_grams: number;
  /** cm³ per kg, e.g. 5000. */
  readonly volumetric_divisor: number;
  readonly minimum_charge: number;
  readonly collection_fee: number;
  readonly delivery_fee: number;
  readonly discount_bp: number;
  readonly surcharge_bp: number;
  readonly tax_bp: number;
  readonly tax_inclusive: boolean;
  readonly tax_label: string;
  readonly corridors: readonly Corridor[];
  /** Of the declared value, when the sender asks for liability cover. */
  readonly liability_cover_bp: number;
  readonly redelivery_fee: number;
  readonly return_fee: number;
  readonly claim_window_days: number;
  readonly customs_admin_fee: number;
  readonly errand_fee: number;
  readonly failed_collection_fee: number;
  readonly cold_chain_fee: number;
  readonly waiting_fee: number;
}

export interface RateCardVersion {
  readonly card_id: string;
  readonly version: number;
  readonly name: string;
  /** Epoch ms from which this version is in force. */
  readonly effective_from: number;
  readonly published_at: number;
  readonly terms: RateCardTerms;
}

/**
 * spec: courier 4.2, 2.3: the instant a version is in force from: its `effective_from`, but never
 * before it was published. A back-dated version would otherwise claim a past in which shipments
 * were priced on the version before it.
 */
export function inForceFrom(v: RateCardVersion): number {
  return Math.max(v.effective_from, v.published_at);
}

/**
 * The version in force at `at`: of those in force from an instant not after it, the one in force
 * from the latest; on a tie, the later version (published later, it supersedes).
 */
export function versionInForce(
  versions: readonly RateCardVersion[],
  at: number,
): RateCardVersion | null {
  let best: RateCardVersion | null = null;
  for (const v of versions) {
    const from = inForceFrom(v);
    if (
      from <= at &&
      (!best || from > inForceFrom(best) ||
        (from === inForceFrom(best) && v.version > best.version))
    ) best = v;
  }
  return best;
}

/**
 * Whether two versions' terms are the same, term by term and corridor by corridor (in order): a
 * version whose terms and name are its latest's changes nothing (courier 4.2).
 */
export function sameTerms(a: RateCardTerms, b: RateCardTerms): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof RateCardTerms>;
  for (const key of keys) {
    if (key !== "corridors" && a[key] !== b[key]) return false;
  }
  return a.corridors.length === b.corridors.length &&
    a.corridors.every((c, i) => {
      const d = b.corridors[i];
      return d !== undefined && c.from === d.from && c.to === d.to &&
        c.base_charge === d.base_charge && c.per_kg === d.per_kg && c.label === d.label;
    });
}

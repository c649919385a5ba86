/**
 * Pricing of one service option from one rate-card version (courier 2.2, 2.4). Pure and exact:
 * money in integer minor units, weights in grams, percentages in basis points; every money
 * percentage or division goes through `mulDiv`/`percentOf`, the one place money is rounded.
 */

import {
  AMOUNT_MINOR_MAX,
  AmountOutOfRange,
  formatMinor,
  mulDiv,
  percentOf,
  sumMinor,
} from "../../domain/money.ts";
import { ceilDiv, type Decimal, decimalOf } from "../../domain/decimal.ts";
import type { Corridor, RateCardTerms } from "./rate_card.ts";

export interface ParcelInput {
  weight_kg: number;
  length_cm: number;
  width_cm: number;
  height_cm: number;
}

export interface PricingInput {
  /** At least one. */
  parcels: readonly ParcelInput[];
  /** Two-letter country codes. */
  from_country: string;
  to_country: string;
  /** Minor units of the card currency. */
  declared_value_minor: number | null;
  liability_cover: boolean;
}

/** A service level's price adjustment, basis points of transport (may be negative). */
export interface ServicePricing {
  code: string;
  name: string;
  adjustment_bp: number;
}

export interface PriceLine {
  code: string;
  label: string;
  amount_minor: number;
  /** Tax line only: true when the tax is already within the price. */
  included?: boolean;
  /** Tax line only. */
  tax_minor?: number;
}

export interface PricedOption {
  code: string;
  name: string;
  chargeable_grams: number;
  lines: PriceLine[];
  tax_minor: number;
  total_minor: number;
  currency: string;
  /** `FROM-TO` of the corridor whose price applied, else null. */
  corridor: string | null;
  cross_border: boolean;
}

const GRAMS_PER_KG = 1000;
const BP_WHOLE = 10_000;

/**
 * The largest amount a price line, its tax or its total may be, in minor units (money.ts
 * AMOUNT_MINOR_MAX). A larger price is refused, not rounded.
 */
export const PRICE_MINOR_MAX = AMOUNT_MINOR_MAX;

/** The request field a price that cannot be worked out exactly is refused on. */
export type PricedField = "parcels" | "declared_value";

/**
 * A price, or the chargeable weight it is worked from, past what integers hold exactly
 * (Number.MAX_SAFE_INTEGER grams or minor units). The request is refused on `field`; money is
 * never rounded to fit (spec: courier 2.2 rule 1, the lines add up to the total exactly).
 */
export class PriceOutOfRange extends RangeError {
  override readonly name = "PriceOutOfRange";
  constructor(readonly field: PricedField, message: string) {
    super(message);
  }
}

/** Sum over parcels of max(actual, volumetric) grams (courier 2.4: included kg, volumetric divisor). */
export function chargeableGrams(
  parcels: readonly ParcelInput[],
  volumetricDivisor: number,
): number {
  if (parcels.length === 0) throw new RangeError("a price needs at least one parcel");
  requireWhole("volumetric divisor", volumetricDivisor, 1);
  let total = 0;
  for (const p of parcels) {
    total += parcelChargeableGrams(p, volumetricDivisor);
    if (!Number.isSafeInteger(total)) throw tooHeavy();
  }
  return total;
}

/** Kilograms as sent (`2.35`) to grams, exactly from the decimal text, half up past 3 decimals. */
export function gramsFromKg(kg: number): number {
  requirePositive("parcel weight_kg", kg);
  return requireWhole("parcel grams", toSafe(scaledHalfUp(decimalOf(kg), 3)), 0);
}

/** cm³ per kg divisor: ceil(L*W*H*1000 / divisor) grams, exact even for decimal centimetres. */
export function volumetricGrams(parcel: ParcelInput, volumetricDivisor: number): number {
  const dims = [parcel.length_cm, parcel.width_cm, parcel.height_cm].map((cm, i) => {
    requirePositive(["parcel length_cm", "parcel width_cm", "parcel height_cm"][i] ?? "", cm);
    return decimalOf(cm);
  });
  const units = dims.reduce((p, d) => p * d.units, 1n) * BigInt(GRAMS_PER_KG);
  const exponent = dims.reduce((e, d) => e + d.exponent, 0);
  const divisor = BigInt(volumetricDivisor);
  const grams = exponent >= 0
    ? ceilDiv(units * 10n ** BigInt(exponent), divisor)
    : ceilDiv(units, divisor * 10n ** BigInt(-exponent));
  return requireWhole("volumetric grams", toSafe(grams), 0);
}

/** spec: courier 2.2: the codes of an option's lines, in their order (transport or corridor first). */
export const PRICE_LINE_CODES = [
  "transport",
  "collection",
  "delivery",
  "service_level",
  "liability_cover",
  "discount",
  "surcharge",
  "minimum_top_up",
  "tax",
] as const;

/** spec: courier 2.2: lines in the documented order; rule 1: they always add up to the total. */
export function priceOption(
  terms: RateCardTerms,
  service: ServicePricing,
  input: PricingInput,
): PricedOption {
  requireTerms(terms);
  requireService(service);
  const grams = chargeableGrams(input.parcels, terms.volumetric_divisor);
  const corridor = findCorridor(terms.corridors, input.from_country, input.to_country);
  // Only the weight and the declared value are unbounded by publication (rate_cards.ts bounds
  // each amount of a card), so a price too large to hold exactly is refused on one of them.
  const transport = exact("parcels", terms, () => transportLine(terms, corridor, grams));
  const cover = exact("declared_value", terms, () => liabilityCover(terms, input));
  const larger = cover > transport.amount_minor ? "declared_value" : "parcels";
  const { lines, tax } = exact(larger, terms, () => {
    let lines: PriceLine[] = [transport];
    lines = withLine(lines, "collection", "Collection", terms.collection_fee);
    lines = withLine(lines, "delivery", "Delivery", terms.delivery_fee);
    lines = withLine(
      lines,
      "service_level",
      `Service level: ${service.name}`,
      percentOf(transport.amount_minor, service.adjustment_bp),
    );
    lines = withLine(lines, "liability_cover", "Liability cover", cover);
    lines = withLine(lines, "discount", "Negotiated discount", discount(lines, terms.discount_bp));
    lines = withLine(lines, "surcharge", "Surcharge", percentOf(sumOf(lines), terms.surcharge_bp));
    lines = withLine(lines, "minimum_top_up", "Minimum charge top-up", topUp(lines, terms));
    const tax = taxLine(terms, sumOf(lines));
    lines = [...lines, tax];
    // The total, checked here so that it too is refused on `larger`, with every amount shown.
    requireStatable([sumOf(lines), tax.tax_minor ?? 0, ...lines.map((l) => l.amount_minor)]);
    return { lines, tax };
  });
  return {
    code: service.code,
    name: service.name,
    chargeable_grams: grams,
    lines,
    tax_minor: tax.tax_minor ?? 0,
    total_minor: requireWhole("total", sumOf(lines), 0),
    currency: terms.currency,
    corridor: corridor ? `${corridor.from}-${corridor.to}` : null,
    cross_border: input.from_country !== input.to_country,
  };
}

/**
 * spec: courier 2.2 (possible_later_charges) and 2.6 rule 3: what a cross-border shipment may be
 * billed later, each as its own entry with evidence; null for a domestic route.
 */
export function possibleLaterCharges(
  terms: RateCardTerms,
  from: string,
  to: string,
): string | null {
  if (from === to) return null;
  const parts = [
    "duties and taxes assessed at the border, paid on your behalf and recoverable from you " +
    "(passed on at cost, not a charge for our service)",
    ...customsAdminClause(terms),
    "exceptional customs charges (such as inspection, storage or document requests) when " +
    "customs require them",
  ];
  return `Cross-border ${from} to ${to}: the following may be billed later, each as a separate ` +
    `itemised charge with evidence: ${parts.join("; ")}.`;
}

/** spec: courier 2.6 rule 3: billed per crossing cleared; nothing to announce when the card has none. */
function customsAdminClause(terms: RateCardTerms): string[] {
  if (terms.customs_admin_fee <= 0) return [];
  const fee = formatMinor(terms.customs_admin_fee, terms.currency);
  return [`a customs administration fee of ${fee} ${terms.currency} per crossing cleared`];
}

function parcelChargeableGrams(parcel: ParcelInput, volumetricDivisor: number): number {
  return Math.max(gramsFromKg(parcel.weight_kg), volumetricGrams(parcel, volumetricDivisor));
}

/** spec: courier 2.4: a corridor applies to its exact direction only. */
function findCorridor(corridors: readonly Corridor[], from: string, to: string): Corridor | null {
  return corridors.find((c) => c.from === from && c.to === to) ?? null;
}

function transportLine(terms: RateCardTerms, corridor: Corridor | null, grams: number): PriceLine {
  const base = corridor?.base_charge ?? terms.base_charge;
  const perKg = corridor?.per_kg ?? terms.per_kg;
  const extra = mulDiv(perKg, Math.max(0, grams - terms.included_grams), GRAMS_PER_KG);
  const amount = sumMinor([base, extra]);
  // spec: courier 2.2: the first line is transport, or the corridor's price under its label;
  // `transport` is its one named code either way.
  return { code: "transport", label: corridor?.label ?? "Transport", amount_minor: amount };
}

function liabilityCover(terms: RateCardTerms, input: PricingInput): number {
  if (!input.liability_cover || !input.declared_value_minor) return 0;
  return percentOf(input.declared_value_minor, terms.liability_cover_bp);
}

function discount(lines: readonly PriceLine[], discountBp: number): number {
  return -percentOf(sumOf(lines), discountBp);
}

function topUp(lines: readonly PriceLine[], terms: RateCardTerms): number {
  return Math.max(0, terms.minimum_charge - sumOf(lines));
}

/** Exclusive tax is added on top; inclusive tax is already within `net`, so its line adds 0. */
function taxLine(terms: RateCardTerms, net: number): PriceLine {
  if (terms.tax_inclusive) {
    const tax = net - mulDiv(net, BP_WHOLE, BP_WHOLE + terms.tax_bp);
    return { code: "tax", label: terms.tax_label, amount_minor: 0, included: true, tax_minor: tax };
  }
  const tax = percentOf(net, terms.tax_bp);
  return {
    code: "tax",
    label: terms.tax_label,
    amount_minor: tax,
    included: false,
    tax_minor: tax,
  };
}

/** spec: courier 2.2 line order: optional lines appear only when non-zero. */
function withLine(lines: PriceLine[], code: string, label: string, amount: number): PriceLine[] {
  return amount === 0 ? lines : [...lines, { code, label, amount_minor: amount }];
}

/** spec: courier 2.2 rule 1: an amount shown must be the amount charged (PRICE_MINOR_MAX). */
function requireStatable(amounts: readonly number[]): void {
  for (const amount of amounts) {
    if (Math.abs(amount) > PRICE_MINOR_MAX) {
      throw new AmountOutOfRange(`amount past what a decimal states exactly: ${amount}`);
    }
  }
}

function sumOf(lines: readonly PriceLine[]): number {
  return sumMinor(lines.map((line) => line.amount_minor));
}

/** Runs one step of a price; an amount past the exact range refuses the request on `field`. */
function exact<T>(field: PricedField, terms: RateCardTerms, step: () => T): T {
  try {
    return step();
  } catch (e) {
    if (!(e instanceof AmountOutOfRange)) throw e;
    const what = field === "parcels" ? "these parcels" : "this declared value";
    const most = formatMinor(PRICE_MINOR_MAX, terms.currency);
    throw new PriceOutOfRange(
      field,
      `the price of ${what} is too large to state exactly (over ${most} ${terms.currency})`,
    );
  }
}

/** The sum of the parcels' chargeable grams, or one parcel's, past the exact range. */
function tooHeavy(): PriceOutOfRange {
  return new PriceOutOfRange(
    "parcels",
    "the chargeable weight of these parcels is too large to price exactly " +
      `(at most ${formatGrams(Number.MAX_SAFE_INTEGER)} kg)`,
  );
}

/** Grams as exact kilograms text (`1234567` -> `1234.567`). */
function formatGrams(grams: number): string {
  const text = String(grams).padStart(4, "0");
  return `${text.slice(0, -3)}.${text.slice(-3)}`.replace(/\.?0+$/, "");
}

function requireTerms(terms: RateCardTerms): void {
  const amounts: Record<string, number> = {
    base_charge: terms.base_charge,
    per_kg: terms.per_kg,
    included_grams: terms.included_grams,
    minimum_charge: terms.minimum_charge,
    collection_fee: terms.collection_fee,
    delivery_fee: terms.delivery_fee,
    discount_bp: terms.discount_bp,
    surcharge_bp: terms.surcharge_bp,
    tax_bp: terms.tax_bp,
    liability_cover_bp: terms.liability_cover_bp,
  };
  for (const [name, value] of Object.entries(amounts)) requireWhole(name, value, 0);
  for (const c of terms.corridors) {
    requireWhole("corridor base_charge", c.base_charge, 0);
    requireWhole("corridor per_kg", c.per_kg, 0);
  }
}

/** A cut of more than 100 % of transport would make a price negative before any discount. */
function requireService(service: ServicePricing): void {
  requireWhole("service adjustment_bp", service.adjustment_bp, -BP_WHOLE);
}

function requireWhole(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a safe integer of at least ${min}: ${value}`);
  }
  return value;
}

function requirePositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive finite number: ${value}`);
  }
}

/** value * 10^scale rounded half up (values here are non-negative). */
function scaledHalfUp(d: Decimal, scale: number): bigint {
  const e = d.exponent + scale;
  if (e >= 0) return d.units * 10n ** BigInt(e);
  const divisor = 10n ** BigInt(-e);
  const q = d.units / divisor;
  return (d.units % divisor) * 2n >= divisor ? q + 1n : q;
}

function toSafe(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw tooHeavy();
  return Number(n);
}

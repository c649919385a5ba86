/**
 * Money is exact: integer minor units (bigint-free: amounts stay far below 2^53 minor units).
 * Amounts arrive as decimals (numbers or strings) and leave as decimal strings.
 */

/** ISO 4217 minor-unit exponents that differ from 2. */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

export function exponentOf(currency: string): number {
  return EXPONENTS[currency] ?? 2;
}

export type ParsedAmount =
  | { readonly ok: true; readonly minor: number }
  /** `too_large`: a well-formed amount past AMOUNT_MINOR_MAX (a caller may name its own bound). */
  | { readonly ok: false; readonly message: string; readonly too_large?: true };

/**
 * The largest amount, in minor units, the service takes, keeps or answers: 15 digits, the most a
 * JSON number states exactly (spec: courier 2.2, 9.4: amounts are decimals; with 16 digits
 * 89999999999979.99 is read back as 89999999999979.98). Prices, billing amounts and every
 * balance they add up to stay within it; past it a request is refused, never rounded.
 */
export const AMOUNT_MINOR_MAX = 999_999_999_999_999;

/** Parses `12.5`, `"12.50"` or `-3` into minor units without floating-point arithmetic. */
export function toMinor(amount: number | string, currency: string): ParsedAmount {
  const text = typeof amount === "number" ? numberText(amount) : amount.trim();
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return { ok: false, message: `not a decimal amount: ${text}` };
  const exp = exponentOf(currency);
  const fraction = (m[3] ?? "").replace(/0+$/, "");
  if (fraction.length > exp) {
    return { ok: false, message: `${currency} has ${exp} decimal places: ${text}` };
  }
  const digits = `${m[2]}${fraction.padEnd(exp, "0")}`;
  const minor = Number(digits);
  if (!Number.isSafeInteger(minor) || minor > AMOUNT_MINOR_MAX) {
    return {
      ok: false,
      message: `amount too large: ${text} (at most ${formatMinor(AMOUNT_MINOR_MAX, currency)})`,
      too_large: true,
    };
  }
  return { ok: true, minor: m[1] && minor !== 0 ? -minor : minor };
}

/** `1250` BWP -> `"12.50"`. */
export function formatMinor(minor: number, currency: string): string {
  const exp = exponentOf(currency);
  const sign = minor < 0 ? "-" : "";
  const digits = String(Math.abs(minor)).padStart(exp + 1, "0");
  if (exp === 0) return sign + digits;
  return `${sign}${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
}

/**
 * A JSON number as the decimal text it was sent as: its shortest round-trip text, a small one's
 * exponent form written out exactly (5e-7 -> `"0.0000005"`) so it is refused on its decimals, not
 * misread. A number of 10^21 or more, past any amount, keeps its exponent form (`"1e+300"`) and
 * is refused as it is. spec: courier 7: a refusal names the value sent, never another (toFixed
 * rounded to 20 places and the trailing zeros cut off read 1e300 as `1e+3`, 1e-21 as `0.`).
 */
export function numberText(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e-(\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, rest = "", shift] = m;
  return `${sign}0.${"0".repeat(Number(shift) - 1)}${lead}${rest}`;
}

/** Decimal for the API: `1250` BWP -> 12.5 (exact decimal text, read as a JSON number). */
export function decimal(minor: number, currency: string): number {
  return Number(formatMinor(minor, currency));
}

/**
 * An amount that cannot be held exactly: past Number.MAX_SAFE_INTEGER minor units. Distinct from
 * a plain RangeError (a caller's bug), so pricing can refuse the price instead of failing.
 */
export class AmountOutOfRange extends RangeError {
  override readonly name = "AmountOutOfRange";
}

/**
 * Adds amounts of minor units exactly: every partial sum is checked, since past 2^53 a float sum
 * may round and come back into range wrong. A sum past the exact range throws AmountOutOfRange.
 */
export function sumMinor(amounts: readonly number[]): number {
  let sum = 0;
  for (const amount of amounts) {
    sum += amount;
    if (!Number.isSafeInteger(sum)) throw new AmountOutOfRange(`amount too large: ${sum}`);
  }
  return sum;
}

/**
 * The one place money is rounded: `a * b / c` computed exactly (BigInt), rounded half away from
 * zero to an integer. Percentages are basis points (7.5 % = 750), weights grams.
 */
export function mulDiv(a: number, b: number, c: number): number {
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || !Number.isSafeInteger(c) || c === 0) {
    throw new RangeError(`mulDiv needs safe integers and c != 0: ${a} * ${b} / ${c}`);
  }
  const n = BigInt(a) * BigInt(b);
  const d = BigInt(c);
  const negative = (n < 0n) !== (d < 0n);
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (ad * 2n);
  const result = Number(negative ? -q : q);
  if (!Number.isSafeInteger(result)) {
    throw new AmountOutOfRange(`amount too large: ${a} * ${b} / ${c}`);
  }
  return result;
}

/** Basis points of an amount: `percentOf(1000, 750)` is 7.5 % of 10.00 = 75 (0.75). */
export function percentOf(amountMinor: number, basisPoints: number): number {
  return mulDiv(amountMinor, basisPoints, 10_000);
}

/**
 * A percentage as sent (`7.5`, `"7.5"`, `"7.500"`) to basis points, exactly; null when it has
 * over 2 significant decimals. Trailing zeros say nothing (9.4: amounts are decimals), as toMinor.
 */
export function toBasisPoints(pct: number | string): number | null {
  const text = typeof pct === "number" ? numberText(pct) : pct.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const fraction = (m[2] ?? "").replace(/0+$/, "");
  if (fraction.length > 2) return null;
  return Number(m[1]) * 100 + Number(fraction.padEnd(2, "0"));
}

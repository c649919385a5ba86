/**
 * Temperatures in exact decimal arithmetic, rounded once (courier 2.10): a reading's value in
 * tenths of a degree Celsius, and whether it lies within a range, judged on its exact value.
 */
import type { TemperatureUnit } from "./types.ts";

/** The exact decimal a JS number prints as: `units / 10^scale`. */
function decimalOf(value: number): { units: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!m) throw new RangeError(`not a finite number: ${value}`);
  const frac = m[3] ?? "";
  let units = BigInt(`${m[2]}${frac}`);
  let scale = frac.length - Number(m[4] ?? "0");
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: m[1] ? -units : units, scale };
}

/** num / den rounded half away from zero; den > 0. */
function roundDiv(num: bigint, den: bigint): bigint {
  const negative = num < 0n;
  const a = negative ? -num : num;
  const q = (a % den) * 2n >= den ? a / den + 1n : a / den;
  return negative ? -q : q;
}

/**
 * A temperature in tenths of a degree Celsius, exactly: F is converted as (F - 32) * 5 / 9 on the
 * decimal the number prints as, with one rounding at the end (46.4 °F is 80, never 79.99...).
 */
export function celsiusTenths(value: number, unit: TemperatureUnit): number {
  const { num, den } = exactTenths(value, unit);
  return Number(roundDiv(num, den));
}

/** A temperature in tenths of a degree Celsius as the exact fraction num / den (den > 0). */
function exactTenths(value: number, unit: TemperatureUnit): { num: bigint; den: bigint } {
  const { units, scale } = decimalOf(value);
  const pow = 10n ** BigInt(scale);
  return unit === "C"
    ? { num: units * 10n, den: pow }
    : { num: (units - 32n * pow) * 50n, den: 9n * pow };
}

/**
 * Whether a reading lies within [min, max] (tenths of °C, either may be null), judged on its
 * exact value: 8.04 °C is above 8 °C though it shows as 8.0 °C.
 */
export function withinRange(
  value: number,
  unit: TemperatureUnit,
  min: number | null,
  max: number | null,
): boolean {
  const { num, den } = exactTenths(value, unit);
  return (min === null || num >= BigInt(min) * den) && (max === null || num <= BigInt(max) * den);
}

/** Whether a number is a whole number of tenths (a range bound must be). */
export function isWholeTenths(value: number): boolean {
  return Number.isFinite(value) && decimalOf(value).scale <= 1;
}

export function formatTenths(tenths: number): string {
  return `${(tenths / 10).toFixed(1)} °C`;
}

/**
 * Exact arithmetic on the decimals a request sends (centimetres, kilograms): a JSON number read as
 * the decimal text it was sent as, never as the binary fraction it became (10.3 x 50 x 10 is
 * 5,150 cm³ exactly, not 5,150.000000000001).
 */

/** value = units * 10^exponent, exactly. */
export interface Decimal {
  readonly units: bigint;
  readonly exponent: number;
}

/** A non-negative finite number's shortest decimal text (what the client sent), read exactly. */
export function decimalOf(n: number): Decimal {
  const text = String(n);
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(text);
  if (!m) throw new RangeError(`not a non-negative decimal: ${text}`);
  const fraction = m[2] ?? "";
  return {
    units: BigInt(`${m[1]}${fraction}`),
    exponent: Number(m[3] ?? "0") - fraction.length,
  };
}

/** The product of decimals, exactly. */
export function productOf(values: readonly Decimal[]): Decimal {
  return values.reduce(
    (p, d) => ({ units: p.units * d.units, exponent: p.exponent + d.exponent }),
    { units: 1n, exponent: 0 },
  );
}

/** The sum of decimals, exactly (0 for none). */
export function sumOf(values: readonly Decimal[]): Decimal {
  if (values.length === 0) return { units: 0n, exponent: 0 };
  const exponent = Math.min(...values.map((d) => d.exponent));
  const units = values.reduce((s, d) => s + d.units * 10n ** BigInt(d.exponent - exponent), 0n);
  return { units, exponent };
}

/** ceil(value * multiplier / divisor) for a non-negative value and positive whole operands. */
export function ceilScaled(value: Decimal, multiplier: bigint, divisor: bigint): bigint {
  const n = value.units * multiplier;
  const d = divisor;
  return value.exponent >= 0
    ? ceilDiv(n * 10n ** BigInt(value.exponent), d)
    : ceilDiv(n, d * 10n ** BigInt(-value.exponent));
}

/** Whether a <= b, exactly. */
export function atMost(a: Decimal, b: Decimal): boolean {
  const e = Math.min(a.exponent, b.exponent);
  return a.units * 10n ** BigInt(a.exponent - e) <= b.units * 10n ** BigInt(b.exponent - e);
}

export function ceilDiv(n: bigint, d: bigint): bigint {
  return (n + d - 1n) / d;
}

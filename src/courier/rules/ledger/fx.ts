/** FX (courier 2.6 rule 4): exact rates, one rounding through mulDiv, never one-to-one. */
import { exponentOf, mulDiv } from "../../../domain/money.ts";
import { FX_RATE_PLACES_MAX } from "./limits.ts";

export type ParsedRate =
  | { readonly ok: true; readonly units: number; readonly text: string }
  | { readonly ok: false; readonly message: string };

const RATE = /^(\d+)(?:\.(\d+))?$/;

const RATE_SCALE = 10 ** FX_RATE_PLACES_MAX;

/**
 * `"0.07340000"` -> units of 10^-8 (7,340,000) and its canonical text `"0.0734"`. The bounds are
 * on the rate's value: leading and trailing zeros say nothing (courier 9.4, as money.ts toMinor),
 * so a feed's `"0.0752500000"` is the exact rate 0.07525, and a ninth significant place is refused.
 */
export function parseRate(rate: string): ParsedRate {
  const m = RATE.exec(rate.trim());
  const whole = (m?.[1] ?? "").replace(/^0+(?=\d)/, "");
  const fraction = (m?.[2] ?? "").replace(/0+$/, "");
  if (!m || whole.length > 7 || fraction.length > FX_RATE_PLACES_MAX) {
    return {
      ok: false,
      message:
        `an FX rate is a decimal with up to 7 integer digits and ${FX_RATE_PLACES_MAX} places: ${rate}`,
    };
  }
  const units = Number(whole) * RATE_SCALE + Number(fraction.padEnd(FX_RATE_PLACES_MAX, "0"));
  if (units <= 0) return { ok: false, message: `an FX rate must be above zero: ${rate}` };
  return { ok: true, units, text: fraction ? `${whole}.${fraction}` : whole };
}

/**
 * `amountMinor` of `from` in `to` at `rateUnits` (1 `from` = rate `to`), rounded half away from
 * zero once. 10^(8 + e_from - e_to) is at least 10^5: minor-unit exponents are 0 to 3.
 */
export function convertMinor(amountMinor: number, from: string, to: string, rateUnits: number) {
  const places = FX_RATE_PLACES_MAX + exponentOf(from) - exponentOf(to);
  return mulDiv(amountMinor, rateUnits, 10 ** places);
}

/**
 * Field schemas shared by the routes: currency and country codes are checked against the real
 * ISO lists, so a well-shaped invention (`XYZ`, `ZZ`) is a 422 naming the field like any other.
 */
import { z } from "@hono/zod-openapi";
import { isCountryCode, isCurrencyCode } from "../domain/iso_codes.ts";
import { SETTLEMENT_MODES } from "../domain/settlement.ts";

/** An active ISO 4217 currency code, upper case. */
export const Currency = z.string()
  .regex(/^[A-Z]{3}$/, { message: "three-letter ISO 4217 code, upper case", abort: true })
  .refine(isCurrencyCode, {
    error: (issue) => `not an ISO 4217 currency code: ${String(issue.input)}`,
  })
  .openapi({ description: "Active ISO 4217 currency code, upper case", example: "BWP" });

/** An officially assigned ISO 3166-1 alpha-2 country code, upper case. */
export const Country = z.string()
  .regex(/^[A-Z]{2}$/, { message: "two-letter country code, upper case", abort: true })
  .refine(isCountryCode, {
    error: (issue) => `not an ISO 3166-1 alpha-2 country code: ${String(issue.input)}`,
  })
  .openapi({ description: "ISO 3166-1 alpha-2 country code, upper case", example: "BW" });

/** RFC 5321 4.5.3.1 (with the RFC 3696 erratum): an e-mail address is at most 254 characters. */
export const EMAIL_CHARS_MAX = 254;

/**
 * An e-mail address that signs someone in (a portal user, a client user), kept lower case. Bounded:
 * it is looked up as a store key (sign-in, invites), which a longer text cannot be, so one longer
 * than any address is a 422 naming the field, never an internal error.
 */
export const Email = z.email().max(EMAIL_CHARS_MAX).transform((e) => e.toLowerCase());

/**
 * A waybill as typed or scanned: read upper-case, since every waybill is upper-case letters and
 * digits (src/domain/waybill.ts) and people type them in lower case; search already does so.
 */
export const Waybill = z.string().trim().min(1).max(64).transform((w) => w.toUpperCase())
  .openapi({ description: "Waybill (case does not matter)", example: "WB2222222222223" });

/**
 * A whole number in a path or query (`limit`, `offset`, a version) from `min` to `max`, read as
 * Number() reads it; anything else is refused naming what came, not as zod's coerced NaN
 * ("expected number, received number").
 */
export function wholeNumber(min: number, max: number) {
  return z.string().transform((text, ctx) => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be a whole number from ${min} to ${max}: ${text.slice(0, 40)}`,
      });
      return z.NEVER;
    }
    return n;
  }).openapi({ type: "integer", minimum: min, maximum: max });
}

// ---- Answers (documentation only: what handlers answer is not checked against these).

/**
 * An amount in an answer: a JSON number in the currency its object names (money.ts decimal()),
 * with at most that currency's minor-unit decimals, never a string.
 */
export const Money = z.number().openapi({
  description: "Decimal amount in the currency its object names, with at most that currency's " +
    "minor-unit decimals (88.92 BWP, 1500 JPY, 1.125 KWD)",
  example: 88.92,
});

/** An instant in an answer: ISO 8601 in UTC with milliseconds (src/http/iso.ts). */
export const UtcInstant = z.iso.datetime().openapi({ example: "2026-11-23T09:30:00.000Z" });

/** A calendar day in an answer: `YYYY-MM-DD`. */
export const CalendarDay = z.iso.date().openapi({ example: "2026-11-24" });

/** How a client's account settles (courier 4.2). */
export const Settlement = z.enum(SETTLEMENT_MODES);

/**
 * A named schema (`.openapi("Name")`) or null. Its `.nullable()` would make the named component
 * itself nullable in the document (zod-to-openapi 9.1), so every other use of it too; a union
 * keeps the component as it is and shows `anyOf: [$ref, null]` here.
 */
export function orNull<S extends z.ZodType>(schema: S) {
  return z.union([schema, z.null()]);
}

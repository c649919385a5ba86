/**
 * Field schemas shared by the routes: currency and country codes are checked against the real
 * ISO lists, so a well-shaped invention (`XYZ`, `ZZ`) is a 422 naming the field like any other.
 */
import { z } from "@hono/zod-openapi";
import { isCountryCode, isCurrencyCode } from "../domain/iso_codes.ts";

/**
 * A cross-field check runs even when a field has the wrong type, so one 422 names every bad
 * field (zod skips it by default once a field fails, and `{}` named only `type`). Its function
 * therefore reads the fields as sent: it compares and tests for undefined, nothing more.
 */
export const EVEN_WITH_BAD_FIELDS = {
  when: (p: { value: unknown }) =>
    p.value !== null && typeof p.value === "object" && !Array.isArray(p.value),
};

/**
 * A list of at most `max` items. zod's own `.max()` on an array marks its issue as aborting, so
 * a list one too long silenced every cross-field check of the body (EVEN_WITH_BAD_FIELDS); this
 * one is counted beside them. The bound is still in the OpenAPI document (maxItems).
 */
export function boundedArray<T extends z.ZodType>(item: T, max: number) {
  return z.array(item).superRefine((list, ctx) => {
    if (list.length <= max) return;
    ctx.addIssue({ code: "custom", message: `at most ${max} items: ${list.length} sent` });
  }).openapi({ maxItems: max });
}

/**
 * spec: business 2.1: `test` and `dry_run`, refused on live and ignored in the sandbox; false in
 * the examples (the Postman collection's), where true would be refused on live.
 */
export const TEST_FLAGS = {
  test: z.boolean().optional().openapi({
    description: "Refused on live; ignored in the sandbox",
    example: false,
  }),
  dry_run: z.boolean().optional().openapi({
    description: "Refused on live; ignored in the sandbox",
    example: false,
  }),
};

/** A public HTTPS address an example shows for a webhook or an endpoint (Postman, OpenAPI). */
export const EXAMPLE_URL = "https://hooks.example.com/events";

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

/** A phone number in international format (E.164: `+`, the country code, up to 15 digits). */
export const Phone = z.string().regex(
  /^\+[1-9]\d{6,14}$/,
  "international format, e.g. +26771234567",
)
  .openapi({ description: "International format (E.164)", example: "+26771234567" });

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
 * digits (src/courier/rules/waybill.ts) and people type them in lower case; search already does so.
 */
export const Waybill = z.string().trim().min(1).max(64).transform((w) => w.toUpperCase())
  .openapi({ description: "Waybill (case does not matter)", example: "WB2222222222223" });

/**
 * Text holding no control character (Unicode Cc: U+0000 to U+001F, U+007F to U+009F). Spelled as
 * ranges without the `u` flag: the OpenAPI document shows the source as its `pattern`, which must
 * be a valid ECMA-262 regex as written (a `\p{Cc}` class would need the flag, shown as `/u`).
 */
// deno-lint-ignore no-control-regex -- the control characters are what it refuses
const ONE_LINE = /^[^\x00-\x1f\x7f-\x9f]*$/;
/** As ONE_LINE, but for tab, line feed and carriage return: text that may run over lines. */
// deno-lint-ignore no-control-regex -- as ONE_LINE
const LINES = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$/;

/**
 * Text a caller writes and the service keeps, trimmed, of at most `max` characters (add `.min(1)`
 * where it is required). A control character is refused, naming the field: it is no text a person
 * writes, and JSON escapes it in six bytes (`\u0001`) where a text's bounds count characters, so a
 * body made of such text (a completion listing its adjustments, courier 2.7) outgrows the bound
 * it was made for (src/platform/rules/delivery_schedule.ts). With `lines`, tab, line feed and carriage return
 * pass (two bytes each when escaped): a reason may run over lines, a reference or a path may not.
 * (An unpaired surrogate, no UTF-8 at all, is refused for every field: route.ts storableText.)
 */
export function PlainText(max: number, options: { readonly lines?: boolean } = {}) {
  return z.string().trim().max(max).regex(options.lines ? LINES : ONE_LINE, {
    message: options.lines
      ? "must not hold control characters other than tab, line feed and carriage return"
      : "must not hold control characters (tab and line breaks included)",
  });
}

/**
 * A query's number is written in plain decimal digits: Number() alone also reads "0x18", "1e3",
 * "0b1" and padded text, so a parameter would mean what its writer did not write.
 */
const WHOLE_DIGITS = /^-?\d+$/;
const DECIMAL_DIGITS = /^-?\d+(\.\d+)?$/;

/**
 * A whole number in a path or query (`limit`, `offset`, a version) from `min` to `max`; anything
 * else is refused naming what came, not as zod's coerced NaN ("expected number, received number").
 */
export function wholeNumber(min: number, max: number) {
  return numberParam(min, max, "a whole number", (text) => {
    const n = decimalOf(text);
    return n !== null && WHOLE_DIGITS.test(text) ? n : null;
  }).openapi({ type: "integer", minimum: min, maximum: max });
}

/** A decimal number of a query (plain digits, an optional fraction) from `min` to `max`. */
export function decimalNumber(min: number, max: number) {
  return numberParam(min, max, "a number", decimalOf)
    .openapi({ type: "number", minimum: min, maximum: max });
}

/** The text read by `read` (null: not such a number), refused outside `min` to `max`. */
function numberParam(min: number, max: number, what: string, read: (t: string) => number | null) {
  return z.string().transform((text, ctx) => {
    const n = read(text);
    if (n === null || n < min || n > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be ${what} from ${min} to ${max}: ${text.slice(0, 40)}`,
      });
      return z.NEVER;
    }
    return n;
  });
}

/** The number `text` writes in plain decimal digits; null for anything else ("0x18", "1e3"). */
export function decimalOf(text: string): number | null {
  if (!DECIMAL_DIGITS.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
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

/** An instant in an answer: ISO 8601 in UTC with milliseconds (src/domain/iso.ts). */
export const UtcInstant = z.iso.datetime().openapi({ example: "2026-11-23T09:30:00.000Z" });

/** A calendar day in an answer: `YYYY-MM-DD`. */
export const CalendarDay = z.iso.date().openapi({ example: "2026-11-24" });

/**
 * A named schema (`.openapi("Name")`) or null. Its `.nullable()` would make the named component
 * itself nullable in the document (zod-to-openapi 9.1), so every other use of it too; a union
 * keeps the component as it is and shows `anyOf: [$ref, null]` here.
 */
export function orNull<S extends z.ZodType>(schema: S) {
  return z.union([schema, z.null()]);
}

/**
 * Field schemas shared by the routes: currency and country codes are checked against the real
 * ISO lists, so a well-shaped invention (`XYZ`, `ZZ`) is a 422 naming the field like any other.
 */
import { z } from "@hono/zod-openapi";
import { isCountryCode, isCurrencyCode } from "../domain/iso_codes.ts";

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

/**
 * A waybill as typed or scanned: read upper-case, since every waybill is upper-case letters and
 * digits (src/domain/waybill.ts) and people type them in lower case; search already does so.
 */
export const Waybill = z.string().trim().min(1).max(64).transform((w) => w.toUpperCase())
  .openapi({ description: "Waybill (case does not matter)", example: "WB2222222222223" });

/**
 * Request schemas of the platform's records that more than one document's routes show: the
 * operator changes a business's settings (CONTRACT "Operator API"), and the Business API's audit
 * trail shows those changes as sent (Business API 5.6). One schema, one OpenAPI component.
 */
import {
  BILLING_TYPES,
  BULKY_SERVICES,
  VEHICLE_UPGRADE_POLICIES,
} from "../../actors/platform/business/mod.ts";
import { distinct } from "../domain/objects.ts";
import { z } from "../http/route.ts";
import { orNull } from "../http/schemas.ts";
import { ALL_SCOPES } from "./rules/scopes.ts";

/** A scope a key may hold (courier 5; Business API 5.5). */
export const Scope = z.enum(ALL_SCOPES);

/** A credit limit's bound, in the business's currency's major units. */
const CREDIT_LIMIT_MAX = 1_000_000_000;

/** The operator's changes to a business; the audit trail shows them as sent (settings_changed). */
export const PatchBusiness = z.object({
  courier_platform_enabled: z.boolean(),
  shopping_fulfilment_enabled: z.boolean(),
  api_key_scopes: z.array(Scope).max(ALL_SCOPES.length).transform(distinct),
  vehicle_upgrade_policy: z.enum(VEHICLE_UPGRADE_POLICIES),
  bulky_services_authorised: z.array(z.enum(BULKY_SERVICES)).max(BULKY_SERVICES.length)
    .transform(distinct),
  // CONTRACT operator API: the Enterprise plan's limits are 6,000 a minute and 1,000,000 a day
  // until set; null clears a business's own limit, so that the plan's applies again.
  rate_limit_per_minute: orNull(z.number().int().positive().max(1_000_000)).openapi({
    description: "Enterprise plan: this business's limit a minute; null: back to the plan's",
    example: 6_000,
  }),
  rate_limit_per_day: orNull(z.number().int().positive().max(100_000_000)).openapi({
    description: "Enterprise plan: this business's limit a day; null: back to the plan's",
    example: 1_000_000,
  }),
  billing_type: z.enum(BILLING_TYPES),
  custody_scanning: z.boolean().openapi({
    description: "Business API 2.2 custody scanning add-on: trips booked get a scan_code and " +
      "an A6 label; the driver scans it at collection",
  }),
  credit_limit: orNull(z.union([
    z.number().nonnegative().max(CREDIT_LIMIT_MAX),
    // As a wallet credit's amount may be: a decimal as text ("100.00").
    z.string().trim().regex(/^\d{1,10}(\.\d{1,9})?$/, "a decimal, such as 100.00")
      .refine((v) => Number(v) <= CREDIT_LIMIT_MAX, `at most ${CREDIT_LIMIT_MAX}`),
  ])).openapi({
    description: "How far below zero a credit account's wallet may go, in the business's " +
      "currency, a JSON number or decimal text (as a wallet credit's amount); null: none",
  }),
}).partial().openapi("OperatorPatchBusiness", {
  // What a new business is usually given: rate limits of its own are an Enterprise plan's only.
  example: { courier_platform_enabled: true, shopping_fulfilment_enabled: true },
});

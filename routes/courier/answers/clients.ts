/** Courier 2.5: a client and its settlement settings, and a new client's credentials. */
import { z } from "../../../src/http/route.ts";
import { Currency, Money, UtcInstant } from "../../../src/http/schemas.ts";
import { Settlement as SettlementMode } from "./schemas.ts";

/** spec: courier 2.5: a client and its settlement settings (clientView). */
export const CourierClientAnswer = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  email: z.string().openapi({ description: "The first client user's e-mail" }),
  settlement_mode: SettlementMode,
  credit_limit: Money.openapi({ description: "In the billing currency; 0 unless on credit" }),
  credit_limit_minor: z.number().int().openapi({
    description: "credit_limit in minor units of the billing currency",
  }),
  payment_days: z.number().int().nullable(),
  billing_currency: Currency,
  external_system: z.string().nullable(),
  unique_external_reference: z.boolean(),
  rate_card_id: z.string().nullable().openapi({
    description: "The card its prices come from; null: none yet, and prices answer " +
      "`no_rate_card` until the courier assigns one",
  }),
  webhook_url: z.string().nullable(),
  created_at: UtcInstant,
}).openapi("CourierClient");

/** A new client's credentials, shown this once (stored hashed). */
export const ClientCreatedAnswer = z.object({
  id: z.string(),
  api_key: z.string().openapi({
    description: "The client's API key (`X-Client-API-Key`), shown only in this answer",
  }),
  user: z.object({
    email: z.string(),
    password: z.string().openapi({
      description: "A temporary password, shown only in this answer; changed at first sign-in",
    }),
  }),
}).openapi("CourierClientCreated");

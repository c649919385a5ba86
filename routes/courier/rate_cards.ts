/**
 * Courier 2.4 and 4.2 (rate-card rows): publish version 1, publish later versions whose omitted
 * terms carry over, list every version with the one in force marked. A published version can
 * never be edited or deleted: PUT, PATCH and DELETE answer 409 `rate_card_version_immutable`.
 * Amounts arrive as decimals and are held in minor units, percentages in basis points, weights
 * in grams; they are shown back as decimals.
 */
import type { Context } from "hono";
import { asRateCard, type RateCard, rateCardActor } from "../../actors/courier/rate_card.ts";
import {
  publishRateCard,
  publishVersion,
  rateCardsOf,
} from "../../src/courier/flows/rate_cards.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Country, Currency, wholeNumber } from "../../src/http/schemas.ts";
import { read } from "../../src/http/ask.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import {
  cardView,
  RateCardAnswer,
  RateCardVersionAnswer,
  versionView,
} from "./answers/rate_cards.ts";

const tag = "Rate cards";
const security = "business" as const;

/** Corridors of one version; each is a line the pricing engine scans. */
export const CORRIDORS_MAX = 50;

const Amount = z.union([z.number(), z.string()]).openapi({
  description: "Decimal amount in the card's currency, at most its minor-unit decimals; " +
    "at most 10^12 minor units (10,000,000,000.00 of a 2-decimal currency)",
  example: "12.50",
});
const Percent = z.union([z.number(), z.string()]).openapi({
  description: "Percentage, at most 2 decimals",
  example: 14,
});
const Name = z.string().trim().min(1).max(200);
const EffectiveFrom = z.iso.datetime({
  offset: true,
  error: "an ISO 8601 date-time with its offset (Z or +02:00)",
}).openapi({
  description: "ISO 8601 with an offset; default now",
  example: "2026-12-01T00:00:00+02:00",
});

const CorridorInput = z.object({
  from: Country,
  to: Country,
  base_charge: Amount,
  per_kg: Amount,
  label: z.string().trim().min(1).max(80),
});

const Terms = z.object({
  base_charge: Amount,
  per_kg: Amount,
  included_kg: z.union([z.number(), z.string()]).openapi({
    description: "Kilograms included in the base charge, at most 3 decimals (grams)",
    example: "2.5",
  }),
  volumetric_divisor: z.number().int().min(1).max(1_000_000).openapi({
    description: "cm³ per kg; default 5000",
  }),
  minimum_charge: Amount,
  collection_fee: Amount,
  delivery_fee: Amount,
  discount_pct: Percent,
  surcharge_pct: Percent,
  tax_pct: Percent,
  tax_inclusive: z.boolean(),
  tax_label: z.string().trim().min(1).max(40).openapi({ description: "default VAT" }),
  // spec: courier 2.4: a corridor is `{from, to, ...}`: it has a direction. Written here because
  // a courier who took it for both ways would see the way back priced on the card (CONTRACT).
  corridors: z.array(CorridorInput).max(CORRIDORS_MAX).openapi({
    description: "Corridor prices. A corridor prices shipments from `from` to `to` only: the " +
      "reverse direction needs a corridor of its own, else the card's base_charge and per_kg " +
      "price it. A corridor's base_charge and per_kg replace the card's; the card's included_kg " +
      "and every other term still apply. `from` equal to `to` prices that domestic route. At " +
      "most one corridor per direction. A later version sending corridors replaces the whole " +
      "list (`[]` removes every corridor)",
  }),
  liability_cover_pct: Percent.openapi({ description: "Of the declared value" }),
  redelivery_fee: Amount,
  return_fee: Amount,
  claim_window_days: z.number().int().min(0).max(3_650).openapi({ description: "default 30" }),
  customs_admin_fee: Amount,
  errand_fee: Amount,
  failed_collection_fee: Amount,
  cold_chain_fee: Amount,
  waiting_fee: Amount,
});

const PublishCard = Terms.partial().extend({
  name: Name,
  currency: Currency,
  effective_from: EffectiveFrom.optional(),
  base_charge: Amount,
  per_kg: Amount,
}).openapi("PublishRateCard", {
  description: "Version 1. Omitted fees are 0, volumetric_divisor 5000, tax_label VAT",
});

const PublishVersion = Terms.partial().extend({
  name: Name.optional(),
  currency: Currency.optional().openapi({ description: "Fixed by version 1; may not change" }),
  effective_from: EffectiveFrom.optional(),
}).openapi("PublishRateCardVersion", {
  description: "The next version; omitted terms carry over from the latest version",
});

const CardParam = z.object({ card: z.string().min(1).max(64) });
const VersionParam = CardParam.extend({ version: wholeNumber(1, 1_000_000) });

async function cardOf(c: Context<AppEnv>, card: string): Promise<RateCard> {
  const { tenant } = businessCall(c);
  return asRateCard(await read(c, rateCardActor, tenant, card, { kind: "get" }));
}

function immutable(card: string, version?: number): ApiError {
  const which = version === undefined ? `rate card ${card}` : `version ${version} of ${card}`;
  return new ApiError(
    "rate_card_version_immutable",
    `a published rate-card version can never be edited or deleted; publish a new version with POST /business/courier/rate-cards/{card}/versions: ${which}`,
  );
}

export function rateCardRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/rate-cards",
    summary:
      "Publish a rate card's version 1 with the terms of courier 2.4; it is in force from `in_force_from`, the later of its effective_from and its published_at",
    tag,
    security,
    middleware: [business({ scope: "billing:administer" }), courierPlatform],
    body: PublishCard,
    status: 201,
    replay: "The same Idempotency-Key with the same body",
    idempotencyKey: "Publishes once per key: the same key and body again answers the version " +
      "the first request published (200, replayed); with another body it answers 409",
    response: RateCardVersionAnswer,
    refusals: {
      validation_failed: "a bad field; a bad Idempotency-Key header",
      catalogue_full: "the courier keeps as many rate cards as it may, or its catalogue is full",
      reference_conflict: "the Idempotency-Key published a rate card from another body",
    },
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    // spec: courier 4.2: a retry after a lost answer gets the card the first one published.
    const key = idempotencyHeader(c);
    const r = await publishRateCard(env, { courierId: tenant, by }, body, key);
    return ok(c, versionView(r.version, r.replayed), r.replayed ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/business/courier/rate-cards/{card}/versions",
    summary: "Publish the next version from effective_from; omitted terms carry over. " +
      "effective_from must not be before the latest version's (422 effective_from_before_latest; from the same instant the later version supersedes); " +
      "a version is in force from `in_force_from`, the later of its effective_from and its published_at",
    tag,
    security,
    middleware: [business({ scope: "billing:administer" }), courierPlatform],
    params: CardParam,
    body: PublishVersion,
    status: 201,
    replay: "The same Idempotency-Key with the same body, even after later versions",
    idempotencyKey: "Publishes once per key on the card: the same key and body again answers " +
      "the version the first request published (200, replayed); with another body it answers 409",
    response: RateCardVersionAnswer,
    refusals: {
      validation_failed: "nothing to publish: every term and the name are the latest " +
        "version's; a bad field; a bad Idempotency-Key header",
      reference_conflict: "the Idempotency-Key published a version from another body",
      rate_card_currency_fixed: "a currency other than version 1's: publish a new rate card",
      effective_from_before_latest: "effective_from is before the latest version's",
      rate_card_full: "the card holds no more versions, or this one does not fit beside them; " +
        "publish a new rate card",
    },
  }, async (c, { params, body }) => {
    const { env, tenant, by } = businessCall(c);
    const key = idempotencyHeader(c);
    const r = await publishVersion(env, { courierId: tenant, by }, params.card, body, key);
    return ok(c, versionView(r.version, r.replayed), r.replayed ? 200 : 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/rate-cards",
    summary: "Every rate card with every version; `in_force` marks the version in force now",
    tag,
    security,
    middleware: [business(), courierPlatform],
    response: z.array(RateCardAnswer),
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    const now = env.clock.now();
    const cards = (await rateCardsOf(env, tenant)).map((card) => cardView(card, now));
    return ok(c, cards);
  });

  define(api, {
    method: "get",
    path: "/business/courier/rate-cards/{card}",
    summary: "One rate card with every version; `in_force` marks the version in force now",
    tag,
    security,
    middleware: [business(), courierPlatform],
    params: CardParam,
    response: RateCardAnswer,
  }, async (c, { params }) => {
    const card = await cardOf(c, params.card);
    return ok(c, cardView(card, c.get("env").clock.now()));
  });

  for (const method of ["put", "patch", "delete"] as const) {
    define(api, {
      method,
      path: "/business/courier/rate-cards/{card}",
      summary: "Refused with 409 rate_card_version_immutable: publish a new version instead",
      alwaysRefused: { status: 409, code: "rate_card_version_immutable" },
      tag,
      security,
      middleware: [business(), courierPlatform],
      params: CardParam,
    }, async (c, { params }) => {
      await cardOf(c, params.card); // 404 for an unknown card or another courier's
      throw immutable(params.card);
    });

    define(api, {
      method,
      path: "/business/courier/rate-cards/{card}/versions/{version}",
      summary: "Refused with 409 rate_card_version_immutable: publish a new version instead",
      alwaysRefused: { status: 409, code: "rate_card_version_immutable" },
      tag,
      security,
      middleware: [business(), courierPlatform],
      params: VersionParam,
    }, async (c, { params }) => {
      const card = await cardOf(c, params.card);
      if (!card.versions.some((v) => v.version === params.version)) {
        throw new ApiError("not_found", `rate card version not found: ${params.version}`);
      }
      throw immutable(params.card, params.version);
    });
  }
}

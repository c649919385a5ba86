/**
 * Courier 2.4 and 4.2 (rate-card rows): publish version 1, publish later versions whose omitted
 * terms carry over, list every version with the one in force marked. A published version can
 * never be edited or deleted: PUT, PATCH and DELETE answer 409 `rate_card_version_immutable`.
 * Amounts arrive as decimals and are held in minor units, percentages in basis points, weights
 * in grams; they are shown back as decimals.
 */
import { isDeepStrictEqual } from "node:util";
import type { Context } from "hono";
import { courierCatalogueActor } from "../../actors/courier/courier_catalogue.ts";
import { asRateCard, type RateCard, rateCardActor } from "../../actors/courier/rate_card.ts";
import { decimal, formatMinor, toBasisPoints, toMinor } from "../../src/domain/money.ts";
import {
  type Corridor,
  inForceFrom,
  RATE_CARD_AMOUNT_MINOR_MAX,
  type RateCardTerms,
  type RateCardVersion,
  versionInForce,
} from "../../src/courier/rules/rate_card.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import {
  ApiError,
  type FieldError,
  fromRejection,
  validationFailed,
} from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Country, Currency, Money, UtcInstant, wholeNumber } from "../../src/http/schemas.ts";
import { newId } from "../../src/runtime/ids.ts";
import { ask, read } from "../../src/http/ask.ts";

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

type TermsInput = z.infer<typeof Terms>;
type TermsBody = { [K in keyof TermsInput]?: TermsInput[K] | undefined };
type MutableTerms = { -readonly [K in keyof RateCardTerms]?: RateCardTerms[K] };

const AMOUNT_TERMS = [
  "base_charge",
  "per_kg",
  "minimum_charge",
  "collection_fee",
  "delivery_fee",
  "redelivery_fee",
  "return_fee",
  "customs_admin_fee",
  "errand_fee",
  "failed_collection_fee",
  "cold_chain_fee",
  "waiting_fee",
] as const;

/** Each percentage term, where it is stored, and its largest value. */
const PERCENT_TERMS = [
  { field: "discount_pct", key: "discount_bp", max: 100 },
  { field: "surcharge_pct", key: "surcharge_bp", max: 1_000 },
  { field: "tax_pct", key: "tax_bp", max: 100 },
  { field: "liability_cover_pct", key: "liability_cover_bp", max: 100 },
] as const;

/** Version 1's terms where the request says nothing (the currency comes from the request). */
const DEFAULT_TERMS: Omit<RateCardTerms, "currency"> = {
  base_charge: 0,
  per_kg: 0,
  included_grams: 0,
  volumetric_divisor: 5_000,
  minimum_charge: 0,
  collection_fee: 0,
  delivery_fee: 0,
  discount_bp: 0,
  surcharge_bp: 0,
  tax_bp: 0,
  tax_inclusive: false,
  tax_label: "VAT",
  corridors: [],
  liability_cover_bp: 0,
  redelivery_fee: 0,
  return_fee: 0,
  claim_window_days: 30,
  customs_admin_fee: 0,
  errand_fee: 0,
  failed_collection_fee: 0,
  cold_chain_fee: 0,
  waiting_fee: 0,
};

/** Converts the terms present in a request; every bad field is named at once (422). */
function termsFrom(body: TermsBody, currency: string): Partial<RateCardTerms> {
  const errors: FieldError[] = [];
  const out: MutableTerms = {};
  for (const field of AMOUNT_TERMS) {
    const value = body[field];
    if (value === undefined) continue;
    const minor = amountOf(value, currency, field, errors);
    if (minor !== null) out[field] = minor;
  }
  for (const { field, key, max } of PERCENT_TERMS) {
    const value = body[field];
    if (value === undefined) continue;
    const bp = toBasisPoints(value);
    if (bp === null || bp > max * 100) {
      errors.push({ path: field, message: `a percentage from 0 to ${max}, 2 decimals: ${value}` });
    } else out[key] = bp;
  }
  if (body.included_kg !== undefined) {
    const grams = gramsOf(body.included_kg);
    if (grams === null) {
      errors.push({
        path: "included_kg",
        message: `kilograms from 0, at most 3 decimals: ${body.included_kg}`,
      });
    } else out.included_grams = grams;
  }
  if (body.corridors !== undefined) out.corridors = corridorsOf(body.corridors, currency, errors);
  if (body.volumetric_divisor !== undefined) out.volumetric_divisor = body.volumetric_divisor;
  if (body.tax_inclusive !== undefined) out.tax_inclusive = body.tax_inclusive;
  if (body.tax_label !== undefined) out.tax_label = body.tax_label;
  if (body.claim_window_days !== undefined) out.claim_window_days = body.claim_window_days;
  if (errors.length > 0) throw validationFailed(errors);
  return out;
}

function amountOf(
  value: number | string,
  currency: string,
  path: string,
  errors: FieldError[],
): number | null {
  const minor = toMinor(value, currency);
  if (!minor.ok && !minor.too_large) {
    errors.push({ path, message: minor.message });
    return null;
  }
  if (minor.ok && minor.minor < 0) {
    errors.push({ path, message: `must not be negative: ${value}` });
    return null;
  }
  // Bounded so that every price on the card can be worked out exactly (courier 2.2 rule 1).
  if (!minor.ok || minor.minor > RATE_CARD_AMOUNT_MINOR_MAX) {
    const most = formatMinor(RATE_CARD_AMOUNT_MINOR_MAX, currency);
    errors.push({ path, message: `at most ${most} ${currency}: ${value}` });
    return null;
  }
  return minor.minor;
}

/** `2.5` or `"2.500"` kg to 2500 g, from the decimal text (no floating-point multiply). */
function gramsOf(kg: number | string): number | null {
  const text = typeof kg === "number" ? String(kg) : kg.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const fraction = (m[2] ?? "").replace(/0+$/, "");
  if (fraction.length > 3) return null;
  const grams = Number(`${m[1]}${fraction.padEnd(3, "0")}`);
  return Number.isSafeInteger(grams) ? grams : null;
}

function corridorsOf(
  input: TermsInput["corridors"],
  currency: string,
  errors: FieldError[],
): Corridor[] {
  const seen = new Set<string>();
  return input.flatMap((c, i) => {
    const pair = `${c.from}>${c.to}`;
    if (seen.has(pair)) {
      errors.push({
        path: `corridors.${i}`,
        message: `corridor listed twice: ${c.from} to ${c.to}`,
      });
    }
    seen.add(pair);
    const base = amountOf(c.base_charge, currency, `corridors.${i}.base_charge`, errors);
    const perKg = amountOf(c.per_kg, currency, `corridors.${i}.per_kg`, errors);
    if (base === null || perKg === null) return [];
    return [{ from: c.from, to: c.to, base_charge: base, per_kg: perKg, label: c.label }];
  });
}

function effectiveFrom(iso: string | undefined, now: number): number {
  if (iso === undefined) return now;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) {
    throw validationFailed([{ path: "effective_from", message: `not a valid date-time: ${iso}` }]);
  }
  return at;
}

/** The terms as the API shows them: decimals and percentages (courier 2.4 field names). */
export function termsView(t: RateCardTerms) {
  const money = (minor: number) => decimal(minor, t.currency);
  return {
    currency: t.currency,
    base_charge: money(t.base_charge),
    per_kg: money(t.per_kg),
    included_kg: t.included_grams / 1_000,
    volumetric_divisor: t.volumetric_divisor,
    minimum_charge: money(t.minimum_charge),
    collection_fee: money(t.collection_fee),
    delivery_fee: money(t.delivery_fee),
    discount_pct: t.discount_bp / 100,
    surcharge_pct: t.surcharge_bp / 100,
    tax_pct: t.tax_bp / 100,
    tax_inclusive: t.tax_inclusive,
    tax_label: t.tax_label,
    corridors: t.corridors.map((c) => ({
      from: c.from,
      to: c.to,
      base_charge: money(c.base_charge),
      per_kg: money(c.per_kg),
      label: c.label,
    })),
    liability_cover_pct: t.liability_cover_bp / 100,
    redelivery_fee: money(t.redelivery_fee),
    return_fee: money(t.return_fee),
    claim_window_days: t.claim_window_days,
    customs_admin_fee: money(t.customs_admin_fee),
    errand_fee: money(t.errand_fee),
    failed_collection_fee: money(t.failed_collection_fee),
    cold_chain_fee: money(t.cold_chain_fee),
    waiting_fee: money(t.waiting_fee),
  };
}

function versionView(v: RateCardVersion) {
  return {
    id: v.card_id,
    version: v.version,
    name: v.name,
    effective_from: new Date(v.effective_from).toISOString(),
    published_at: new Date(v.published_at).toISOString(),
    // spec: courier 4.2: when it is (or was) in force from: never before it was published.
    in_force_from: new Date(inForceFrom(v)).toISOString(),
    ...termsView(v.terms),
  };
}

function cardView(card: RateCard, now: number) {
  const inForce = versionInForce(card.versions, now);
  return {
    id: card.id,
    name: card.name,
    currency: card.currency,
    created_at: new Date(card.created_at).toISOString(),
    version_in_force: inForce?.version ?? null,
    versions: card.versions.map((v) => ({
      ...versionView(v),
      in_force: v.version === inForce?.version,
    })),
  };
}

// ---- Answers (documentation: tests/http/response_schemas_test.ts holds answers to them).

const Pct = z.number().openapi({ description: "Percentage, up to 2 decimals", example: 14 });

/** termsView: the terms of courier 2.4 as the API shows them. */
const TermsAnswer = {
  currency: Currency,
  base_charge: Money,
  per_kg: Money,
  included_kg: z.number(),
  volumetric_divisor: z.number().int().openapi({
    description: "cm³ per kg of volumetric weight",
  }),
  minimum_charge: Money,
  collection_fee: Money,
  delivery_fee: Money,
  discount_pct: Pct,
  surcharge_pct: Pct,
  tax_pct: Pct,
  tax_inclusive: z.boolean(),
  tax_label: z.string(),
  corridors: z.array(
    z.object({
      from: Country,
      to: Country,
      base_charge: Money,
      per_kg: Money,
      label: z.string(),
    }).openapi("Corridor"),
  ),
  liability_cover_pct: Pct,
  redelivery_fee: Money,
  return_fee: Money,
  claim_window_days: z.number().int(),
  customs_admin_fee: Money,
  errand_fee: Money,
  failed_collection_fee: Money,
  cold_chain_fee: Money,
  waiting_fee: Money,
};

const VersionFields = {
  id: z.string().openapi({ description: "The rate card's id" }),
  version: z.number().int().min(1),
  name: z.string(),
  effective_from: UtcInstant,
  published_at: UtcInstant,
  in_force_from: UtcInstant.openapi({
    description: "The later of effective_from and published_at: a version is never in force " +
      "before it was published",
  }),
  ...TermsAnswer,
};

/** A version as published (versionView). */
export const RateCardVersionAnswer = z.object(VersionFields).openapi("RateCardVersion");

/** A card with every version (cardView). */
export const RateCardAnswer = z.object({
  id: z.string(),
  name: z.string(),
  currency: Currency,
  created_at: UtcInstant,
  version_in_force: z.number().int().nullable().openapi({
    description: "null while no version is in force yet (all effective later)",
  }),
  versions: z.array(
    z.object({ ...VersionFields, in_force: z.boolean() }).openapi("RateCardVersionListed"),
  ),
}).openapi("RateCard");

function latestOf(card: RateCard): RateCardVersion {
  const v = card.versions.at(-1);
  if (!v) throw new Error(`rate card ${card.id} has no version`);
  return v;
}

async function cardOf(c: Context<AppEnv>, card: string): Promise<RateCard> {
  const courier = businessPrincipalOf(c).business.id;
  return asRateCard(await read(c, rateCardActor, courier, card, { kind: "get" }));
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
    response: RateCardVersionAnswer,
    refusals: {
      catalogue_full: "the courier keeps as many rate cards as it may, or its catalogue is full",
    },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    const env = c.get("env");
    const terms: RateCardTerms = {
      ...DEFAULT_TERMS,
      ...termsFrom(body, body.currency),
      currency: body.currency,
    };
    const from = effectiveFrom(body.effective_from, env.clock.now());
    const id = newId("rc");
    const by = principalName(p);
    // Listed first, so a card can never exist unlisted; the list skips an id not yet published.
    await ask(c, courierCatalogueActor, courier, courier, { kind: "register_rate_card", id, by });
    const card = asRateCard(
      await ask(c, rateCardActor, courier, id, {
        kind: "publish_first",
        id,
        business_id: courier,
        name: body.name,
        effective_from: from,
        terms,
        by,
      }),
    );
    return ok(c, versionView(latestOf(card)), 201);
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
    response: RateCardVersionAnswer,
    refusals: {
      validation_failed: "nothing to publish: every term and the name are the latest version's",
      rate_card_currency_fixed: "a currency other than version 1's: publish a new rate card",
      effective_from_before_latest: "effective_from is before the latest version's",
      rate_card_full: "the card holds no more versions, or this one does not fit beside them; " +
        "publish a new rate card",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const current = await cardOf(c, params.card);
    const terms = termsFrom(body, current.currency);
    const changes = body.currency === undefined ? terms : { ...terms, currency: body.currency };
    // A version the same as the latest would only bury the one a client was priced on.
    const latest = latestOf(current);
    if (
      (body.name ?? latest.name) === latest.name &&
      isDeepStrictEqual({ ...latest.terms, ...changes }, latest.terms)
    ) {
      throw validationFailed([{
        path: "body",
        message:
          `nothing to publish: every term and the name are those of version ${latest.version}`,
      }]);
    }
    const card = asRateCard(
      await ask(c, rateCardActor, p.business.id, params.card, {
        kind: "publish_version",
        effective_from: effectiveFrom(body.effective_from, env.clock.now()),
        ...(body.name === undefined ? {} : { name: body.name }),
        changes,
        by: principalName(p),
      }),
    );
    return ok(c, versionView(latestOf(card)), 201);
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
    const courier = businessPrincipalOf(c).business.id;
    const env = c.get("env");
    const catalogue = await read(c, courierCatalogueActor, courier, courier, { kind: "get" });
    const answers = await Promise.all(
      catalogue.rate_card_ids.map((id) =>
        env.runtime.read(rateCardActor, courier, id, { kind: "get" })
      ),
    );
    const now = env.clock.now();
    const cards = answers.flatMap((r) => {
      if (!r.ok) {
        if (r.code === "not_found") return []; // registered, publication not finished
        throw fromRejection(r);
      }
      return r.reply ? [cardView(r.reply, now)] : [];
    });
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

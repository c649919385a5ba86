/** Courier 2.4, 4.2 (rate-card rows): a rate card and its versions as the API shows them. */
import type { RateCard } from "../../../actors/courier/rate_card.ts";
import { decimal } from "../../../src/domain/money.ts";
import {
  inForceFrom,
  type RateCardTerms,
  type RateCardVersion,
  versionInForce,
} from "../../../src/courier/rules/rate_card.ts";
import { z } from "../../../src/http/route.ts";
import { Country, Currency, Money, UtcInstant } from "../../../src/http/schemas.ts";

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

/** A version as published; `replayed` only on a publication's answer. */
export function versionView(v: RateCardVersion, replayed?: boolean) {
  return {
    id: v.card_id,
    version: v.version,
    name: v.name,
    effective_from: new Date(v.effective_from).toISOString(),
    published_at: new Date(v.published_at).toISOString(),
    // spec: courier 4.2: when it is (or was) in force from: never before it was published.
    in_force_from: new Date(inForceFrom(v)).toISOString(),
    ...termsView(v.terms),
    ...(replayed === undefined ? {} : { replayed }),
  };
}

export function cardView(card: RateCard, now: number) {
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
export const RateCardVersionAnswer = z.object({
  ...VersionFields,
  replayed: z.boolean().openapi({
    description: "true: the same publication again under its Idempotency-Key, answered with " +
      "the version the first one published (200)",
  }),
}).openapi("RateCardVersion");

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

/**
 * Courier 2.4, 4.2 (rate-card rows): publishing a rate card's version 1 and its later versions.
 * Amounts arrive as decimals and are held in minor units, percentages in basis points, weights
 * in grams; every bad field is named at once. A published version is never changed.
 */
import { courierCatalogueActor } from "../../../actors/courier/courier_catalogue.ts";
import {
  asRateCard,
  type PublicationRequest,
  type RateCard,
  rateCardActor,
} from "../../../actors/courier/rate_card.ts";
import { formatMinor, toBasisPoints, toMinor } from "../../domain/money.ts";
import { canonicalJson, derivedId, sha256Hex } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import { type AskOptions, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { AskResult } from "../../runtime/plan.ts";
import { newId } from "../../runtime/ids.ts";
import {
  type Corridor,
  RATE_CARD_AMOUNT_MINOR_MAX,
  type RateCardTerms,
  type RateCardVersion,
} from "../rules/rate_card.ts";
import { type FieldProblem, refuseFields } from "./booking/refusals.ts";

/** The courier's office acting, and who in it acts (audit). */
export interface Office {
  readonly courierId: string;
  readonly by: string;
}

/** A corridor as the API takes it (courier 2.4): amounts as decimals. */
export interface CorridorInput {
  readonly from: string;
  readonly to: string;
  readonly base_charge: number | string;
  readonly per_kg: number | string;
  readonly label: string;
}

/** The terms of courier 2.4 as the API takes them, each present only when sent. */
export interface TermsInput {
  readonly base_charge?: number | string | undefined;
  readonly per_kg?: number | string | undefined;
  readonly included_kg?: number | string | undefined;
  readonly volumetric_divisor?: number | undefined;
  readonly minimum_charge?: number | string | undefined;
  readonly collection_fee?: number | string | undefined;
  readonly delivery_fee?: number | string | undefined;
  readonly discount_pct?: number | string | undefined;
  readonly surcharge_pct?: number | string | undefined;
  readonly tax_pct?: number | string | undefined;
  readonly tax_inclusive?: boolean | undefined;
  readonly tax_label?: string | undefined;
  readonly corridors?: readonly CorridorInput[] | undefined;
  readonly liability_cover_pct?: number | string | undefined;
  readonly redelivery_fee?: number | string | undefined;
  readonly return_fee?: number | string | undefined;
  readonly claim_window_days?: number | undefined;
  readonly customs_admin_fee?: number | string | undefined;
  readonly errand_fee?: number | string | undefined;
  readonly failed_collection_fee?: number | string | undefined;
  readonly cold_chain_fee?: number | string | undefined;
  readonly waiting_fee?: number | string | undefined;
}

/** Version 1 of a new card: its name, currency and terms, in force from `effective_from`. */
export interface NewRateCard extends TermsInput {
  readonly name: string;
  readonly currency: string;
  readonly effective_from?: string | undefined;
}

/** The next version of a card: what changes from the latest, from `effective_from`. */
export interface NextVersion extends TermsInput {
  readonly name?: string | undefined;
  readonly currency?: string | undefined;
  readonly effective_from?: string | undefined;
}

/** A version published, or the one a request sent again under its key published (replayed). */
export interface Published {
  readonly card: RateCard;
  readonly version: RateCardVersion;
  readonly replayed: boolean;
}

/**
 * Publishes a new card's version 1; omitted fees are 0 (DEFAULT_TERMS). With `key` (the request's
 * Idempotency-Key) once per key: the card's id is derived from the courier and the key, so a
 * retry, even after a crash between listing the card and publishing it, names the same card.
 */
export async function publishRateCard(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  office: Office,
  input: NewRateCard,
  key: string | null = null,
): Promise<Published> {
  const courier = office.courierId;
  const terms: RateCardTerms = {
    ...DEFAULT_TERMS,
    ...termsFrom(input, input.currency),
    currency: input.currency,
  };
  const from = effectiveFrom(input.effective_from, deps.clock.now());
  const id = key === null ? newId("rc") : derivedId("rc", `rate card\n${courier}\n${key}`);
  const request = publicationRequest(key, input);
  // Listed first, so a card can never exist unlisted; the list skips an id not yet published.
  orRefuse(
    await deps.runtime.ask(courierCatalogueActor, courier, courier, {
      kind: "register_rate_card",
      id,
      by: office.by,
    }, { requestId: deps.requestId }),
  );
  const r = await deps.runtime.ask(rateCardActor, courier, id, {
    kind: "publish_first",
    id,
    business_id: courier,
    name: input.name,
    effective_from: from,
    terms,
    by: office.by,
    ...(request === undefined ? {} : { request }),
  }, keptUnder(`publish:${key}`, request, deps.requestId));
  return published(r, request);
}

/**
 * Publishes the next version of card `cardId`; omitted terms carry over from the latest. With
 * `key` (the request's Idempotency-Key) once per key on the card.
 */
export async function publishVersion(
  deps: Pick<Deps, "runtime" | "clock">,
  office: Office,
  cardId: string,
  input: NextVersion,
  key: string | null = null,
): Promise<Published> {
  const { runtime } = deps;
  const current = asRateCard(
    orRefuse(await runtime.read(rateCardActor, office.courierId, cardId, { kind: "get" })),
  );
  const terms = termsFrom(input, current.currency);
  // The card refuses a version that changes nothing (validation_failed), in its own turn.
  const changes = input.currency === undefined ? terms : { ...terms, currency: input.currency };
  const request = publicationRequest(key, input);
  const r = await runtime.ask(rateCardActor, office.courierId, cardId, {
    kind: "publish_version",
    effective_from: effectiveFrom(input.effective_from, deps.clock.now()),
    ...(input.name === undefined ? {} : { name: input.name }),
    changes,
    by: office.by,
    ...(request === undefined ? {} : { request }),
  }, keptUnder(`version:${key}`, request));
  return published(r, request);
}

/** The key and what was sent under it (the body, field order aside), if a key was sent. */
function publicationRequest(
  key: string | null,
  input: NewRateCard | NextVersion,
): PublicationRequest | undefined {
  return key === null ? undefined : { key, digest: sha256Hex(canonicalJson(input)) };
}

/** A keyed publication's reply is kept for good: a retry however late publishes nothing. */
function keptUnder(
  name: string,
  request: PublicationRequest | undefined,
  requestId?: string,
): AskOptions {
  return request === undefined
    ? { requestId }
    : { idempotencyKey: name, permanent: true, requestId };
}

/**
 * spec: courier 4.2: the version a publication made, or for the same request sent again under
 * its key the version the first one made (replayed); another request under the key is refused
 * 409 reference_conflict, never answered as the first.
 */
function published(
  r: AskResult<RateCard | undefined>,
  request: PublicationRequest | undefined,
): Published {
  const card = asRateCard(orRefuse(r));
  const kept = request === undefined ? undefined : card.requests?.[request.key];
  if (request === undefined || kept === undefined) {
    return { card, version: latestVersion(card), replayed: false };
  }
  if (kept.digest !== request.digest) {
    refuse(
      "reference_conflict",
      `Idempotency-Key already published version ${kept.version} of rate card ${card.id} ` +
        `from another request: ${request.key}`,
    );
  }
  const version = card.versions.find((v) => v.version === kept.version);
  if (!version) throw new Error(`rate card ${card.id} has no version ${kept.version}`);
  return { card, version, replayed: r.ok && r.replayed };
}

/** Every rate card of the courier; one registered and not yet published is left out. */
export async function rateCardsOf(
  deps: Pick<Deps, "runtime">,
  courierId: string,
): Promise<RateCard[]> {
  const catalogue = orRefuse(
    await deps.runtime.read(courierCatalogueActor, courierId, courierId, { kind: "get" }),
  );
  const answers = await Promise.all(
    catalogue.rate_card_ids.map((id) =>
      deps.runtime.read(rateCardActor, courierId, id, { kind: "get" })
    ),
  );
  return answers.flatMap((r) => {
    if (!r.ok) {
      if (r.code === "not_found") return []; // registered, publication not finished
      throw new Refused(r);
    }
    return r.reply ? [r.reply] : [];
  });
}

/** The card's latest version (every card has version 1). */
export function latestVersion(card: RateCard): RateCardVersion {
  const v = card.versions.at(-1);
  if (!v) throw new Error(`rate card ${card.id} has no version`);
  return v;
}

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
function termsFrom(body: TermsInput, currency: string): Partial<RateCardTerms> {
  const errors: FieldProblem[] = [];
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
  if (errors.length > 0) refuseFields(errors);
  return out;
}

function amountOf(
  value: number | string,
  currency: string,
  path: string,
  errors: FieldProblem[],
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
  input: readonly CorridorInput[],
  currency: string,
  errors: FieldProblem[],
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

/**
 * The instant a version is in force from, to the millisecond the service keeps: the first one not
 * before the instant sent. Date.parse drops digits past the millisecond, which put a version sent
 * as `...00.0005Z` in force half a millisecond early (spec: courier 4.2, in force from then).
 */
function effectiveFrom(iso: string | undefined, now: number): number {
  if (iso === undefined) return now;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) {
    refuseFields([{ path: "effective_from", message: `not a valid date-time: ${iso}` }]);
  }
  const beyondMs = /T[^.]*\.\d{3}(\d+)/.exec(iso)?.[1] ?? "";
  return /[1-9]/.test(beyondMs) ? at + 1 : at;
}

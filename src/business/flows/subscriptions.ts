/**
 * Recurring deliveries (Business API 2.3, 4.2): a subscription is created once per
 * Idempotency-Key, its delivery priced at creation (what every occurrence would be refused is
 * refused now), and each occurrence its timer brings due is booked by the booking flow under a
 * key derived from the subscription and the date, so a retry after a crash answers the same trip.
 */
import {
  type NewSubscription,
  type OccurrenceItem,
  subscriptionActor,
  type SubscriptionCommand,
  type SubscriptionReply,
} from "../../../actors/business/subscription.ts";
import type { Deps } from "../../environment.ts";
import type { CompleteDeps } from "./complete_booking.ts";
import { canonicalJson, sha256Hex } from "../../domain/secrets.ts";
import {
  foundOrNull,
  invalidFields,
  lastingRefusal,
  orRefuse,
  Refused,
} from "../../runtime/actor.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX } from "../../limits.ts";
import { fingerprintOf, SCHEDULE_AS_NOW_MS } from "../rules/booking.ts";
import {
  countryTimeZone,
  localDate,
  localInstant,
  occurrenceKey,
  startProblem,
  type SubscriptionSchedule,
} from "../rules/subscription.ts";
import {
  type BookingRequest,
  bookTrip,
  located,
  priced,
  refuseTestTraffic,
  type TestFlags,
} from "./book.ts";

/** The request; its test flags are refused on live and not kept (business 7). */
export interface SubscriptionInput extends TestFlags {
  readonly segment: "parcel" | "cargo";
  /** The booking each occurrence sends (2.1), without scheduled_at and external_reference. */
  readonly delivery: BookingRequest;
  readonly days_of_week: readonly number[];
  readonly pickup_time: string;
  readonly timezone?: string | undefined;
  readonly starts_on?: string | undefined;
  readonly external_reference?: string | undefined;
  /** The body as sent: its fingerprint tells a retry from other details. */
  readonly body: unknown;
  readonly idempotencyKey: string | null;
}

/** Who books an occurrence, as trails name it. */
const BY = "system";
/** Refusals that a retry of the same booking resolves: the occurrence is tried again. */
const PASSING = new Set(["booking_in_progress", "request_in_progress"]);

/**
 * spec: business appendix 1, 2: a body external_reference wins over the header; the key a
 * subscription is named by, if any.
 */
function keyOf(input: SubscriptionInput): string | null {
  // Each its own namespace, so a header never names the subscription of a body reference.
  if (input.external_reference) return `subscription_reference\n${input.external_reference}`;
  return input.idempotencyKey === null ? null : `subscription\n${input.idempotencyKey}`;
}

/** The subscription's id: derived from the business and its key (keyOf), else random. */
function subscriptionId(business: string, key: string | null): string {
  const seed = key === null ? crypto.randomUUID() : `${business}\n${key}`;
  return `sub_${sha256Hex(seed).slice(0, 24)}`;
}

/**
 * spec: business 7, appendix 2: a retry of a keyed create is answered by the subscription that
 * holds the key (replayed, or 409 reference_conflict for another body) before anything that may
 * have changed since the first attempt (geocoding, prices, the vehicle upgrade setting, today's
 * date) is checked again. Null: no subscription holds the key, so this one creates it.
 */
async function heldSubscription(
  deps: Pick<Deps, "runtime">,
  business: string,
  o: { id: string; fingerprint: string },
): Promise<SubscriptionReply | null> {
  const held = await deps.runtime.read(subscriptionActor, business, o.id, {
    kind: "replay",
    fingerprint: o.fingerprint,
  });
  return !held.ok && held.code === "not_found" ? null : orRefuse(held);
}

/**
 * spec: business appendix 1, 2: the same request again creates nothing new, also across the
 * change that let the body's external_reference name the subscription: one created before it
 * with the same body was named by its Idempotency-Key alone. Another body under that key is
 * another request (the body's reference wins): null, as for none.
 */
async function namedByHeader(
  deps: Pick<Deps, "runtime">,
  business: string,
  input: SubscriptionInput,
  fingerprint: string,
): Promise<SubscriptionReply | null> {
  if (!input.external_reference || input.idempotencyKey === null) return null;
  const id = subscriptionId(business, `subscription\n${input.idempotencyKey}`);
  const held = await deps.runtime.read(subscriptionActor, business, id, {
    kind: "replay",
    fingerprint,
  });
  if (!held.ok && (held.code === "not_found" || held.code === "reference_conflict")) return null;
  return orRefuse(held);
}

/**
 * Creates a subscription, or answers the one a retry of the same request made (`replayed`): the
 * same external_reference, else the same Idempotency-Key.
 */
export async function createSubscription(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "requestId">,
  business: string,
  input: SubscriptionInput,
): Promise<SubscriptionReply> {
  const key = keyOf(input);
  const id = subscriptionId(business, key);
  const fingerprint = fingerprintOf(input.body);
  if (key !== null) {
    const first = await heldSubscription(deps, business, { id, fingerprint });
    if (first) return first;
    const before = await namedByHeader(deps, business, input, fingerprint);
    if (before) return before;
  }
  // spec: business 7, 9.3: live refuses test flags and test markers as POST /business/book
  // does (after a replay, as there), at creation rather than at each occurrence; the sandbox
  // ignores them.
  if (deps.name === "live") {
    const { test, dry_run } = input;
    await refuseTestTraffic(deps, business, { ...input.delivery, test, dry_run });
  }
  const account = await businessOf(deps.runtime, business);
  // Business API 2.3 "in the business's time zone": its country's, unless named.
  const timezone = input.timezone ?? countryTimeZone(account.country);
  if (timezone === null) {
    throw new Refused(invalidFields([{
      path: "timezone",
      message: `required: the business's country has no single time zone: ${account.country}`,
    }]));
  }
  const start = input.starts_on && startProblem(input.starts_on, timezone, deps.clock.now());
  if (start) throw new Refused(invalidFields([{ path: "starts_on", message: start }]));
  await priced(deps, account, await located(deps, business, input.delivery));
  const schedule: SubscriptionSchedule = {
    days_of_week: [...new Set(input.days_of_week)].sort((a, b) => a - b),
    pickup_time: input.pickup_time,
    timezone,
    starts_on: input.starts_on ?? localDate(timezone, deps.clock.now()),
  };
  const subscription: NewSubscription = {
    id,
    business_id: business,
    segment: input.segment,
    schedule,
    delivery: JSON.parse(canonicalJson(input.delivery)),
    external_reference: input.external_reference ?? null,
    fingerprint,
  };
  return orRefuse(
    await deps.runtime.ask(
      subscriptionActor,
      business,
      id,
      { kind: "create", subscription },
      { requestId: deps.requestId, ...(key === null ? { fresh: true } : {}) },
    ),
  );
}

/** Asks one subscription of the business; another business's answers as a missing one. */
export async function askSubscription(
  deps: Pick<Deps, "runtime" | "requestId">,
  business: string,
  id: string,
  command: SubscriptionCommand,
): Promise<SubscriptionReply> {
  return orRefuse(
    await deps.runtime.ask(subscriptionActor, business, id, command, {
      requestId: deps.requestId,
    }),
  );
}

/** A due occurrence as its outbox hands it over: with its failed attempts so far. */
export interface OccurrenceAttempt extends OccurrenceItem {
  readonly attempts?: number;
}

/**
 * Books one due occurrence (the occurrence outbox's handler): once, under its derived key. A
 * booking refused for good (the wallet, the vehicle) is recorded on the subscription and not
 * tried again; a booking still in progress, an actor too busy or a failure throws, and the sweep
 * tries again, up to SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX attempts in all: the last one failing
 * notes the occurrence failed (spec: business 4.2: shown in occurrences, not tried for ever).
 */
export async function bookOccurrence(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "referenceKey"> & Pick<CompleteDeps, "numbers">,
  item: OccurrenceAttempt,
): Promise<void> {
  let command: SubscriptionCommand | null;
  try {
    command = await occurrenceOutcome(deps, item);
  } catch (e) {
    const attempt = (item.attempts ?? 0) + 1;
    if (attempt < SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX) throw e;
    // Its reason by code only: a failure's own message may name internals (business 7).
    const last = e instanceof Refused ? e.rejection.code : "internal_error";
    command = {
      kind: "occurrence_failed",
      date: item.date,
      code: "booking_failed",
      message: `not booked after ${attempt} attempts; the last: ${last}`,
    };
  }
  if (command === null) return;
  orRefuse(
    await deps.runtime.ask(subscriptionActor, item.business_id, item.subscription_id, command),
  );
}

/**
 * The outcome to note of one occurrence's booking: its trip, or a lasting refusal; null when
 * there is nothing to book (no record, or its outcome already noted). Throws what a retry may
 * resolve.
 */
async function occurrenceOutcome(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "referenceKey"> & Pick<CompleteDeps, "numbers">,
  item: OccurrenceItem,
): Promise<SubscriptionCommand | null> {
  const read = await deps.runtime.read(
    subscriptionActor,
    item.business_id,
    item.subscription_id,
    { kind: "get" },
  );
  // A busy or failed read says nothing of the occurrence: thrown, so the sweep tries again.
  const s = foundOrNull(read)?.subscription;
  if (!s) return null;
  const record = s.occurrences.find((o) => o.date === item.date);
  if (!record || record.status !== "booking") return null;
  const now = deps.clock.now();
  const request: BookingRequest = {
    ...(s.delivery as unknown as BookingRequest),
    // spec: business 3.1: booked ahead as a scheduled trip; a missed day (the clock jumped or
    // the service was down) is booked as now rather than refused as past.
    ...(item.pickup_at - now > SCHEDULE_AS_NOW_MS
      ? { scheduled_at: localInstant(s.schedule, item.pickup_at) }
      : {}),
    ...(s.external_reference ? { external_reference: `${s.external_reference}-${item.date}` } : {}),
  };
  try {
    const booked = await bookTrip(deps, item.business_id, {
      request,
      // The same occurrence is the same booking, whenever it is retried.
      body: { subscription: s.id, date: item.date },
      idempotencyKey: occurrenceKey(s.id, item.date),
      by: BY,
    });
    return { kind: "occurrence_booked", date: item.date, trip_reference: booked.trip.reference };
  } catch (e) {
    // A "not now" (an actor too busy) refused nothing: thrown, so the occurrence is tried again.
    if (!(e instanceof Refused) || PASSING.has(e.rejection.code) || !lastingRefusal(e)) throw e;
    const { code, message } = e.rejection;
    return { kind: "occurrence_refused", date: item.date, code, message };
  }
}

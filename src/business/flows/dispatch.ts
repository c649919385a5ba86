/**
 * Offers and their answers (Business API 3.1; CONTRACT "Driver app": GET /driver/offers, POST
 * /driver/offers/{offer}/accept, /decline). Accepting is two steps: the pool driver takes the trip
 * (refused when they hold one it cannot queue behind), then the trip accepts the driver (refused
 * when another did, or the offer ended); a refused second step gives the trip back. A crash
 * between the two is settled by the driver's hold timer (settleHold). The take is keyed by the
 * offer; the trip's answer by the driver's idempotency_key, so a replay after lost signal answers
 * the first answer, read before the offer is checked (driver_replays.ts).
 */
import { type HoldItem, poolDriverActor } from "../../../actors/business/pool_driver.ts";
import {
  DRIVER_OFFER_INDEX,
  type Trip,
  tripActor,
  type TripDriver,
} from "../../../actors/business/trip/mod.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import { base64url, fromBase64url } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import { tripKeyOf } from "../rules/driver_holding.ts";
import { positionsSinceRelease } from "../rules/tracking.ts";
import { keptTrip, replayOr } from "./driver_replays.ts";
import { startQueuedTrip } from "./driver_holding.ts";

type D = Pick<Deps, "runtime" | "requestId">;

export { tripKeyOf };

/** An offer's id names its trip, so its answer reaches the trip after the offer has ended. */
export function newOfferId(businessId: string, reference: string): string {
  const trip = base64url(new TextEncoder().encode(`${businessId}\n${reference}`));
  return `${newId("off")}.${trip}`;
}

function tripOfOffer(offerId: string): { business_id: string; reference: string } | null {
  const part = offerId.split(".")[1];
  if (!offerId.startsWith("off_") || !part) return null;
  try {
    const [business_id, reference] = new TextDecoder().decode(fromBase64url(part)).split("\n");
    return business_id && reference ? { business_id, reference } : null;
  } catch {
    return null;
  }
}

/** One wording for an offer that does not exist and another driver's (CONTRACT "Driver app"). */
const notFound = (): never => refuse("not_found", "offer not found");

/** The trip of an offer made to this driver, as it is now; 404 for anyone else's. */
async function offeredTrip(deps: D, driverId: string, offerId: string): Promise<Trip> {
  const of = tripOfOffer(offerId) ?? notFound();
  // A refused read (a full mailbox) is thrown (503), never answered 404 for one that exists.
  const r = foundOrNull(
    await deps.runtime.read(tripActor, of.business_id, of.reference, { kind: "get" }),
  );
  if (r === null || r.phase !== "booked") return notFound();
  const t = r.trip;
  const mine = t.offer?.offer_id === offerId && t.offer.driver_id === driverId;
  // Once answered, the offer stays the driver's: their trip, or one they let go.
  if (!mine && t.driver?.id !== driverId && !t.dispatch.excluded.includes(driverId)) {
    return notFound();
  }
  return t;
}

export interface OfferAnswer {
  readonly offer_id: string;
  readonly outcome: "accepted" | "declined";
  readonly trip: Trip;
}

/** What an answer to an offer carries (CONTRACT "Driver app"). */
export interface OfferAnswerInput {
  readonly idempotency_key: string;
}

type Outcome = OfferAnswer["outcome"];

/**
 * The trip's key for the driver's answer: the driver's own key, scoped to the offer, the outcome
 * and the driver, so one driver's key never finds another's answer.
 */
function answerKey(outcome: Outcome, offerId: string, driverId: string, key: string): string {
  return `${outcome}:${offerId}:driver:${driverId}:${key}`;
}

/** The answer first given under `key`, read without checking the offer (driver_replays.ts). */
async function keptAnswer(
  deps: D,
  offerId: string,
  outcome: Outcome,
  key: string,
): Promise<OfferAnswer | null> {
  const of = tripOfOffer(offerId);
  const trip = of && await keptTrip(deps, of.reference, key);
  return trip ? { offer_id: offerId, outcome, trip } : null;
}

/** POST /driver/offers/{offer}/accept; a replay answers the first answer (CONTRACT). */
export async function acceptOffer(
  deps: D,
  driverId: string,
  offerId: string,
  input: OfferAnswerInput,
): Promise<OfferAnswer> {
  const key = answerKey("accepted", offerId, driverId, input.idempotency_key);
  return await replayOr(
    () => keptAnswer(deps, offerId, "accepted", key),
    () => takeAndAccept(deps, driverId, offerId, key),
  );
}

/** The two steps, checked: the driver takes the trip, then the trip accepts the driver. */
async function takeAndAccept(
  deps: D,
  driverId: string,
  offerId: string,
  key: string,
): Promise<OfferAnswer> {
  const t = await offeredTrip(deps, driverId, offerId);
  // An acceptance that went through (its answer lost): the trip as it is, never taken again (a
  // take after the trip ended would hold the driver for good); a take a crash left unconfirmed
  // is settled by the driver's hold timer.
  if (t.driver?.id === driverId) return { offer_id: offerId, outcome: "accepted", trip: t };
  if (t.offer?.offer_id !== offerId) {
    refuse("offer_expired", `the offer ended, declined or expired unanswered: ${offerId}`);
  }
  const trip = tripKeyOf(t.business_id, t.reference);
  // Not under a key: a take undone after a refused acceptance is taken again by the retry (a
  // take of a trip held already changes nothing).
  const driver = orRefuse(
    await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, driverId, { kind: "take", trip }, {
      requestId: deps.requestId,
    }),
  );
  const accepted = await deps.runtime.ask(tripActor, t.business_id, t.reference, {
    kind: "accept",
    driver: tripDriverOf(driver),
    offer_id: offerId,
    queued: driver.queued === trip,
    // spec: business 2.4: a position observed before the driver last gave up a trip is not B's.
    ...sinceRelease(driver.released_at),
  }, { idempotencyKey: key, requestId: deps.requestId });
  const item = { driver_id: driverId, trip };
  if (!accepted.ok || accepted.reply.phase !== "booked") {
    // The take is undone, unless the trip holds the driver all the same (a concurrent retry's
    // acceptance); a read refused for now leaves it to the driver's hold timer.
    await settleHold(deps, item).catch(() => undefined);
    return orRefuse(accepted.ok ? notFound() : accepted);
  }
  await settled(deps, item, accepted.reply.trip);
  return { offer_id: offerId, outcome: "accepted", trip: accepted.reply.trip };
}

/**
 * POST /driver/offers/{offer}/decline: the driver is not asked again for this trip; a replay
 * answers the first answer (CONTRACT "Driver app").
 */
export async function declineOffer(
  deps: D,
  driverId: string,
  offerId: string,
  input: OfferAnswerInput,
): Promise<OfferAnswer> {
  const key = answerKey("declined", offerId, driverId, input.idempotency_key);
  return await replayOr<OfferAnswer>(() => keptAnswer(deps, offerId, "declined", key), async () => {
    const t = await offeredTrip(deps, driverId, offerId);
    if (t.driver?.id === driverId) {
      refuse("already_accepted", `the driver accepted this offer: ${offerId}`);
    }
    const r = orRefuse(
      await deps.runtime.ask(tripActor, t.business_id, t.reference, {
        kind: "decline",
        offer_id: offerId,
        driver_id: driverId,
      }, { idempotencyKey: key, requestId: deps.requestId }),
    );
    if (r.phase !== "booked") return notFound();
    return { offer_id: offerId, outcome: "declined", trip: r.trip };
  });
}

/** GET /driver/offers: the trip whose offer waits for this driver, if any. */
export async function waitingOffer(
  deps: D & Pick<Deps, "clock">,
  driverId: string,
): Promise<Trip | null> {
  const at = await deps.runtime.lookup(DRIVER_OFFER_INDEX, driverId);
  if (!at || at.type !== tripActor.type) return null;
  // A refused read (a full mailbox) is thrown (503): never "no offer" while one waits.
  const r = foundOrNull(await deps.runtime.read(tripActor, at.tenant, at.id, { kind: "get" }));
  if (r === null || r.phase !== "booked") return null;
  const t = r.trip;
  // Past its expiry it cannot be accepted, whether or not its timer has fired yet.
  const open = t.offer?.driver_id === driverId && deps.clock.now() < t.offer.expires_at;
  return open ? t : null;
}

/**
 * A take the trip never confirmed (a crash between the two steps of acceptOffer): completed when
 * the trip accepted the driver, else undone so the driver is free again.
 */
export async function settleHold(deps: Pick<Deps, "runtime">, item: HoldItem): Promise<void> {
  const [businessId, ...rest] = item.trip.split(":");
  // A read refused for now is thrown (the outbox hands the item over again): it never releases a
  // hold the trip may have.
  const r = foundOrNull(
    await deps.runtime.read(tripActor, businessId!, rest.join(":"), { kind: "get" }),
  );
  await settled(deps, item, r?.phase === "booked" ? r.trip : null);
}

/** The take confirmed when the trip `t` holds the driver, else undone. */
async function settled(deps: Pick<Deps, "runtime">, item: HoldItem, t: Trip | null) {
  const holds = t !== null && t.driver?.id === item.driver_id &&
    !["completed", "cancelled"].includes(t.status);
  const driver = orRefuse(
    await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, item.driver_id, {
      kind: holds ? "confirm" : "release",
      trip: item.trip,
    }),
  );
  // spec: business 3.1 queued: taken queued behind a trip that ended before this one accepted
  // the driver, it was moved up while not yet queued (its start then found nothing to start):
  // the driver's current trip starts now.
  if (holds && t.status === "queued" && driver.current === item.trip) {
    await startQueuedTrip(deps, item);
  }
}

/** The acceptance's positions_since from the driver's last release; none when not known. */
function sinceRelease(released: number | null): { positions_since?: number } {
  const since = positionsSinceRelease(released);
  return since === undefined ? {} : { positions_since: since };
}

/** The driver as a trip keeps them (spec: business 2.4's driver fields). */
function tripDriverOf(d: {
  id: string;
  name: string;
  phone: string;
  plate: string | null;
  color: string | null;
  vehicle_type_id: number;
}): TripDriver {
  const { id, name, phone, plate, color, vehicle_type_id } = d;
  return { id, name, phone, plate, color, vehicle_type_id };
}

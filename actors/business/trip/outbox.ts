/**
 * What follows a trip's committed change, added in the same commit (STYLE "transactional
 * outbox"): the business webhook events of 6's table, the refund of a cancelled trip's charge, and
 * the completion of a booking that stopped between its steps.
 */
import type { OutboxAdd } from "../../../src/runtime/actor.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import {
  BUSINESS_WEBHOOK_OUTBOX,
  type BusinessWebhookEvent,
  type BusinessWebhookItem,
} from "../../../src/business/rules/webhook_events.ts";
import {
  BOOKING_STALLED_OUTBOX,
  SHOP_TRIP_BOOKED_OUTBOX,
  SHOP_TRIP_ENDED_OUTBOX,
  type ShopTripBookedItem,
  type ShopTripEndedItem,
  TRIP_REFUND_OUTBOX,
} from "../../../src/business/rules/booking.ts";
import {
  BATCH_HOLD_OUTBOX,
  BATCH_START_OUTBOX,
  type BatchHoldItem,
  type BatchStartItem,
  DRIVER_RELEASE_OUTBOX,
  type HoldingItem,
  tripKeyOf,
} from "../../../src/business/rules/driver_holding.ts";
import {
  AUTOPILOT_END_OUTBOX,
  AUTOPILOT_READY_OUTBOX,
  AUTOPILOT_START_OUTBOX,
  type AutopilotEndItem,
  type AutopilotStartItem,
} from "../../../src/business/rules/sandbox_steps.ts";
import { CHAT_CLOSE_OUTBOX, type ChatCloseItem } from "../../../src/business/rules/chat.ts";
import { trackingLinkStatus } from "./tracking_link.ts";
import { cancellerOf, shownEtaMinutes } from "../../../src/business/rules/trip_status.ts";
import type { Trip, TripState } from "./types.ts";
import type { TripEvent } from "./events.ts";

/** The refund a cancellation owes (the trip's wallet charge), handed to the refund outbox. */
export interface RefundItem {
  readonly business_id: string;
  readonly reference: string;
}

/** A booking claimed and not completed in time, handed to the completing sweep. */
export interface StalledItem {
  readonly business_id: string;
  readonly reference: string;
}

/** The trip as webhooks carry it (2.2's fields that need no request to make). */
export function tripEventData(t: Trip): Record<string, unknown> {
  return {
    id: t.id,
    reference: t.reference,
    status: t.status,
    type: t.type,
    external_reference: t.external_reference,
    billing_amount: decimal(t.billing_amount_minor, t.billing_currency),
    billing_currency: t.billing_currency,
    // spec: business 2.2: eta_minutes is one of the trip's fields, as the sample carries it.
    eta_minutes: shownEtaMinutes(t),
    is_test: t.is_test,
    test: t.is_test,
    returning: t.returning,
    delivery_outcome: t.delivery_outcome,
    // spec: business 2.3: a stop says which batch it is of, and where in the driving order (as
    // the trip's reads do).
    ...(t.batch === undefined
      ? {}
      : { batch: { id: t.batch.id, position: t.batch.position, stops: t.batch.stops } }),
  };
}

/**
 * spec: business 2.7: "events carry the business's external_reference": a batch's stop has none
 * of its own (its trip is keyed by the batch), so it carries the batch's.
 */
function businessReference(t: Trip): string | null {
  return t.external_reference ?? t.batch?.reference ?? null;
}

/**
 * The id of a trip's fact (spec: business 6: receivers dedupe on `id`): one fact, one id, so a
 * second handling after a crash carries the same id. A fact that happens again on one trip (3.1:
 * a trip given back is accepted again) numbers its later occurrences; the first keeps the id it
 * always had, so an event sent before is never sent again under another.
 */
function tripEventId(reference: string, event: BusinessWebhookEvent, occurrence = 1) {
  return occurrence > 1 ? `${reference}:${event}:${occurrence}` : `${reference}:${event}`;
}

function webhook(
  t: Trip,
  event: BusinessWebhookEvent,
  at: number,
  extra: Record<string, unknown> = {},
  occurrence = 1,
): OutboxAdd {
  const item: BusinessWebhookItem = {
    business_id: t.business_id,
    event_id: tripEventId(t.reference, event, occurrence),
    event,
    external_reference: businessReference(t),
    occurred_at: at,
    data: { ...tripEventData(t), ...extra },
    // spec: business 2.4 rule 6: the link as reads answered it when the fact happened.
    tracking_token: trackingLinkStatus(t, at) === "active" ? t.tracking_token : null,
  };
  return { outbox: BUSINESS_WEBHOOK_OUTBOX, payload: item };
}

/** spec: business 3.1 "Also" column and 6's table: the events each transition sends. */
export function tripOutbox(e: TripEvent, next: TripState): readonly OutboxAdd[] {
  if (e.kind === "booking_stalled" && next.phase === "booking") {
    const { business_id, reference } = next.claim.draft;
    const item: StalledItem = { business_id, reference };
    return [{ outbox: BOOKING_STALLED_OUTBOX, payload: item }];
  }
  if (next.phase !== "booked") return [];
  return [
    ...webhooks(e, next.trip),
    ...driverFreed(e, next.trip),
    ...batchStart(e, next.trip),
    ...autopilotStart(e, next.trip),
    ...autopilotEnd(e, next.trip),
    ...autopilotReady(e, next.trip),
    ...shopTripBooked(e, next.trip, next.fingerprint),
    ...shopTripEnded(e, next.trip, next.fingerprint),
    ...chatClose(e, next.trip),
  ];
}

/**
 * spec: business 4.1, 8: the chat closes on cancellation or 30 minutes after completion; told in
 * the commit that ends the trip, the chat decides it itself (a post racing the end is refused).
 */
function chatClose(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  const ends = ["trip_delivered", "return_completed", "trip_cancelled"].includes(e.kind);
  if (!ends) return [];
  const item: ChatCloseItem = {
    business_id: t.business_id,
    reference: t.reference,
    cancelled: t.status === "cancelled",
    completed_at: t.completed_at,
  };
  return [{ outbox: CHAT_CLOSE_OUTBOX, payload: item }];
}

/**
 * spec: shopping 1.1, 2.2: a shop-and-deliver trip's creation completes the shopping order that
 * booked it (a crash between the two steps of the order's flow leaves it to this outbox).
 */
function shopTripBooked(e: TripEvent, t: Trip, fingerprint: string): readonly OutboxAdd[] {
  if (e.kind !== "trip_created" || !t.shop_deliver) return [];
  const item: ShopTripBookedItem = {
    business_id: t.business_id,
    reference: t.reference,
    fingerprint,
  };
  return [{ outbox: SHOP_TRIP_BOOKED_OUTBOX, payload: item }];
}

/**
 * spec: business 3.1, shopping 1.1: a shop-and-deliver trip cancelled (by the business, the
 * system, the driver or the sandbox) ends its order's unfinished stores, so the goods already
 * bought are charged against their receipts and no store stays pending for ever.
 */
function shopTripEnded(e: TripEvent, t: Trip, fingerprint: string): readonly OutboxAdd[] {
  if (e.kind !== "trip_cancelled" || !t.shop_deliver) return [];
  const item: ShopTripEndedItem = {
    business_id: t.business_id,
    reference: t.reference,
    fingerprint,
  };
  return [{ outbox: SHOP_TRIP_ENDED_OUTBOX, payload: item }];
}

/** spec: business 4.4: a sandbox trip's autopilot starts from its creation's commit. */
function autopilotStart(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  // Only a sandbox trip is a test trip (live refuses test flags: business 7, 9.3).
  if (e.kind !== "trip_created" || !t.is_test) return [];
  const item: AutopilotStartItem = {
    business_id: t.business_id,
    reference: t.reference,
    scenario: t.sandbox_scenario ?? null,
    ...(t.sandbox_autopilot === undefined ? {} : { autopilot: t.sandbox_autopilot }),
  };
  return [{ outbox: AUTOPILOT_START_OUTBOX, payload: item }];
}

/** spec: business 3.1, 4.4: a sandbox trip marked ready tells its autopilot it is offered now. */
function autopilotReady(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  if (e.kind !== "trip_ready" || !t.is_test) return [];
  const item: AutopilotEndItem = { business_id: t.business_id, reference: t.reference };
  return [{ outbox: AUTOPILOT_READY_OUTBOX, payload: item }];
}

/** spec: business 4.4: a sandbox trip that ended tells its autopilot (if it has one). */
function autopilotEnd(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  const ends = ["trip_delivered", "return_completed", "trip_cancelled"].includes(e.kind);
  if (!ends || !t.is_test) return [];
  const item: AutopilotEndItem = { business_id: t.business_id, reference: t.reference };
  return [{ outbox: AUTOPILOT_END_OUTBOX, payload: item }];
}

/**
 * spec: business 3.1 queued: a trip that ended or was given back no longer holds its driver, who
 * may then start the trip queued behind it.
 */
function driverFreed(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  const driverId = e.kind === "driver_withdrew"
    ? e.driver_id
    : ["trip_delivered", "return_completed", "trip_cancelled"].includes(e.kind)
    ? t.driver?.id
    : undefined;
  if (driverId === undefined) return [];
  if (holdPasses(t) && t.batch !== undefined) {
    const item: BatchHoldItem = {
      business_id: t.business_id,
      batch_id: t.batch.id,
      driver_id: driverId,
      stop: t.reference,
    };
    return [{ outbox: BATCH_HOLD_OUTBOX, payload: item }];
  }
  const item: HoldingItem = { driver_id: driverId, trip: tripKeyOf(t.business_id, t.reference) };
  return [{ outbox: DRIVER_RELEASE_OUTBOX, payload: item }];
}

/**
 * spec: business 2.3, 3.1, 3.2: a batch's stop that ended (delivered, returned, cancelled) or was
 * given back may be the one its driver holds for the batch: the hold passes to the next stop the
 * driver still carries (released when none is left), so the driver is not free for other trips
 * while under way with the batch.
 */
function holdPasses(t: Trip): boolean {
  return t.batch !== undefined && t.batch.stops >= 2;
}

/**
 * spec: business 2.3, 3.1 queued: a batch's stops wait queued behind their driver's trip under way
 * with the stop the driver holds (the first, or the next once it left), and start with it: its
 * start starts the driver's others, and a stop given queued is started at once should the batch
 * have started meanwhile.
 */
function batchStart(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  if (t.batch === undefined) return [];
  const item: BatchStartItem = { business_id: t.business_id, batch_id: t.batch.id };
  // A stop started with the batch (not held itself) starts no others.
  if (e.kind === "trip_started" && !e.with_batch && t.driver !== null) {
    return [{ outbox: BATCH_START_OUTBOX, payload: { ...item, driver_id: t.driver.id } }];
  }
  if (e.kind === "trip_accepted" && e.queued && t.batch.position > 1) {
    return [{ outbox: BATCH_START_OUTBOX, payload: { ...item, stop: t.reference } }];
  }
  return [];
}

/**
 * Only an acceptance happens twice on one trip (3.1: given back before collection, it is
 * accepted again); every other event leaves a status its trip never returns to, once each.
 */
function webhooks(e: TripEvent, t: Trip): readonly OutboxAdd[] {
  switch (e.kind) {
    case "trip_created":
      return [webhook(t, "trip.created", t.created_at)];
    case "trip_accepted":
      return [webhook(t, "trip.accepted", e.at, {}, e.acceptance ?? t.acceptances)];
    case "trip_collected":
      return [webhook(t, "trip.picked_up", e.at, {
        // spec: business 2.2: null on a forced collection, whose override names its reason.
        scanned_at: iso(t.scanned_at),
        collect_override_reason: t.collect_override?.reason ?? null,
      })];
    case "trip_delivered":
      return [
        ...(e.age_verified ? [webhook(t, "trip.age_verified", e.at)] : []),
        ...(e.cod_collected_minor === null ? [] : [webhook(t, "cod.collected", e.at, {
          cod_collected_amount: decimal(e.cod_collected_minor, t.billing_currency),
        })]),
        webhook(t, "trip.completed", e.at, { delivery_outcome: "delivered", returned: false }),
      ];
    case "delivery_failed":
      return e.id_refused
        ? [webhook(t, "trip.age_verification_failed", e.at, {
          age_verification_outcome: "refused",
          reason: e.reason,
          returning: true,
          return_due_at: iso(t.return_due_at),
        })]
        : [webhook(t, "trip.delivery_failed", e.at, {
          reason: e.reason,
          return_reason: e.reason,
          returning: true,
          return_due_at: iso(t.return_due_at),
        })];
    case "return_completed":
      return [webhook(t, "trip.completed", e.at, {
        delivery_outcome: "returned",
        returned: true,
        return_reason: t.return_reason,
      })];
    case "trip_cancelled": {
      const refund: RefundItem = { business_id: t.business_id, reference: t.reference };
      return [
        webhook(t, "trip.cancelled", e.at, {
          cancelled_by: cancellerOf(e.by),
          reason: e.reason,
          // spec: business 3.1, 6: owed in this commit, credited by its outbox later (the wallet
          // may fail meanwhile): pending until the credit commits, reported then (below).
          refund_status: e.refund_due ? "pending" : "not_charged",
          refund_amount: e.refund_due
            ? decimal(e.refund_due.amount_minor, e.refund_due.currency)
            : null,
        }),
        ...(e.refund_due ? [{ outbox: TRIP_REFUND_OUTBOX, payload: refund }] : []),
      ];
    }
    case "trip_refunded":
      // spec: business 6: trip.cancelled carries the refund status; the credit landed, so the
      // cancellation is reported again, refunded, under an id of its own (the trip is cancelled
      // once: its second occurrence is this report).
      return [webhook(t, "trip.cancelled", e.at ?? t.cancelled_at ?? t.created_at, {
        cancelled_by: cancellerOf(t.cancelled_by),
        reason: t.cancel_reason,
        refund_status: "refunded",
        refund_amount: decimal(e.refund.amount_minor, e.refund.currency),
      }, 2)];
    default:
      return [];
  }
}

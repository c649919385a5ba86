/**
 * The transitions a driver makes (Business API 3.1's table, CONTRACT "Driver app"): accept,
 * arrive, collect (custody scan or a recorded override), arrive at drop-off, deliver (code, ID,
 * proof, COD), fail or refuse ID (the return starts), complete the return, give the trip back.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type Rejection,
} from "../../../src/runtime/actor.ts";
import { mapReply, unreachable } from "../../../src/runtime/actor.ts";
import { formatMinor } from "../../../src/domain/money.ts";
import { isAccepted } from "../../../src/business/rules/trip_status.ts";
import {
  deliveryCodeMatches,
  proofRequired,
  redispatchable,
  RETURN_DUE_MS,
  scanMatches,
} from "../../../src/business/rules/driver_actions.ts";
import type { DriverAction, Trip, TripReply, TripState } from "./types.ts";
import type { TripEvent } from "./events.ts";
import { ACCEPT_TIMERS, refuseAccept, windowReopened } from "./dispatch.ts";

type D = Decision<TripState, TripEvent, TripReply>;

export const replyOf = (s: TripState): TripReply =>
  s.phase === "booked"
    ? { phase: "booked", trip: s.trip }
    : s.phase === "booking"
    ? { phase: "booking", claimed_at: s.claim.claimed_at, new_claim: false, claim: s.claim }
    : { phase: "free" };

export function tripNotFound(): Rejection {
  return reject("not_found", "trip not found");
}

export function wrongStatus(t: Trip, action: string): Rejection {
  return reject(
    "invalid_transition",
    `cannot ${action} a trip that is ${t.status}: ${t.reference}`,
  );
}

/**
 * spec: business 3.1 table: the transitions a driver makes. The driver app's request digest is
 * answered back, so the reply kept under its key tells a replay from another request.
 */
export function drive(t: Trip, a: DriverAction, ctx: Ctx): D {
  const d = driveOnce(t, a, ctx);
  const { request } = a;
  if (request === undefined) return d;
  return mapReply(d, (r) => r.phase === "booked" ? { ...r, request } : r);
}

/**
 * CONTRACT "Driver app": another driver's trip answers as a missing one; a trip merely offered
 * to this driver is theirs to see (GET answers it), so acting on it before accepting is a step
 * out of order, not a missing trip.
 */
function notTheirs(t: Trip, driverId: string | undefined): Rejection | null {
  if (driverId === undefined || t.driver?.id === driverId) return null;
  if (t.offer?.driver_id !== driverId) return tripNotFound();
  return reject(
    "invalid_transition",
    `the trip is offered to you and not yet accepted: accept the offer first: ${t.reference}`,
  );
}

function driveOnce(t: Trip, a: DriverAction, ctx: Ctx): D {
  const theirs = a.kind === "accept" ? null : notTheirs(t, a.driver_id);
  if (theirs) return theirs;
  const at = ctx.now;
  switch (a.kind) {
    case "accept":
      return acceptTrip(t, a, at);
    case "start":
      // Started already, or ended meanwhile (cancelled while queued): nothing to start.
      if (t.status !== "queued") return accept([], replyOf);
      // Later than its acceptance, even within its millisecond: a trip started when it was
      // accepted reads as never queued (rules/tracking.ts locationSince), seen at any time.
      return accept([{
        kind: "trip_started",
        at: Math.max(at, (t.accepted_at ?? at) + 1),
        ...(a.with_batch ? { with_batch: true } : {}),
      }], replyOf);
    case "arrive":
      // Said again (a resent tap, another key): the arrival stands, as arrive_dropoff's does.
      if (t.status === "arrived") return accept([], replyOf);
      if (!isAccepted(t.status)) return wrongStatus(t, "arrive at");
      return accept([{ kind: "trip_arrived", at }], replyOf);
    case "collect":
      return collect(t, a, at);
    case "arrive_dropoff":
      if (t.status !== "active" || t.returning) return wrongStatus(t, "arrive at the drop-off of");
      if (t.arrived_dropoff_at !== null) return accept([], replyOf);
      return accept([{ kind: "trip_arrived_dropoff", at }], replyOf);
    case "deliver":
      return deliver(t, a, at);
    case "fail":
    case "refuse_id":
      return failDelivery(t, a, at);
    case "complete_return":
      if (t.status !== "active" || !t.returning) return wrongStatus(t, "complete the return of");
      return accept([{ kind: "return_completed", at }], replyOf);
    case "withdraw":
      return withdraw(t, a, at);
    default:
      return unreachable(a);
  }
}

function acceptTrip(t: Trip, a: Extract<DriverAction, { kind: "accept" }>, at: number): D {
  const { driver } = a;
  // A retry of the holder's own acceptance (lost signal) answers the trip as it is.
  if (t.driver !== null && t.driver.id === driver.id) return accept([], replyOf);
  // spec: business 3.1: a trip never has two drivers.
  if (t.driver !== null) {
    return reject("already_accepted", `another driver accepted the trip: ${t.reference}`);
  }
  if (!["pending", "scheduled", "queued"].includes(t.status)) return wrongStatus(t, "accept");
  // spec: business 3.1: a trip given back is accepted again, each acceptance a fact of its own.
  const acceptance = t.acceptances + 1;
  // Only the driver the trip's offer waits for (or, without an offer id, when none waits).
  // spec: business 2.4; tenant isolation: never a position observed before the driver last gave
  // up a trip (maybe another business's, at its customer's door), nor, that unknown, before now.
  const positions_since = Math.min(a.positions_since ?? at, at);
  const queued = a.queued ? { queued: true } : {};
  return refuseAccept(t, a, at) ?? accept(
    [{ kind: "trip_accepted", at, driver, acceptance, positions_since, ...queued }],
    replyOf,
    ACCEPT_TIMERS,
  );
}

/**
 * spec: business 3.1: an active delivery fails, or its ID is refused (age-restricted only), and
 * its return starts. A ride carries a passenger, no goods to take back (6: `returned` means goods
 * back in stock): it ends by deliver or the driver's cancellation.
 */
function failDelivery(
  t: Trip,
  a: Extract<DriverAction, { kind: "fail" | "refuse_id" }>,
  at: number,
): D {
  const { reference } = t;
  if (t.returning) {
    return reject(
      "invalid_transition",
      `the trip's return is already in progress: complete the return next: ${reference}`,
    );
  }
  if (t.status !== "active") return wrongStatus(t, a.kind === "fail" ? "fail" : "refuse ID for");
  if (t.type === "ride") {
    return reject("invalid_transition", `a ride has no goods to return: ${reference}`);
  }
  if (a.kind === "refuse_id" && !t.age_verification_required) {
    return reject(
      "invalid_transition",
      `the trip is not age-restricted: there is no ID check to refuse: ${reference}`,
    );
  }
  return accept([{
    kind: "delivery_failed",
    at,
    reason: a.reason,
    id_refused: a.kind === "refuse_id",
    return_due_at: at + RETURN_DUE_MS,
  }], replyOf);
}

/** spec: business 2.2, 3.1: a matching scan, else (or without the add-on) a forced override. */
function collect(t: Trip, a: Extract<DriverAction, { kind: "collect" }>, at: number): D {
  if (t.status !== "arrived") return wrongStatus(t, "collect");
  // spec: business 3.1, shopping 1.1: a shopping order's basket is ready once its last store is
  // finished; the readiness its outbox marks after that commit may not have landed yet.
  const waiting = t.handover_required && t.ready_at === null;
  const basket = waiting && a.basket_finished === true;
  if (waiting && !basket) {
    return reject("awaiting_handover", `the store has not marked the order ready: ${t.reference}`);
  }
  const ready: TripEvent[] = basket ? [{ kind: "trip_ready", at }] : [];
  const scan = a.scan_code?.trim() || undefined;
  const force = a.force_reason?.trim() || undefined;
  if (scan !== undefined && t.scan_code !== null) {
    if (!scanMatches(t.scan_code, scan)) {
      return reject("scan_mismatch", `scan_code does not match the trip's custody label: ${scan}`);
    }
    return accept(
      [...ready, { kind: "trip_collected", at, scanned: true, override_reason: null }],
      replyOf,
    );
  }
  if (force === undefined) {
    return reject(
      "force_reason_required",
      t.scan_code === null
        ? `force_reason required: the business has no custody scanning: ${t.reference}`
        : `scan_code or force_reason required: ${t.reference}`,
    );
  }
  return accept(
    [...ready, { kind: "trip_collected", at, scanned: false, override_reason: force }],
    replyOf,
  );
}

/** spec: business 3.1 "delivery done": each requirement missing is refused, naming its field. */
function deliver(t: Trip, a: Extract<DriverAction, { kind: "deliver" }>, at: number): D {
  const refused = deliverRefusal(t, a);
  if (refused) return refused;
  const cod = t.cod_amount_minor === null ? null : a.cod_collected_amount_minor ?? null;
  return accept([{
    kind: "trip_delivered",
    at,
    age_verified: t.age_verification_required,
    cod_collected_minor: cod,
    proof: {
      id_checked: a.id_checked === true,
      proof_photo: a.proof_photo ?? null,
      signature: a.signature ?? null,
      cod_collected_minor: cod,
    },
  }], replyOf);
}

/**
 * spec: business 3.1: why the trip refuses this delivery (another driver's, not active, a
 * requirement missing), or null. The driver app's flow asks it too before it stores the proof
 * files, so a refused delivery keeps no file; only the files' presence is decided on.
 */
export function deliverRefusal(
  t: Trip,
  a: Extract<DriverAction, { kind: "deliver" }>,
): Rejection | null {
  const theirs = notTheirs(t, a.driver_id); // as drive's check
  if (theirs) return theirs;
  if (t.status !== "active" || t.returning) return wrongStatus(t, "deliver");
  return deliveryRefusal(t, a);
}

function deliveryRefusal(
  t: Trip,
  a: Extract<DriverAction, { kind: "deliver" }>,
): Rejection | null {
  if (t.delivery_code !== null) {
    if (a.delivery_code === undefined || a.delivery_code.trim() === "") {
      return reject("delivery_code_required", `delivery_code required: ${t.reference}`);
    }
    if (!deliveryCodeMatches(t.delivery_code, a.delivery_code)) {
      return reject("delivery_code_mismatch", `delivery_code does not match: ${t.reference}`);
    }
  }
  if (t.age_verification_required && a.id_checked !== true) {
    return reject(
      "id_check_required",
      `id_checked must be true on an age-restricted trip (else id_refused): ${t.reference}`,
    );
  }
  if (proofRequired(t.type) && a.proof_photo === undefined) {
    return reject("proof_photo_required", `proof_photo required: ${t.reference}`);
  }
  if (proofRequired(t.type) && a.signature === undefined) {
    return reject("signature_required", `signature required: ${t.reference}`);
  }
  // spec: business 6 cod.collected: cash is taken only where the booking asked for COD; a
  // driver saying they took some elsewhere is refused, not kept as if nothing was said.
  if (t.cod_amount_minor === null && (a.cod_collected_amount_minor ?? 0) !== 0) {
    return reject(
      "cod_amount_mismatch",
      `cod_collected_amount given on a trip without COD (nothing is due): ${t.reference}`,
    );
  }
  if (t.cod_amount_minor !== null && a.cod_collected_amount_minor !== t.cod_amount_minor) {
    const money = (minor: number | undefined) =>
      minor === undefined
        ? "none"
        : `${formatMinor(minor, t.billing_currency)} ${t.billing_currency}`;
    return reject(
      "cod_amount_mismatch",
      `cod_collected_amount must equal the COD amount: ${money(a.cod_collected_amount_minor)} ` +
        `given, ${money(t.cod_amount_minor)} due`,
    );
  }
  return null;
}

/**
 * spec: business 3.1 "accepted, driver cancels before collection: cancelled or put back for
 * another driver; trip.cancelled when it ends".
 */
function withdraw(t: Trip, a: Extract<DriverAction, { kind: "withdraw" }>, at: number): D {
  if (!["queued", "accepted", "enroute", "arrived"].includes(t.status)) {
    return wrongStatus(t, "give back");
  }
  // spec: business 3.1: the window decided at booking; a trip stored before counts it from the
  // first offer, else from when the trip could first be offered.
  const began = t.dispatch.first_offer_at ??
    Math.max(t.created_at, t.ready_at ?? 0, t.scheduled_at ?? 0);
  const endsAt = t.dispatch.window_ends_at ?? began + a.dispatch_window_ms;
  const withdrew: TripEvent = {
    kind: "driver_withdrew",
    at,
    driver_id: a.driver_id,
    reason: a.reason,
  };
  // spec: business 3.1: inside the window, pending again and offered to other drivers until the
  // window ends, when its timer cancels it by the system if nobody took it. Never a stop of a
  // batch: one driver carries the whole batch (spec: business 3.2), who keeps its other stops.
  if (a.redispatch !== false && !inBatch(t) && redispatchable(endsAt, at)) {
    return accept([withdrew], replyOf, [windowReopened(endsAt)]);
  }
  // After the window nobody may be offered it (a pending trip past its window is cancelled), nor a
  // batch's stop another driver: the giving back ends it now, the driver's cancellation,
  // refunded (spec: business 3.1 "cancelled or put back for another driver").
  return accept([withdrew, {
    kind: "trip_cancelled",
    at,
    by: "driver",
    reason: a.reason,
    refund_due: t.charge,
  }], replyOf);
}

/** A stop of a batch of several stops (a batch of one is a trip like any other). */
function inBatch(t: Trip): boolean {
  return t.batch !== undefined && t.batch.stops > 1;
}

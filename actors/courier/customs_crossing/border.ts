/**
 * The crossing at its border (courier 3.4): opened for a shipment, presented at a run's border
 * stop, the vehicle gone on without it, the exit and the entry recorded (an entry while customs
 * holds the shipment is the vehicle going on without it).
 */
import { accept, type OutboxAdd, reject } from "../../../src/runtime/actor.ts";
import { CUSTOMS_NAME_CHARS_MAX, text } from "./limits.ts";
import type {
  Crossing,
  CrossingCommand,
  CrossingEvent,
  CrossingOpening,
  CrossingReply,
  CrossingState,
  Decided,
  StopPresentation,
} from "./types.ts";
import { CUSTOMS_HOLDS } from "./delivery.ts";
import { crossingOf } from "./views.ts";

/** Opens the crossing once; the same shipment opening it again is answered the crossing. */
export function open(
  state: CrossingState,
  o: CrossingOpening,
  by: string,
  now: number,
): Decided {
  if (state !== null) {
    if (state.waybill !== o.waybill) {
      return reject("already_exists", `crossing ${o.id} belongs to another shipment`);
    }
    return accept<CrossingState, CrossingEvent, CrossingReply>([], () => crossingOf(state));
  }
  const fields = [o.waybill, o.client_id, o.country, o.to_country, o.border_post];
  if (fields.some((f) => !f?.trim() || f.length > CUSTOMS_NAME_CHARS_MAX)) {
    return reject(
      "validation_failed",
      "a crossing needs a waybill, client, country, to_country and border post",
    );
  }
  const crossing: Crossing = {
    ...o,
    status: "presented",
    opened_at: now,
    opened_by: by,
    documents: [],
    supplies: [],
    history: [],
    duties: [],
    customs_reference: null,
    cleared_at: null,
    released_at: null,
    refused_at: null,
    vehicle_left_at: null,
    released_after_departure: false,
    exit_at: null,
    entry_at: null,
    updated_at: now,
  };
  return accept<CrossingState, CrossingEvent, CrossingReply>(
    [{ kind: "crossing_opened", crossing }],
    (next) => crossingOf(next!, true),
  );
}

/** The vehicle went on without the shipment, once. */
export function vehicleLeft(state: Crossing, by: string, now: number): Decided {
  if (state.vehicle_left_at !== null) return accept([], (next) => crossingOf(next!));
  return accept([{ kind: "vehicle_left", at: now, by }], (next) => crossingOf(next!));
}

/** The border stop (3.4): the exit from one country, then the entry to the next. */
export function recordCrossing(
  state: Crossing,
  side: "exit" | "entry",
  by: string,
  now: number,
): Decided {
  if (side === "exit") {
    if (state.exit_at !== null) return accept([], (next) => crossingOf(next!));
    return accept([{ kind: "crossed", side, at: now, by }], (next) => crossingOf(next!));
  }
  if (state.entry_at !== null) return accept([], (next) => crossingOf(next!));
  if (state.exit_at === null) {
    return reject(
      "entry_before_exit",
      `the exit from ${state.country} is recorded before the entry to ${state.to_country}`,
    );
  }
  if (state.status === "refused") {
    return reject("crossing_closed", `crossing ${state.id} was refused: no entry is recorded`);
  }
  // spec: courier 3.4, 2.9: the vehicle enters without what customs holds (for papers too): the
  // shipment stays at the border, so a release later awaits collection and sends nothing out
  // for delivery on the run that went on.
  if (state.status === "held" || state.status === "documents_requested") {
    return vehicleLeft(state, by, now);
  }
  return accept([{ kind: "crossed", side, at: now, by }], (next) => crossingOf(next!));
}

/**
 * A crossing opened at booking (no stop yet) takes the first border stop it is presented at and
 * that stop's post (CONTRACT: one crossing at booking), so presenting it opens no second crossing
 * and books no second clearance. The same stop again is a replay; another stop is refused
 * (`presented_elsewhere`): the shipment is crossing another border, a crossing of its own.
 */
export function present(state: Crossing, p: StopPresentation, now: number): Decided {
  if (state.stop_id === p.stop_id && state.run_id === p.run_id) {
    return accept([], () => crossingOf(state));
  }
  if (state.stop_id !== null) {
    return reject(
      "presented_elsewhere",
      `crossing ${state.id} was presented at stop ${state.stop_id} of run ${state.run_id}`,
    );
  }
  const at_stop = {
    ...p,
    border_post: text(p.border_post, CUSTOMS_NAME_CHARS_MAX) ?? state.border_post,
    country: text(p.country, CUSTOMS_NAME_CHARS_MAX) ?? state.country,
    to_country: text(p.to_country, CUSTOMS_NAME_CHARS_MAX) ?? state.to_country,
  };
  return accept([{ kind: "presented_at_stop", at_stop, at: now }], (next) => crossingOf(next!));
}

/**
 * spec: courier 3.4: the driver presents the vehicle with what it carries. A border stop whose load
 * changed before it was recorded (`border_load_changed`) went on without a shipment it presented:
 * the crossing it got at booking is bound to that stop no more, so the run carrying the shipment
 * now presents it (no second crossing, no second clearance). Only while nothing happened there
 * (no exit, no entry, the vehicle not gone on, customs not holding it: a shipment customs holds
 * stays presented where it is held, its clearance running on); another stop's presentation, or
 * none, is left.
 */
export function withdrawPresentation(
  state: Crossing,
  c: Extract<CrossingCommand, { kind: "withdraw_presentation" }>,
  now: number,
): Decided {
  const bound = state.run_id === c.run_id && state.stop_id === c.stop_id;
  const before = state.before_stop ?? null;
  const happenedHere = state.exit_at !== null || state.entry_at !== null ||
    state.vehicle_left_at !== null || CUSTOMS_HOLDS.has(state.status);
  if (!bound || before === null || happenedHere) return accept([], (next) => crossingOf(next!));
  return accept([{
    kind: "presentation_withdrawn",
    run_id: c.run_id,
    stop_id: c.stop_id,
    border: before,
    at: now,
    by: c.by,
  }], (next) => crossingOf(next!));
}

/**
 * The outbox a crossing's withdrawn presentation tells the shipment through
 * (src/courier/reactors/presentations_withdrawn.ts): the request that withdrew it tells it next,
 * and a request that stopped in between is finished from this commit, which no retry of it could
 * do (nothing it reads names the shipment that left).
 */
export const PRESENTATION_WITHDRAWN_OUTBOX = "courier_presentation_withdrawn";

/** A presentation withdrawn from the crossing: the shipment's to withdraw too (courier 3.2). */
export interface WithdrawnPresentation {
  readonly waybill: string;
  readonly crossing_id: string;
  readonly run_id: string;
  readonly stop_id: string;
  readonly by: string;
}

/** spec: courier 3.4, 3.2: the commit withdrawing a presentation adds the shipment's item. */
export function withdrawnOnShipment(event: CrossingEvent, next: CrossingState): OutboxAdd[] {
  if (event.kind !== "presentation_withdrawn" || next === null) return [];
  const payload: WithdrawnPresentation = {
    waybill: next.waybill,
    crossing_id: next.id,
    run_id: event.run_id,
    stop_id: event.stop_id,
    by: event.by,
  };
  return [{ outbox: PRESENTATION_WITHDRAWN_OUTBOX, payload }];
}

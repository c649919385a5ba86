/**
 * An outbound event delivered at its first attempt, kept as one delivery-log row instead of an
 * actor (issue 36 item 2): the outbox handler makes the attempt before any actor exists, and
 * only a failure, a missing endpoint, a requeue or an acknowledgement makes the actor. The row
 * holds what the actor would have held; its state is the actor's own events applied, so a read of
 * the row answers exactly what the actor would have answered, and an actor made from it later
 * starts from that state.
 */
import { evolve } from "./evolve.ts";
import type { AttemptRecord, NewOutboundEvent, OutboundEvent } from "./types.ts";

/** What a delivery-log row keeps of an event delivered at its first attempt. */
export interface DeliveredAtFirst {
  readonly event: NewOutboundEvent;
  readonly created_at: number;
  /** The first attempt; delivered. */
  readonly attempt: AttemptRecord;
}

/** The state the actor would hold: made, its first attempt recorded, delivered. */
export function stateOfLog(log: DeliveredAtFirst): OutboundEvent {
  if (log.attempt.outcome.result !== "delivered") {
    throw new TypeError(`a delivery-log row is a delivered event: ${log.attempt.outcome.result}`);
  }
  const made = evolve(null, { kind: "created", event: log.event, at: log.created_at });
  const recorded = evolve(made, { kind: "attempt_recorded", attempt: log.attempt });
  return evolve(recorded, { kind: "event_delivered", at: log.attempt.at })!;
}

/**
 * Outbound events no actor holds (issue 36 item 2), each kept as one row of the delivery log:
 * one delivered at its first attempt (the outbox handler made the attempt before any actor
 * existed), and a charge's event made while its recipient has no endpoint, which waits (courier
 * 3.1) and is retried hourly with the other waiting events of its courier (billing_wait.ts), not
 * on a timer of its own. The row holds what the actor would have held: its state is the actor's
 * own events applied, so a read of the row answers exactly what the actor would have answered,
 * and an actor made from it later (an endpoint set, a requeue, an acknowledgement) starts from
 * that state.
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

/** What a delivery-log row keeps of an event waiting for an endpoint (nothing sent yet). */
export interface WaitingForEndpoint {
  readonly event: NewOutboundEvent;
  readonly created_at: number;
  /** When its last try (its creation, then each hourly retry) found no endpoint. */
  readonly missing_at: number;
  /** When it is tried again. */
  readonly retry_at: number;
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

/** The state the actor would hold: made with no endpoint, noted missing at its last try. */
export function stateOfWaiting(log: WaitingForEndpoint): OutboundEvent {
  const made = evolve(null, { kind: "created", event: log.event, at: log.created_at });
  const missing = { kind: "endpoint_missing", at: log.missing_at, retry_at: log.retry_at } as const;
  return evolve(made, missing)!;
}

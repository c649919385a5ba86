/** What the bus and the lists carry of an outbound event: no body, no secret. */
import { NO_ENDPOINT_RETRY_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import type {
  Acknowledgement,
  AttemptRecord,
  EntryLink,
  OutboundEvent,
  OutboundStatus,
  OutboundStream,
  Recipient,
  RequeueRecord,
} from "./types.ts";

/** What the bus carries: no body, no secret. */
export interface OutboundEventSummary {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly status: OutboundStatus;
  readonly attempts_total: number;
  readonly next_attempt_at: number | null;
  readonly last_attempt: AttemptRecord | null;
  readonly created_at: number;
  readonly recipient: Recipient | null;
  readonly entry: EntryLink | null;
  /** OutboundEvent.client_id, else its entry's; null for neither. */
  readonly client_id: string | null;
  readonly endpoint_missing_at: number | null;
  /** OutboundEvent.endpoint_waited_at; absent from changes published before it was kept. */
  readonly endpoint_waited_at?: number | null;
  readonly acknowledgement: Acknowledgement | null;
  readonly requeues: readonly RequeueRecord[];
  /** OutboundEvent.requeues_total: each requeue starts a round whose failure is its own alert. */
  readonly requeues_total: number;
}

/**
 * spec: courier 3.1: whether an attempt that found no endpoint at `missingAt` was an hourly retry,
 * not the first try: only then may billing_endpoint_missing have been raised (at the first try the
 * entry has had no time to go out in a CSV export). Once true, true for every later attempt.
 */
export function waitedForEndpoint(
  s: Pick<OutboundEventSummary, "created_at">,
  missingAt: number | null | undefined,
): boolean {
  return missingAt != null && missingAt - s.created_at >= NO_ENDPOINT_RETRY_MS;
}

/** Requeues ever made (events made before the count was kept: those their history holds). */
export function requeuesTotal(s: Pick<OutboundEvent, "requeues" | "requeues_total">): number {
  return s.requeues_total ?? s.requeues.length;
}

export function summaryOf(s: OutboundEvent): OutboundEventSummary {
  return {
    event_id: s.event_id,
    stream: s.stream,
    event_type: s.event_type,
    status: s.status,
    attempts_total: s.attempts_total,
    next_attempt_at: s.next_attempt_at,
    last_attempt: s.attempts.at(-1) ?? null,
    created_at: s.created_at,
    recipient: s.recipient ?? null,
    entry: s.entry ?? null,
    client_id: s.client_id ?? s.entry?.client_id ?? null,
    endpoint_missing_at: s.endpoint_missing_at ?? null,
    endpoint_waited_at: s.endpoint_waited_at ?? s.endpoint_missing_at ?? null,
    acknowledgement: s.acknowledgement ?? null,
    requeues: s.requeues,
    requeues_total: requeuesTotal(s),
  };
}

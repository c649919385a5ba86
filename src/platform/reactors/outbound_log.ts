/**
 * What an outbound attempt leaves in the log and the metrics: one line per attempt (the event,
 * the attempt, its outcome; a failure's kind, never its text, which may quote the target's
 * address, nor the body or the signature), and the count of attempts by outcome.
 *
 * The request that caused the event is named when the event was made from the change the
 * request's commands made (a reactor passes on ActorChange.request_id); an event made otherwise
 * (a sweep, a change of several requests' commands) names none. The event id is the other
 * link: the tenant's API shows it with the resource it concerns.
 */
import type { AttemptOutcome, OutboundEvent } from "../../../actors/platform/outbound_event/mod.ts";
import type { Logger } from "../../observe/log.ts";
import type { Metrics } from "../../observe/metrics.ts";

export interface AttemptObserver {
  readonly log: Logger;
  readonly metrics: Metrics;
}

export function observeAttempt(
  o: AttemptObserver,
  tenant: string,
  event: Pick<OutboundEvent, "event_id" | "event_type" | "stream" | "request_id">,
  attemptId: string | null,
  outcome: AttemptOutcome,
): void {
  o.metrics.outbound.inc({ outcome: outcome.result });
  const line = {
    event: "outbound_attempt",
    tenant_id: tenant,
    event_id: event.event_id,
    event_type: event.event_type,
    stream: event.stream,
    attempt_id: attemptId,
    request_id: event.request_id ?? null,
    outcome: outcome.result,
    ...(outcome.result === "no_endpoint" ? {} : { http_status: outcome.http_status }),
    ...(outcome.result === "failed" ? { failure: failureKind(outcome.error) } : {}),
  };
  if (outcome.result === "failed") o.log.warn(line, "outbound attempt failed");
  else o.log.info(line, "outbound attempt");
}

/** An event whose every attempt failed (courier 6.3 raises its alert). */
export function observeEventFailed(o: AttemptObserver, tenant: string, eventId: string): void {
  o.log.warn(
    { event: "outbound_failed", tenant_id: tenant, event_id: eventId },
    "outbound event failed",
  );
}

/** `timeout`, `fetch_failed`, `url_refused`...: the text before its first colon. */
function failureKind(error: string | null): string {
  if (error === null) return "http_status";
  return error.split(":", 1)[0]!.trim();
}

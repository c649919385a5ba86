/**
 * What an outbound event's change raises for the documents (courier 2.9, 3.1, 6.3): an event that
 * failed its whole schedule, found no endpoint, or was delivered or failed after waiting for one.
 * Read from the change alone: no ask, no read.
 */
import {
  type OutboundEventSummary,
  waitedForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";

/** Raises (or resolves) an operations alert about one outbound event. */
export type AlertCallback = (
  tenant: string,
  event: OutboundEventSummary,
) => void | Promise<void>;

export interface AlertCallbacks {
  /** Called once an event has failed its whole schedule (raise the operations alert). */
  readonly onFailed?: AlertCallback;
  /** Called when an attempt found no endpoint configured (courier 3.1). */
  readonly onEndpointMissing?: AlertCallback;
  /**
   * Called once an event that an hourly retry found with no endpoint is delivered (resolve the
   * alert its wait raised); never for one that did not wait, so a delivery costs nothing more.
   */
  readonly onDeliveredAfterWait?: AlertCallback;
  /**
   * Called once an event that an hourly retry found with no endpoint then fails its whole
   * schedule at the endpoint set since (close or update the alert its wait raised: it no longer
   * waits, and `onFailed` raises its failure); never for one that did not wait.
   */
  readonly onFailedAfterWait?: AlertCallback;
}

/** One alert a change calls for: the callback's name (for the report) and the callback. */
export interface DueAlert {
  readonly name: string;
  readonly raise: AlertCallback;
}

/** The alert callbacks a change calls for. */
export function alertsOf(change: ActorChange, callbacks: AlertCallbacks): DueAlert[] {
  if (change.snapshot === undefined) return [];
  const kinds = new Set(change.events.map((e) => (e.event as { kind?: unknown }).kind));
  const { onFailed, onEndpointMissing, onDeliveredAfterWait, onFailedAfterWait } = callbacks;
  const event = change.snapshot as OutboundEventSummary;
  const failed = kinds.has("event_failed");
  // spec: courier 2.9, 3.1: only an event an hourly retry found waiting may have an alert to
  // resolve; every other delivery (the booking hot path) costs nothing more. A change published
  // before `endpoint_waited_at` was kept says no wait (the delivery cleared endpoint_missing_at).
  const waited = (kinds.has("event_delivered") || failed) &&
    waitedForEndpoint(event, event.endpoint_waited_at);
  const due: DueAlert[] = [];
  if (failed && onFailed) due.push({ name: "onFailed", raise: onFailed });
  if (kinds.has("endpoint_missing") && onEndpointMissing) {
    due.push({ name: "onEndpointMissing", raise: onEndpointMissing });
  }
  if (waited && !failed && onDeliveredAfterWait) {
    due.push({ name: "onDeliveredAfterWait", raise: onDeliveredAfterWait });
  }
  // issue 42 item 4: a wait that ended in a failed schedule leaves no alert saying it still waits.
  if (waited && failed && onFailedAfterWait) {
    due.push({ name: "onFailedAfterWait", raise: onFailedAfterWait });
  }
  return due;
}

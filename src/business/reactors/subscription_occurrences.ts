/**
 * Recurring deliveries (Business API 4.2): each occurrence a subscription's timer brought due is
 * booked once its commit is done, and again by the outbox's sweep after a crash or a failure (the
 * booking flow answers the trip already booked under the occurrence's key, so it is booked once).
 */
import type { OccurrenceItem } from "../../../actors/business/subscription.ts";
import type { Deps, Reactor } from "../../environment.ts";
import { bookOccurrence } from "../flows/subscriptions.ts";
import type { CompleteDeps } from "../flows/complete_booking.ts";
import { OCCURRENCE_OUTBOX } from "../rules/subscription.ts";

export function startSubscriptionOccurrences(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "referenceKey"> & Pick<CompleteDeps, "numbers">,
): Reactor {
  const release = deps.runtime.handleOutbox(
    OCCURRENCE_OUTBOX,
    (i) => bookOccurrence(deps, { ...i.payload as OccurrenceItem, attempts: i.attempts ?? 0 }),
  );
  return {
    close() {
      release();
      return Promise.resolve();
    },
  };
}

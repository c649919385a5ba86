/**
 * Later charges the shipment keeps due until the ledger has booked them (courier 2.6 rules 2, 3;
 * src/courier/rules/charges_due.ts).
 */
import { accept } from "../../../src/runtime/actor.ts";
import { confirmation, dueAgain } from "../../../src/courier/rules/charges_due.ts";
import type { ChargeDue, Decided, Shipment } from "./types.ts";

/** The charges due; none on shipments stored before they were kept. */
export function chargesDueOf(s: Shipment): readonly ChargeDue[] {
  return s.charges_due ?? [];
}

/**
 * Books again what is still due (courier 2.6 rules 2, 3): a charge whose scan's request died, or
 * whose booking failed, is due again one retry later, and then again, until the ledger confirms.
 */
export function chargesDueAgain(state: Shipment, now: number): Decided {
  const { events, timers } = dueAgain(chargesDueOf(state), now);
  return accept(events, undefined, timers);
}

/** The ledger booked these charges (by source event): they are no longer due. */
export function confirmCharges(
  state: Shipment,
  sourceEvents: readonly string[],
  now: number,
): Decided {
  const { confirmed, timers } = confirmation(chargesDueOf(state), sourceEvents);
  if (confirmed.length === 0) return accept([], () => state);
  return accept(
    [{ kind: "charges_confirmed", source_events: confirmed, at: now }],
    (next) => next!,
    timers,
  );
}

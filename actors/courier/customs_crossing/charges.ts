/**
 * Later charges a crossing's moves cause (courier 2.6 rules 2, 3; 6.1): the clearance's
 * customs-administration fee and duties the client pays, kept due until the ledger books them
 * (src/courier/rules/charges_due.ts).
 */
import { accept } from "../../../src/runtime/actor.ts";
import { confirmation, dueAgain } from "../../../src/courier/rules/charges_due.ts";
import type { Crossing, CrossingChargeDue, Decided } from "./types.ts";
import { crossingOf } from "./views.ts";

/** The source event of the `n`th duties of a crossing (courier 6.1): `:<n>` from the second on. */
export function dutySourceEvent(crossingId: string, n: number): string {
  return `customs.duties:${crossingId}${n === 1 ? "" : `:${n}`}`;
}

/** The source event of a crossing's customs-administration charge (courier 6.1). */
export function clearanceSourceEvent(crossingId: string): string {
  return `customs.cleared:${crossingId}`;
}

/** The charges due; none on crossings stored before they were kept. */
export function chargesDueOf(c: Crossing): readonly CrossingChargeDue[] {
  return c.charges_due ?? [];
}

/**
 * Books again what is still due (courier 2.6 rules 2, 3): a charge whose move's request died, or
 * whose booking failed, is due again one retry later, and then again, until the ledger confirms.
 */
export function chargesDueAgain(state: Crossing, now: number): Decided {
  const { events, timers } = dueAgain(chargesDueOf(state), now);
  return accept(events, undefined, timers);
}

/** The ledger booked these charges (by source event): they are no longer due. */
export function confirmCharges(
  state: Crossing,
  sourceEvents: readonly string[],
  now: number,
): Decided {
  const { confirmed, timers } = confirmation(chargesDueOf(state), sourceEvents);
  if (confirmed.length === 0) return accept([], (next) => crossingOf(next!));
  return accept(
    [{ kind: "charges_confirmed", source_events: confirmed, at: now }],
    (next) => crossingOf(next!),
    timers,
  );
}

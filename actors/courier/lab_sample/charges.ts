/**
 * The cold-chain charge a sample's profile causes (courier 2.6 rules 2, 3; 2.10), kept due in the
 * sample from the profile's own commit until the ledger books it (src/courier/rules/charges_due.ts),
 * so a request that dies, or whose booking fails, after the profile loses nothing.
 */
import { accept, type TimerOp } from "../../../src/runtime/actor.ts";
import { chargeRetry, confirmation, dueAgain } from "../../../src/courier/rules/charges_due.ts";
import { whole } from "./accepted.ts";
import type {
  Decided,
  LabChargeDue,
  LabProfile,
  LabSample,
  LabSampleEvent,
  LabSampleReply,
  LabSampleState,
} from "./types.ts";

/** The source event of a sample's cold-chain charge: it books once (courier 2.6 rule 2). */
export function coldChainSourceEvent(waybill: string): string {
  return `sample.cold_chain:${waybill}`;
}

/** The charges due; none on samples stored before they were kept. */
export function chargesDueOf(s: LabSample): readonly LabChargeDue[] {
  return s.charges_due ?? [];
}

/**
 * The charge a profile makes due: the cold-chain charge when it makes the sample cold chain and
 * it was not (its source event books it once however often it comes due), and the retry timer.
 */
export function coldChainDue(
  state: LabSampleState,
  next: LabProfile,
  waybill: string,
  by: string,
  now: number,
): { events: LabSampleEvent[]; timers: TimerOp[] } {
  const cold = next.min_tenths !== null || next.max_tenths !== null;
  if (!cold || state?.cold_chain) return { events: [], timers: [] };
  const charge: LabChargeDue = { source_event: coldChainSourceEvent(waybill), by };
  const armed = state !== null && chargesDueOf(state).length > 0;
  return { events: [{ kind: "charge_due", charge }], timers: armed ? [] : [chargeRetry(now)] };
}

/** The charge timer fired: what is still due is due again, until the ledger confirms it. */
export function chargesDueAgain(state: LabSample, now: number): Decided {
  const { events, timers } = dueAgain(chargesDueOf(state), now);
  return accept<LabSampleState, LabSampleEvent, LabSampleReply>(events, undefined, timers);
}

/** The ledger booked these charges (by source event): they are no longer due. */
export function confirmCharges(state: LabSample, sourceEvents: readonly string[]): Decided {
  const { confirmed, timers } = confirmation(chargesDueOf(state), sourceEvents);
  const events: LabSampleEvent[] = confirmed.length === 0
    ? []
    : [{ kind: "charges_confirmed", source_events: confirmed }];
  return whole(events, timers);
}

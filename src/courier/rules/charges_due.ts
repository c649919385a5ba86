/**
 * Later charges an actor keeps due in its own state until the ledger has booked them (courier 2.6
 * rules 2, 3): the shipment, for the charges its scans cause; the customs crossing, for a
 * clearance's fee. The commit that causes a charge records it due (a `charge_due` event, read by
 * the worker in src/courier/reactors/due_charges.ts) and arms the actor's `charge` timer; each time the
 * timer fires, what is still due is due again, until `confirm_charges` names it booked. The pure
 * part both actors share; each keeps its own command and event types.
 */
import { SCAN_CHARGE_RETRY_MS } from "../../limits.ts";
import type { TimerOp } from "../../runtime/actor.ts";

/** A charge as its actor keeps it due. */
export interface DueCharge {
  /** The charge's source event: it books once however often it is sent (2.6 rule 2). */
  readonly source_event: string;
}

/** The timer that makes what is still due due again. */
export const CHARGE_TIMER = "charge";

/** Sets the retry: armed by the first charge due (one already due has armed it). */
export function chargeRetry(now: number): TimerOp {
  return { op: "set", name: CHARGE_TIMER, at: now + SCAN_CHARGE_RETRY_MS };
}

/** The charge timer fired: each charge still due is due again, and the timer set again. */
export function dueAgain<C extends DueCharge>(due: readonly C[], now: number) {
  return due.length === 0 ? { events: [], timers: [] } : {
    events: due.map((charge) => ({ kind: "charge_due" as const, charge })),
    timers: [chargeRetry(now)],
  };
}

/**
 * The source events of `sourceEvents` that are due (each once): those confirmed booked; and the
 * timer to cancel when none is left due.
 */
export function confirmation(due: readonly DueCharge[], sourceEvents: readonly string[]) {
  const confirmed = [...new Set(sourceEvents)].filter((e) => due.some((c) => c.source_event === e));
  const left = due.length - confirmed.length;
  const timers: TimerOp[] = confirmed.length > 0 && left === 0
    ? [{ op: "cancel", name: CHARGE_TIMER }]
    : [];
  return { confirmed, timers };
}

/** `due` with `charge` due too: one per source event. */
export function withDue<C extends DueCharge>(due: readonly C[], charge: C): readonly C[] {
  return due.some((c) => c.source_event === charge.source_event) ? due : [...due, charge];
}

/** `due` without the charges confirmed booked. */
export function withoutConfirmed<C extends DueCharge>(
  due: readonly C[],
  sourceEvents: readonly string[],
): readonly C[] {
  return due.filter((c) => !sourceEvents.includes(c.source_event));
}

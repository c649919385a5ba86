/** The manual clock (CONTRACT "Operator API": POST /operator/clock/advance; tests only). */
import type { Deps } from "../../environment.ts";
import { refuse } from "../../runtime/actor.ts";
import { ManualClock } from "../../runtime/clock.ts";

export interface ClockAdvanced {
  /** Epoch milliseconds after the move. */
  readonly now: number;
  /** Durable timers that came due and fired before the answer. */
  readonly timers_fired: number;
}

/**
 * Moves the manual clock forward; due timers fire, what they published is handled, and outbound
 * attempts then due are made, all before it answers. Refused unless started with CLOCK=manual.
 */
export async function advanceClock(
  deps: Pick<Deps, "clock" | "runtime" | "bus"> & { pump(): Promise<void> },
  seconds: number,
): Promise<ClockAdvanced> {
  const clock = deps.clock;
  if (!(clock instanceof ManualClock)) {
    refuse("clock_not_manual", "the clock can be advanced only with CLOCK=manual");
  }
  clock.advanceBy(seconds * 1000);
  // Leases are counted by this clock: renewed at once, or they would lapse at the jump.
  await deps.runtime.placement.renew?.();
  const fired = await deps.runtime.fireDueTimers();
  await deps.bus.flush();
  await deps.pump(); // deliveries whose attempt came due
  return { now: clock.now(), timers_fired: fired };
}

/** How the crossing's decisions that add to it are accepted: within its stored size. */
import { accept, reject, type TimerOp } from "../../../src/runtime/actor.ts";
import { evolve } from "./evolve.ts";
import { CROSSING_BYTES_MAX } from "./limits.ts";
import type { Crossing, CrossingEvent, CrossingReply, CrossingState, Decided } from "./types.ts";

/** Accepts the events unless the crossing they leave would be too large to store. */
export function checked(
  state: Crossing,
  events: CrossingEvent[],
  reply: (next: CrossingState) => CrossingReply,
  timers: readonly TimerOp[] = [],
): Decided {
  const next = events.reduce<CrossingState>(evolve, state);
  const bytes = new TextEncoder().encode(JSON.stringify(next)).length;
  if (bytes > CROSSING_BYTES_MAX) {
    return reject("customs_moves_limit", `crossing ${state.id} is full: ${bytes} bytes`);
  }
  return accept(events, reply, timers);
}

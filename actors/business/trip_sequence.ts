/**
 * The integer trip ids of one business (Business API 2.2 `id`): unique, handed out in blocks.
 * Tenant = id = the business. An instance reserves a block (`reserve`) and numbers its bookings
 * from it in memory, in booking order (src/business/flows/trip_numbers.ts), so a booking costs no
 * commit here. Numbers of a block an instance never used up (it stopped or crashed), of a booking
 * that crashed before its trip's commit, or of a second completion of one claim are gaps, never a
 * reuse; two instances' blocks never overlap, so one business booked through both gets unique ids
 * that interleave.
 * `next` (one number, asked under the booking's own idempotency key) is kept for commands stored
 * or forwarded by older instances.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

/** Numbers in one block at most: a block is numbers held in one instance's memory. */
export const TRIP_NUMBERS_BLOCK_MAX = 1_000;

export interface TripSequence {
  /** The last number given (0: none yet). */
  readonly last: number;
}

export type TripSequenceCommand = { kind: "next" } | { kind: "reserve"; count: number };
/** The last number given is now `n`. */
export type TripSequenceEvent = { kind: "numbered"; n: number };

export const tripSequenceActor: ActorDefinition<
  TripSequence,
  TripSequenceCommand,
  TripSequenceEvent,
  number
> = {
  type: "business_trip_sequence",
  version: 1,
  initial: { last: 0 },
  decide(state, command) {
    switch (command.kind) {
      case "next":
        return accept([{ kind: "numbered", n: state.last + 1 }], (s) => s.last);
      case "reserve": {
        // The reply is the block's first number: `count` numbers from it are the caller's.
        const { count } = command;
        if (!Number.isSafeInteger(count) || count < 1 || count > TRIP_NUMBERS_BLOCK_MAX) {
          return reject("invalid_block", `a block holds 1 to ${TRIP_NUMBERS_BLOCK_MAX}: ${count}`);
        }
        const n = state.last + count;
        if (!Number.isSafeInteger(n)) {
          return reject("sequence_exhausted", `trip numbers exhausted at ${state.last}`);
        }
        return accept([{ kind: "numbered", n }], (s) => s.last - count + 1);
      }
      case "timer":
        return accept([], (s) => s.last);
      default:
        return unreachable(command);
    }
  },
  evolve: (_s, e) => ({ last: e.n }),
  // The state is the last number: the log would only repeat it.
  logEvents: false,
  publishEvents: false,
};

/**
 * The integer trip ids of one business (Business API 2.2 `id`): 1, 2, 3... in booking order.
 * Tenant = id = the business. A booking asks under its own idempotency key, so a retry or the
 * completing sweep gets the number it was given; a refused booking leaves a gap.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";

export interface TripSequence {
  readonly last: number;
}

export type TripSequenceCommand = { kind: "next" };
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

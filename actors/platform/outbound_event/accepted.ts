/** How an outbound event's decisions answer: the events accepted and the event after them. */
import { accept, type TimerOp } from "../../../src/runtime/actor.ts";
import type { OutboundEventEvent, OutboundEventReply, OutboundEventState } from "./types.ts";

export type Result = ReturnType<
  typeof accept<OutboundEventState, OutboundEventEvent, OutboundEventReply>
>;

const whole = (s: OutboundEventState): OutboundEventReply => s ?? undefined;

export function ok(events: OutboundEventEvent[], timers?: TimerOp[]): Result {
  return accept<OutboundEventState, OutboundEventEvent, OutboundEventReply>(events, whole, timers);
}

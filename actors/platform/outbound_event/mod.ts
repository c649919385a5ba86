/**
 * One outbound event (courier 3.1 "Event delivery", 6.1, 6.2): a billing event to the courier's
 * system or a client webhook. Tenant = owner business id, id = event id. The raw body is fixed at
 * creation and sent byte for byte on every attempt; the signing secret is held sealed only.
 *
 * The `attempt` timer says when an attempt is due. The actor cannot do I/O: when the timer fires
 * (and at creation, for the first attempt) it records `attempt_due` (which the runtime publishes
 * on the bus, where `OutboundDelivery` picks it up) and re-arms the timer one lease later, so an
 * attempt lost with its process is due again. `record_attempt` then moves the timer to the next
 * retry, or clears it.
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { OUTBOUND_STATE_BYTES_MAX } from "../../../src/platform/rules/delivery_schedule.ts";
import { decide } from "./decide.ts";
import { evolve } from "./evolve.ts";
import { summaryOf } from "./summary.ts";
import type {
  OutboundEventCommand,
  OutboundEventEvent,
  OutboundEventReply,
  OutboundEventState,
} from "./types.ts";

export * from "./types.ts";
export * from "./summary.ts";
export * from "./log.ts";

export const outboundEventActor: ActorDefinition<
  OutboundEventState,
  OutboundEventCommand,
  OutboundEventEvent,
  OutboundEventReply
> = {
  type: "outbound_event",
  noun: "event",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : summaryOf(s),
  // spec: courier 6.1: a body up to OUTBOUND_BODY_BYTES_MAX (a completion listing every
  // adjustment) is held, over several store values.
  stateBytesMax: OUTBOUND_STATE_BYTES_MAX,
  // The body is kept once, in the state: the log and the bus get the creation without it (its
  // size said instead), so a large body is neither written twice in one commit nor published.
  // Nor does a fixed target's signing secret leave the state, sealed or not (what the bus
  // carries: no body, no secret).
  logged: (e) => {
    if (e.kind !== "created") return e;
    const { raw_body, target, ...event } = e.event;
    const bytes = new TextEncoder().encode(raw_body).length;
    const where = target ? { target: { url: target.url, key_id: target.key_id } } : {};
    return { ...e, event: { ...event, ...where, raw_body_bytes: bytes } };
  },
  // A report kept under its attempt id (one store value, at most 64 KiB) answers no event on
  // replay: the body would not fit; the event is read with `get`.
  keptReply: () => undefined,
};

/** What the client account's decisions share: an acceptance whose reply is the client. */
import { accept, type Decision } from "../../../src/runtime/actor.ts";
import type { CourierClientEvent, CourierClientReply, CourierClientState } from "./messages.ts";

export type D = Decision<CourierClientState, CourierClientEvent, CourierClientReply>;

/** The client as it stands after the events: the reply of most commands. */
const whole = (s: CourierClientState) => s ?? undefined;

export function ok(
  events: CourierClientEvent[],
  reply?: (s: CourierClientState) => CourierClientReply,
): D {
  return accept(events, reply ?? whole);
}

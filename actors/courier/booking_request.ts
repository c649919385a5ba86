/**
 * One idempotent booking request of a client (courier 4.6: POST /client/shipments, bulk rows, CSV
 * lines), keyed by the client and the request's identity (an idempotency key or the
 * client_order_reference). It binds the identity to one offer reference, and so to one waybill
 * (the waybill derives from the offer): the same request again books nothing new. A refused
 * booking releases the binding, so a corrected request can be sent under the same identity.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export interface BookingRequest {
  /** The offer this request books; null while the identity is free. */
  readonly reference: string | null;
  /** SHA-256 of the request as first sent: the same identity with another request is refused. */
  readonly fingerprint: string | null;
  /** When it was bound; 0 for a binding made before this was recorded (long ago by now). */
  readonly begun_at?: number;
}

export type BookingRequestCommand =
  | { kind: "begin"; reference: string; fingerprint: string }
  | { kind: "release"; reference: string }
  /** What the identity is bound to, with the request's fingerprint; free: not_found. */
  | { kind: "get" };

export type BookingRequestEvent =
  | { kind: "begun"; reference: string; fingerprint: string; at?: number }
  | { kind: "released"; reference: string };

/** `resumed`: the identity was already bound (a retry, or a request still in flight). */
export type BookingRequestReply = {
  readonly reference: string;
  readonly resumed: boolean;
  /** `get` only: the fingerprint of the request bound. */
  readonly fingerprint?: string;
};

export function bookingRequestId(clientId: string, identity: string): string {
  return `${clientId}:${identity}`;
}

export const bookingRequestActor: ActorDefinition<
  BookingRequest,
  BookingRequestCommand,
  BookingRequestEvent,
  BookingRequestReply | undefined
> = {
  type: "booking_request",
  version: 1,
  initial: { reference: null, fingerprint: null },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "begin": {
        const { reference, fingerprint } = command;
        if (state.reference === null) {
          return accept([{ kind: "begun", reference, fingerprint, at: ctx.now }], () => ({
            reference,
            resumed: false,
          }));
        }
        if (state.fingerprint !== fingerprint) {
          // When it was bound tells a request still under way from one that stopped for good.
          return reject("idempotency_key_reused", "this identity was sent with another request", {
            reference: state.reference,
            begun_at: state.begun_at ?? 0,
          });
        }
        const bound = state.reference;
        return accept([], () => ({ reference: bound, resumed: true }));
      }
      case "release":
        if (state.reference !== command.reference) {
          // Bound meanwhile to another attempt's prices: answered them, so that the attempt
          // releasing begins again and answers what the identity holds now (flows/booking/request.ts).
          const bound = state.reference;
          return bound === null
            ? accept([])
            : accept([], () => ({ reference: bound, resumed: true }));
        }
        return accept([{ kind: "released", reference: command.reference }]);
      case "get": {
        const { reference, fingerprint } = state;
        if (reference === null) return reject("not_found", "no request holds this identity");
        return accept([], () => ({ reference, resumed: true, fingerprint: fingerprint ?? "" }));
      }
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(_state, event) {
    return event.kind === "begun"
      ? { reference: event.reference, fingerprint: event.fingerprint, begun_at: event.at ?? 0 }
      : { reference: null, fingerprint: null };
  },
  // Internal bookkeeping: the shipment and the ledger carry what integrators read.
  publishEvents: false,
  logEvents: false,
};

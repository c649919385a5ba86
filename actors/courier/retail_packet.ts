/**
 * One packet of the retail packet programme (courier 4.6 `POST /client/stores/{store}/packets/
 * {action}`): stocked in a client's store, sold to a customer, refunded (only while sold) or
 * activated with the customer's details, accepted back packed, handed over to the courier's
 * driver. One actor per packet, keyed by the client and the packet code, so a code is one packet
 * of the client whichever store it is in; the store's counts come from the projection.
 *
 * Every action is idempotent per (packet, action): sending an action the packet already went
 * through answers the packet as it is now; sent with other details (another sale reference,
 * activation or weight) it is refused packet_conflict. An action out of order is refused with the
 * state and the actions allowed from it, and changes nothing.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";

export const PACKET_ACTIONS = [
  "stock",
  "sell",
  "refund",
  "activate",
  "accept",
  "hand-over",
] as const;
export type PacketAction = typeof PACKET_ACTIONS[number];

export const PACKET_STATES = [
  "in_stock",
  "sold",
  "refunded",
  "activated",
  "accepted",
  "handed_over",
] as const;
export type PacketState = typeof PACKET_STATES[number];

export const PACKET_CODE_PATTERN = /^[A-Za-z0-9._-]{1,40}$/;
/** Notes and references on an action. */
export const PACKET_TEXT_CHARS_MAX = 500;

/** The machine: the state an action needs (null: the packet does not exist yet) and leads to. */
export const PACKET_TRANSITIONS: Readonly<
  Record<PacketAction, { readonly from: PacketState | null; readonly to: PacketState }>
> = {
  stock: { from: null, to: "in_stock" },
  sell: { from: "in_stock", to: "sold" },
  // Only a sold packet, before activation, is refunded.
  refund: { from: "sold", to: "refunded" },
  activate: { from: "sold", to: "activated" },
  accept: { from: "activated", to: "accepted" },
  "hand-over": { from: "accepted", to: "handed_over" },
};

/** The actions allowed from a state. */
export function allowedActions(state: PacketState | null): PacketAction[] {
  return PACKET_ACTIONS.filter((a) => PACKET_TRANSITIONS[a].from === state);
}

/** The customer's details given at activation: who sends the packed parcel, and to whom. */
export interface PacketActivation {
  readonly sender_name: string;
  readonly sender_phone: string | null;
  readonly recipient_name: string;
  readonly recipient_phone: string;
  readonly recipient_address: string;
}

/** What an action may carry besides the packet code. */
export interface PacketDetails {
  readonly note: string | null;
  /** sell: the till receipt or sale reference. */
  readonly reference: string | null;
  /** activate: required. */
  readonly activation: PacketActivation | null;
  /** accept: the packed parcel's weight. */
  readonly weight_kg: number | null;
}

export interface PacketStep {
  readonly action: PacketAction;
  readonly at: number;
  readonly by: string;
  readonly note: string | null;
}

export interface RetailPacket {
  readonly code: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly store_id: string;
  readonly state: PacketState;
  readonly sale_reference: string | null;
  readonly activation: PacketActivation | null;
  readonly weight_kg: number | null;
  /** Every action taken, at most one of each (the machine has no loops). */
  readonly history: readonly PacketStep[];
  readonly updated_at: number;
}

export type RetailPacketState = RetailPacket | null;

export type RetailPacketCommand =
  | {
    kind: "act";
    action: PacketAction;
    courier_id: string;
    client_id: string;
    store_id: string;
    code: string;
    details: PacketDetails;
    by: string;
  }
  | { kind: "get" };

export type RetailPacketEvent =
  | { kind: "packet_stocked"; packet: RetailPacket }
  | {
    kind: "packet_moved";
    action: Exclude<PacketAction, "stock">;
    to: PacketState;
    step: PacketStep;
    details: PacketDetails;
  };

/** The packet, and whether this call moved it (false: a replay of an action already taken). */
export interface PacketReply {
  readonly packet: RetailPacket;
  readonly replayed: boolean;
}

type D = Decision<RetailPacketState, RetailPacketEvent, PacketReply | RetailPacket>;

/** The packet actor's id: one per client and packet code. */
export function packetIdOf(client: string, code: string): string {
  return `${client}:${code}`;
}

function invalidState(state: PacketState | null, action: PacketAction) {
  const allowed = allowedActions(state);
  return reject(
    "packet_state_invalid",
    `cannot ${action} a packet that is ${state ?? "not stocked"}; allowed: ${
      allowed.join(", ") || "none"
    }`,
    { state, allowed_actions: allowed },
  );
}

function sameActivation(a: PacketActivation, b: PacketActivation | null): boolean {
  return b !== null && a.sender_name === b.sender_name && a.sender_phone === b.sender_phone &&
    a.recipient_name === b.recipient_name && a.recipient_phone === b.recipient_phone &&
    a.recipient_address === b.recipient_address;
}

/**
 * Why an action the packet already went through, sent again, is not that action again: a detail
 * it states differs from the one recorded (a detail left out restates nothing). Null: a replay.
 */
function replayConflict(
  packet: RetailPacket,
  action: PacketAction,
  d: PacketDetails,
): string | null {
  if (action === "sell" && d.reference !== null && d.reference !== packet.sale_reference) {
    return `the packet was already sold with another reference: ${packet.sale_reference ?? "none"}`;
  }
  if (
    action === "activate" && d.activation !== null &&
    !sameActivation(d.activation, packet.activation)
  ) {
    return `the packet was already activated with other details: to ${
      packet.activation?.recipient_name ?? "none"
    }`;
  }
  if (action === "accept" && d.weight_kg !== null && d.weight_kg !== packet.weight_kg) {
    return `the packet was already accepted with another weight: ${packet.weight_kg ?? "none"} kg`;
  }
  return null;
}

function act(
  state: RetailPacketState,
  c: Extract<RetailPacketCommand, { kind: "act" }>,
  now: number,
): D {
  const step: PacketStep = { action: c.action, at: now, by: c.by, note: c.details.note };
  if (state === null) {
    if (c.action !== "stock") {
      return reject("not_found", `packet not found in this store: ${c.code}`);
    }
    if (!PACKET_CODE_PATTERN.test(c.code)) {
      return reject(
        "validation_failed",
        `packet code: 1 to 40 letters, digits, dot, dash: ${c.code}`,
      );
    }
    const packet: RetailPacket = {
      code: c.code,
      courier_id: c.courier_id,
      client_id: c.client_id,
      store_id: c.store_id,
      state: "in_stock",
      sale_reference: null,
      activation: null,
      weight_kg: null,
      history: [step],
      updated_at: now,
    };
    return accept([{ kind: "packet_stocked", packet }], (next) => ({
      packet: next!,
      replayed: false,
    }));
  }
  if (state.store_id !== c.store_id) {
    return c.action === "stock"
      ? reject("packet_in_another_store", `the packet is stocked in another store: ${c.code}`)
      : reject("not_found", `packet not found in this store: ${c.code}`);
  }
  // Idempotent per (packet, action): the action was taken; answer the packet as it is. Only
  // the same action again is a replay: one stating other details (another till receipt is
  // another customer paying) would answer a sale that never happened (README: a packet is sold
  // once), so it is refused and changes nothing.
  if (state.history.some((s) => s.action === c.action)) {
    const conflict = replayConflict(state, c.action, c.details);
    if (conflict !== null) return reject("packet_conflict", conflict);
    return accept([], () => ({ packet: state, replayed: true }));
  }
  if (c.action === "stock" || PACKET_TRANSITIONS[c.action].from !== state.state) {
    return invalidState(state.state, c.action);
  }
  if (c.action === "activate" && c.details.activation === null) {
    return reject("validation_failed", "activate needs the sender's and the recipient's details");
  }
  return accept([{
    kind: "packet_moved",
    action: c.action,
    to: PACKET_TRANSITIONS[c.action].to,
    step,
    details: c.details,
  }], (next) => ({ packet: next!, replayed: false }));
}

function decide(
  state: RetailPacketState,
  command: RetailPacketCommand | { kind: "timer" },
  ctx: { readonly now: number },
): D {
  switch (command.kind) {
    case "act":
      return act(state, command, ctx.now);
    case "get":
    case "timer":
      if (state === null) return reject("not_found", "packet not found");
      return accept([], () => state);
    default:
      return unreachable(command);
  }
}

function evolve(state: RetailPacketState, event: RetailPacketEvent): RetailPacketState {
  if (event.kind === "packet_stocked") return event.packet;
  if (state === null) throw new Error(`retail packet: ${event.kind} before packet_stocked`);
  switch (event.kind) {
    case "packet_moved": {
      const d = event.details;
      return {
        ...state,
        state: event.to,
        history: [...state.history, event.step],
        updated_at: event.step.at,
        ...(event.action === "sell" ? { sale_reference: d.reference } : {}),
        ...(event.action === "activate" ? { activation: d.activation } : {}),
        ...(event.action === "accept" ? { weight_kg: d.weight_kg } : {}),
      };
    }
    default:
      return unreachable(event);
  }
}

export const retailPacketActor: ActorDefinition<
  RetailPacketState,
  RetailPacketCommand,
  RetailPacketEvent,
  PacketReply | RetailPacket
> = {
  type: "retail_packet",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : s,
};

export function asPacketReply(reply: PacketReply | RetailPacket): PacketReply {
  return "replayed" in reply ? reply : { packet: reply, replayed: false };
}

/**
 * The retail packet programme (courier 4.6): a packet action's request, read into the packets it
 * names and the details it carries, and the answers: stores with their packet counts, packets.
 */
import type { ClientStore } from "../../../actors/courier/client_store.ts";
import {
  allowedActions,
  PACKET_ACTIONS,
  PACKET_CODE_PATTERN,
  PACKET_STATES,
  PACKET_TEXT_CHARS_MAX,
  type PacketAction,
  type PacketDetails,
  type PacketState,
  type RetailPacket,
} from "../../../actors/courier/retail_packet.ts";
import { iso } from "../../../src/domain/iso.ts";
import { type FieldError, validationFailed } from "../../../src/http/errors.ts";
import { z } from "../../../src/http/route.ts";
import { orNull, Phone, UtcInstant } from "../../../src/http/schemas.ts";
import { PACKETS_PER_STOCK_MAX } from "../../../src/limits.ts";

export const Text = (max: number) => z.string().trim().min(1).max(max);
const PacketCode = z.string().trim().regex(
  PACKET_CODE_PATTERN,
  "1 to 40 letters, digits, dot, dash, underscore",
);
/** One body for every action; which fields an action needs is checked below. */
export const PacketActionBody = z.object({
  packet_code: PacketCode.optional(),
  /** stock only: several packets at once. */
  packet_codes: z.array(PacketCode).min(1).max(PACKETS_PER_STOCK_MAX).optional(),
  note: Text(PACKET_TEXT_CHARS_MAX).optional(),
  /** sell: the till receipt or sale reference. */
  reference: Text(120).optional(),
  /** activate: the customer sending the packet, and the recipient. */
  sender_name: Text(200).optional(),
  sender_phone: Phone.optional(),
  recipient_name: Text(200).optional(),
  recipient_phone: Phone.optional(),
  recipient_address: Text(500).optional(),
  /** accept: the packed parcel's weight. */
  weight_kg: z.number().positive().max(100).optional(),
}).openapi("PacketAction", { example: { packet_code: "PKT-0001", note: "Shelf 3" } });

export type PacketActionInput = z.infer<typeof PacketActionBody>;

/** The details an action carries; activate's required fields are named when missing. */
export function detailsOf(action: PacketAction, body: PacketActionInput): PacketDetails {
  let activation: PacketDetails["activation"] = null;
  if (action === "activate") {
    const missing: FieldError[] = (
      ["sender_name", "recipient_name", "recipient_phone", "recipient_address"] as const
    ).filter((f) => body[f] === undefined).map((f) => ({
      path: f,
      message: "required to activate",
    }));
    if (missing.length > 0) throw validationFailed(missing);
    activation = {
      sender_name: body.sender_name!,
      sender_phone: body.sender_phone ?? null,
      recipient_name: body.recipient_name!,
      recipient_phone: body.recipient_phone!,
      recipient_address: body.recipient_address!,
    };
  }
  return {
    note: body.note ?? null,
    reference: body.reference ?? null,
    activation,
    weight_kg: body.weight_kg ?? null,
  };
}

/** The packet codes a call names: one, or (stock only) several, never both. */
export function codesOf(action: PacketAction, body: PacketActionInput): string[] | string {
  if (body.packet_code !== undefined && body.packet_codes !== undefined) {
    throw validationFailed([{ path: "packet_codes", message: "send packet_code or packet_codes" }]);
  }
  if (body.packet_codes !== undefined) {
    if (action !== "stock") {
      throw validationFailed([{
        path: "packet_codes",
        message: `only stock takes several packets; ${action} takes packet_code`,
      }]);
    }
    const codes = body.packet_codes;
    const twice = codes.find((code, i) => codes.indexOf(code) !== i);
    if (twice !== undefined) {
      throw validationFailed([{ path: "packet_codes", message: `listed twice: ${twice}` }]);
    }
    return codes;
  }
  if (body.packet_code === undefined) {
    throw validationFailed([{ path: "packet_code", message: "required" }]);
  }
  return body.packet_code;
}

/** A store as registered (storeView without counts). */
export const StoreAnswer = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  address: z.string(),
  created_at: UtcInstant,
}).openapi("ClientStore");

/** A store in a list, with its packets counted by state. */
export const StoreListedAnswer = StoreAnswer.extend({
  packets: z.object(
    Object.fromEntries(PACKET_STATES.map((st) => [st, z.number().int()])) as Record<
      PacketState,
      z.ZodNumber
    >,
  ).openapi("PacketCounts"),
}).openapi("ClientStoreListed");

/** A packet after one action (packetView, with `replayed`). */
const PacketAnswer = z.object({
  packet_code: z.string(),
  store_id: z.string(),
  state: z.enum(PACKET_STATES),
  allowed_actions: z.array(z.enum(PACKET_ACTIONS)).openapi({
    description: "The actions its state allows next",
  }),
  sale_reference: z.string().nullable().openapi({ description: "sell: the till receipt" }),
  activation: orNull(
    z.object({
      sender_name: z.string(),
      sender_phone: z.string().nullable(),
      recipient_name: z.string(),
      recipient_phone: z.string(),
      recipient_address: z.string(),
    }).openapi("PacketActivation"),
  ).openapi({ description: "activate: who sends the packed parcel, and to whom" }),
  weight_kg: z.number().nullable().openapi({ description: "accept: the packed parcel's weight" }),
  history: z.array(
    z.object({
      action: z.enum(PACKET_ACTIONS),
      at: UtcInstant,
      by: z.string(),
      note: z.string().nullable(),
    }).openapi("PacketStep"),
  ).openapi({ description: "Every action taken, in order" }),
  updated_at: UtcInstant,
  replayed: z.boolean().openapi({
    description: "true: the packet had already been through this action; answered as it is",
  }),
}).openapi("RetailPacket");

/** Several packets stocked at once: each answers for itself. */
const PacketsStockedAnswer = z.object({
  results: z.array(z.union([
    z.object({
      packet_code: z.string(),
      state: z.enum(PACKET_STATES),
      replayed: z.boolean(),
    }).openapi("PacketStocked"),
    z.object({
      packet_code: z.string(),
      error: z.object({ code: z.string(), message: z.string() }).openapi("PacketRefusal"),
    }).openapi("PacketRefused"),
  ])).openapi({ description: "One per packet_codes entry, in order" }),
}).openapi("PacketsStocked");

/** What a packet action answers: the packet, or with packet_codes one result per packet. */
export const PacketMovedAnswer = z.union([PacketAnswer, PacketsStockedAnswer]);

export function packetView(p: RetailPacket) {
  return {
    packet_code: p.code,
    store_id: p.store_id,
    state: p.state,
    allowed_actions: allowedActions(p.state),
    sale_reference: p.sale_reference,
    activation: p.activation,
    weight_kg: p.weight_kg,
    history: p.history.map((s) => ({ action: s.action, at: iso(s.at), by: s.by, note: s.note })),
    updated_at: iso(p.updated_at),
  };
}

export function storeView(s: ClientStore, counts: Readonly<Record<string, number>> | null) {
  return {
    id: s.id,
    code: s.code,
    name: s.name,
    address: s.address,
    created_at: iso(s.created_at),
    ...(counts === null ? {} : {
      packets: Object.fromEntries(PACKET_STATES.map((st) => [st, counts[st] ?? 0])) as Record<
        PacketState,
        number
      >,
    }),
  };
}

/**
 * The retail packet programme (courier 4.6 `GET /client/stores`, `POST /client/stores/{store}/
 * packets/{action}`): the courier registers a client's stores; the client lists them with packet
 * counts by state and moves packets through stock, sell, refund, activate, accept, hand-over
 * (actors/retail_packet.ts holds the machine). Another client's store does not exist for the
 * caller. Counts and lists come from the query side.
 */
import type { Context } from "hono";
import {
  asStore,
  type ClientStore,
  clientStoreActor,
  STORE_ADDRESS_CHARS_MAX,
  STORE_CODE_PATTERN,
  STORE_NAME_CHARS_MAX,
  storeIdOf,
} from "../../actors/courier/client_store.ts";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import {
  allowedActions,
  asPacketReply,
  PACKET_ACTIONS,
  PACKET_CODE_PATTERN,
  PACKET_STATES,
  PACKET_TEXT_CHARS_MAX,
  type PacketAction,
  type PacketDetails,
  packetIdOf,
  type PacketState,
  type RetailPacket,
  retailPacketActor,
} from "../../actors/courier/retail_packet.ts";
import { PACKETS_PER_STOCK_MAX } from "../../src/limits.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { client, clientPrincipalOf, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { decodeCursor, encodeCursor } from "../../src/http/cursor.ts";
import {
  ApiError,
  type FieldError,
  fromRejection,
  validationFailed,
} from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { orNull, UtcInstant, wholeNumber } from "../../src/http/schemas.ts";
import { ask, read } from "../../src/http/ask.ts";
import { iso } from "../../src/domain/iso.ts";
import { packetCounts, storePage } from "../../src/courier/queries/client_stores.ts";

const STORES_PAGE_DEFAULT = 100;
/** The most stores one page answers (bounded pages). */
const STORES_PAGE_MAX = 500;

const Text = (max: number) => z.string().trim().min(1).max(max);
const PacketCode = z.string().trim().regex(
  PACKET_CODE_PATTERN,
  "1 to 40 letters, digits, dot, dash, underscore",
);
const Phone = z.string().regex(/^\+[1-9]\d{6,14}$/, "international format, e.g. +26771234567");

const RegisterStore = z.object({
  code: z.string().trim().regex(
    STORE_CODE_PATTERN,
    "1 to 40 letters, digits, dot, dash, underscore",
  ),
  name: Text(STORE_NAME_CHARS_MAX),
  address: Text(STORE_ADDRESS_CHARS_MAX),
}).openapi("RegisterClientStore");

/** One body for every action; which fields an action needs is checked below. */
const PacketActionBody = z.object({
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
}).openapi("PacketAction");

type PacketActionInput = z.infer<typeof PacketActionBody>;

const ClientParam = z.object({ client: z.string().min(1).max(64) });
const StoreActionParams = z.object({
  store: z.string().min(1).max(64),
  action: z.enum(PACKET_ACTIONS),
});
const PageQuery = z.object({
  limit: wholeNumber(1, STORES_PAGE_MAX).default(STORES_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

// ---- Answers (documentation: tests/http/answers_client_test.ts holds answers to them).

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

function storeView(s: ClientStore, counts: Readonly<Record<string, number>> | null) {
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

/** One page of a client's stores by code, each with its packet counts by state. */
async function storesOf(
  c: Context<AppEnv>,
  courier: string,
  clientId: string,
  query: z.infer<typeof PageQuery>,
) {
  const db = c.get("env").db;
  const { stores, more } = await storePage(db, courier, clientId, {
    limit: query.limit,
    after: query.cursor ? decodeCursor(query.cursor).id : null,
  });
  const counts = await packetCounts(db, courier, clientId, stores.map((s) => s.id));
  const last = stores.at(-1);
  return {
    data: stores.map((s) => storeView(s, counts.get(s.id) ?? {})),
    next_cursor: more && last ? encodeCursor(0, last.code) : null,
  };
}

/** The caller's store; another client's, or none, is not found (courier 4.6). */
async function ownStore(c: Context<AppEnv>, storeId: string): Promise<ClientStore> {
  const p = clientPrincipalOf(c);
  const r = await c.get("env").runtime.read(clientStoreActor, p.business.id, storeId, {
    kind: "get",
  });
  if (!r.ok || asStore(r.reply).client_id !== p.client_id) {
    throw new ApiError("not_found", `store not found: ${storeId}`);
  }
  return asStore(r.reply);
}

/** The details an action carries; activate's required fields are named when missing. */
function detailsOf(action: PacketAction, body: PacketActionInput): PacketDetails {
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
function codesOf(action: PacketAction, body: PacketActionInput): string[] | string {
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

export function clientStoreRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/stores",
    summary: "Register a client's store for the retail packet programme; the same code and " +
      "details again answer the store",
    tag: "Courier clients",
    security: "business",
    middleware: [business({ scope: "runs:operate" }), courierPlatform],
    params: ClientParam,
    body: RegisterStore,
    status: 201,
    replay: "The same code with the same name and address",
    response: StoreAnswer,
    refusals: {
      already_exists: "the client has a store with this code and another name or address",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    // Another courier's client, or none, is not found.
    await read(c, courierClientActor, courier, params.client, { kind: "get" });
    const id = await storeIdOf(courier, params.client, body.code);
    const r = await ask(c, clientStoreActor, courier, id, {
      kind: "register",
      store: { id, courier_id: courier, client_id: params.client, ...body },
      by: principalName(p),
    });
    if (!("created" in r)) throw new Error("register answers whether it registered");
    return ok(c, storeView(r.store, null), r.created ? 201 : 200);
  });

  define(api, {
    method: "get",
    path: "/business/courier/clients/{client}/stores",
    summary: "A client's stores with packet counts by state; `meta.next_cursor`",
    tag: "Courier clients",
    security: "business",
    middleware: [business({ scope: "shipments:view-own" }), courierPlatform],
    params: ClientParam,
    query: PageQuery,
    paged: "cursor",
    response: z.array(StoreListedAnswer),
  }, async (c, { params, query }) => {
    const courier = businessPrincipalOf(c).business.id;
    await read(c, courierClientActor, courier, params.client, { kind: "get" });
    const page = await storesOf(c, courier, params.client, query);
    return ok(c, page.data, 200, { limit: query.limit, next_cursor: page.next_cursor });
  });

  define(api, {
    method: "get",
    path: "/client/stores",
    summary: "The client's stores (retail packet programme) with packet counts by state",
    tag: "Client API",
    security: "client",
    middleware: [client()],
    query: PageQuery,
    paged: "cursor",
    response: z.array(StoreListedAnswer),
  }, async (c, { query }) => {
    const p = clientPrincipalOf(c);
    const page = await storesOf(c, p.business.id, p.client_id, query);
    return ok(c, page.data, 200, { limit: query.limit, next_cursor: page.next_cursor });
  });

  define(api, {
    method: "post",
    path: "/client/stores/{store}/packets/{action}",
    summary: "Move a packet: stock (packet_code or packet_codes), sell, refund (sold only), " +
      "activate (sender and recipient details), accept, hand-over. Out of order: 422 " +
      "packet_state_invalid with the state and allowed actions; a repeated action answers the " +
      "packet as it is, with other details 409 packet_conflict. One packet answers the packet " +
      "(201 when stock adds it, else 200); packet_codes answer `results`, one per packet",
    tag: "Client API",
    security: "client",
    middleware: [client()],
    params: StoreActionParams,
    body: PacketActionBody,
    // spec: courier 4.6, CONTRACT (what the spec leaves open goes into the OpenAPI document):
    // stock of one new packet answers 201, every other move 200, and the document shows both.
    alsoAnswers: { status: 201, when: "when stock of one packet_code adds the packet" },
    response: PacketMovedAnswer,
    refusals: {
      validation_failed: "packet_code missing, or packet_codes on an action other than stock; " +
        "activate without the sender's and recipient's details",
      not_found: "the packet is not stocked in this store",
      packet_state_invalid: "the packet's state does not allow the action (the answer names the " +
        "state and the allowed actions)",
      packet_in_another_store: "stock of a packet stocked in another store",
      packet_conflict: "an action the packet already went through, sent with another sale " +
        "reference, activation or weight (a packet is sold once)",
    },
  }, async (c, { params, body }) => {
    const p = clientPrincipalOf(c);
    const store = await ownStore(c, params.store);
    const codes = codesOf(params.action, body);
    const details = detailsOf(params.action, body);
    const move = (code: string) =>
      c.get("env").runtime.ask(
        retailPacketActor,
        p.business.id,
        packetIdOf(p.client_id, code),
        {
          kind: "act",
          action: params.action,
          courier_id: p.business.id,
          client_id: p.client_id,
          store_id: store.id,
          code,
          details,
          by: principalName(p),
        },
      );
    if (typeof codes === "string") {
      const r = await move(codes);
      if (!r.ok) throw fromRejection(r);
      const moved = asPacketReply(r.reply);
      const created = params.action === "stock" && !moved.replayed;
      return ok(c, { ...packetView(moved.packet), replayed: moved.replayed }, created ? 201 : 200);
    }
    // Several packets: each is its own actor, so each answers for itself.
    const results = await Promise.all(codes.map(async (code) => {
      const r = await move(code);
      if (!r.ok) return { packet_code: code, error: { code: r.code, message: r.message } };
      const moved = asPacketReply(r.reply);
      return { packet_code: code, state: moved.packet.state, replayed: moved.replayed };
    }));
    return ok(c, { results });
  });
}

/**
 * The retail packet programme (courier 4.6 `GET /client/stores`, `POST /client/stores/{store}/
 * packets/{action}`): the courier registers a client's stores; the client lists them with packet
 * counts by state and moves packets through stock, sell, refund, activate, accept, hand-over
 * (actors/courier/retail_packet.ts holds the machine). Another client's store does not exist for the
 * caller. Counts and lists come from the query side.
 */
import type { Context } from "hono";
import {
  STORE_ADDRESS_CHARS_MAX,
  STORE_CODE_PATTERN,
  STORE_NAME_CHARS_MAX,
} from "../../actors/courier/client_store.ts";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import { PACKET_ACTIONS } from "../../actors/courier/retail_packet.ts";
import { movePacket, ownStore, registerStore } from "../../src/courier/flows/packets.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import { client, clientPrincipalOf, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { decodeCursor, encodeCursor } from "../../src/http/cursor.ts";
import { fromRejection } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { read } from "../../src/http/ask.ts";
import {
  codesOf,
  detailsOf,
  PacketActionBody,
  PacketMovedAnswer,
  packetView,
  StoreAnswer,
  StoreListedAnswer,
  storeView,
  Text,
} from "./answers/client_stores.ts";
import { packetCounts, storePage } from "../../src/courier/queries/client_stores.ts";

const STORES_PAGE_DEFAULT = 100;
/** The most stores one page answers (bounded pages). */
const STORES_PAGE_MAX = 500;

const RegisterStore = z.object({
  code: z.string().trim().regex(
    STORE_CODE_PATTERN,
    "1 to 40 letters, digits, dot, dash, underscore",
  ),
  name: Text(STORE_NAME_CHARS_MAX),
  address: Text(STORE_ADDRESS_CHARS_MAX),
}).openapi("RegisterClientStore");

const ClientParam = z.object({ client: z.string().min(1).max(64) });
const StoreActionParams = z.object({
  store: z.string().min(1).max(64),
  action: z.enum(PACKET_ACTIONS),
});
const PageQuery = z.object({
  limit: wholeNumber(1, STORES_PAGE_MAX).default(STORES_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

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
    const { env, tenant, by } = businessCall(c);
    // Another courier's client, or none, is not found.
    const r = await registerStore(env, { courierId: tenant, by }, params.client, body);
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
    const { tenant } = businessCall(c);
    await read(c, courierClientActor, tenant, params.client, { kind: "get" });
    const page = await storesOf(c, tenant, params.client, query);
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
    const env = c.get("env");
    const caller = { courierId: p.business.id, clientId: p.client_id, by: principalName(p) };
    const store = await ownStore(env, caller, params.store);
    const codes = codesOf(params.action, body);
    const details = detailsOf(params.action, body);
    const move = (code: string) =>
      movePacket(env, caller, { store, action: params.action, code, details });
    if (typeof codes === "string") {
      const moved = await move(codes);
      if ("ok" in moved) throw fromRejection(moved);
      const created = params.action === "stock" && !moved.replayed;
      return ok(c, { ...packetView(moved.packet), replayed: moved.replayed }, created ? 201 : 200);
    }
    // Several packets: each is its own actor, so each answers for itself.
    const results = await Promise.all(codes.map(async (code) => {
      const moved = await move(code);
      if ("ok" in moved) {
        return { packet_code: code, error: { code: moved.code, message: moved.message } };
      }
      return { packet_code: code, state: moved.packet.state, replayed: moved.replayed };
    }));
    return ok(c, { results });
  });
}

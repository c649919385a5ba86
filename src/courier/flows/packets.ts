/**
 * The retail packet programme (courier 4.6): a client's stores, registered by the courier, and
 * packets moved through them (actors/courier/retail_packet.ts holds the machine). Another
 * client's store does not exist for the caller.
 */
import {
  asStore,
  type ClientStore,
  clientStoreActor,
  storeIdOf,
} from "../../../actors/courier/client_store.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import {
  asPacketReply,
  type PacketAction,
  type PacketDetails,
  packetIdOf,
  type PacketReply,
  retailPacketActor,
} from "../../../actors/courier/retail_packet.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse, type Rejection } from "../../runtime/actor.ts";

/** A store as the courier registers it. */
export interface StoreInput {
  readonly code: string;
  readonly name: string;
  readonly address: string;
}

/**
 * Registers the client's store (the same code and details again answer the store); another
 * courier's client, or none, is not found.
 */
export async function registerStore(
  deps: Pick<Deps, "runtime" | "requestId">,
  office: { readonly courierId: string; readonly by: string },
  clientId: string,
  input: StoreInput,
): Promise<{ store: ClientStore; created: boolean }> {
  const courier = office.courierId;
  orRefuse(await deps.runtime.read(courierClientActor, courier, clientId, { kind: "get" }));
  const id = await storeIdOf(courier, clientId, input.code);
  const r = orRefuse(
    await deps.runtime.ask(clientStoreActor, courier, id, {
      kind: "register",
      store: { id, courier_id: courier, client_id: clientId, ...input },
      by: office.by,
    }, { requestId: deps.requestId }),
  );
  if (!("created" in r)) throw new Error("register answers whether it registered");
  return r;
}

/** The client calling, and who (audit). */
export interface StoreClient {
  readonly courierId: string;
  readonly clientId: string;
  readonly by: string;
}

/** The caller's store; another client's, or none, is not found (courier 4.6). */
export async function ownStore(
  deps: Pick<Deps, "runtime">,
  caller: StoreClient,
  storeId: string,
): Promise<ClientStore> {
  // A refused read (a full mailbox) is thrown (503), never answered 404 for one that exists.
  const r = foundOrNull(
    await deps.runtime.read(clientStoreActor, caller.courierId, storeId, { kind: "get" }),
  );
  if (r === null || asStore(r).client_id !== caller.clientId) {
    refuse("not_found", `store not found: ${storeId}`);
  }
  return asStore(r);
}

/** One packet's move: the packet as it is after it, or the refusal. */
export async function movePacket(
  deps: Pick<Deps, "runtime" | "requestId">,
  caller: StoreClient,
  move: {
    readonly store: ClientStore;
    readonly action: PacketAction;
    readonly code: string;
    readonly details: PacketDetails;
  },
): Promise<PacketReply | Rejection> {
  const r = await deps.runtime.ask(
    retailPacketActor,
    caller.courierId,
    packetIdOf(caller.clientId, move.code),
    {
      kind: "act",
      action: move.action,
      courier_id: caller.courierId,
      client_id: caller.clientId,
      store_id: move.store.id,
      code: move.code,
      details: move.details,
      by: caller.by,
    },
    { requestId: deps.requestId },
  );
  return r.ok ? asPacketReply(r.reply) : r;
}

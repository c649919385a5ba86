/**
 * A client's store in the retail packet programme (courier 4.6 `GET /client/stores`): the courier
 * registers it for the client; the store's packets are their own actors (`retail_packet.ts`), so
 * a busy store never outgrows an actor's state, and its counts come from the projection.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { derivedId } from "../../src/domain/secrets.ts";

export const STORE_CODE_PATTERN = /^[A-Za-z0-9._-]{1,40}$/;
export const STORE_NAME_CHARS_MAX = 200;
export const STORE_ADDRESS_CHARS_MAX = 500;

export interface ClientStore {
  readonly id: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly code: string;
  readonly name: string;
  readonly address: string;
  readonly created_at: number;
  readonly created_by: string;
}

export type ClientStoreState = ClientStore | null;

export type ClientStoreCommand =
  | { kind: "register"; store: Omit<ClientStore, "created_at" | "created_by">; by: string }
  | { kind: "get" };

export type ClientStoreEvent = { kind: "store_registered"; store: ClientStore };

/** `register` answers whether this call registered it (false: the same store sent again). */
export interface StoreRegistered {
  readonly store: ClientStore;
  readonly created: boolean;
}

export type ClientStoreReply = ClientStore | StoreRegistered;

type D = Decision<ClientStoreState, ClientStoreEvent, ClientStoreReply>;

/**
 * The store's id: derived from the courier, the client and the store code, so a code names one
 * store of a client and registering it again finds the same actor (no lookup race).
 */
export function storeIdOf(courier: string, client: string, code: string): string {
  return derivedId("sto", `${courier}:${client}:${code}`);
}

function decide(
  state: ClientStoreState,
  command: ClientStoreCommand | { kind: "timer" },
  ctx: { readonly now: number },
): D {
  if (command.kind === "register") {
    const s = command.store;
    if (state !== null) {
      if (state.name !== s.name || state.address !== s.address) {
        return reject("already_exists", `the client already has a store with this code: ${s.code}`);
      }
      return accept([], () => ({ store: state, created: false }));
    }
    if (!STORE_CODE_PATTERN.test(s.code)) {
      return reject("validation_failed", `code: 1 to 40 letters, digits, dot, dash: ${s.code}`);
    }
    if (s.name.trim() === "" || s.address.trim() === "") {
      return reject("validation_failed", "a store needs a name and an address");
    }
    const store: ClientStore = { ...s, created_at: ctx.now, created_by: command.by };
    return accept(
      [{ kind: "store_registered", store }],
      (next) => ({ store: next!, created: true }),
    );
  }
  if (state === null) return reject("not_found", "store not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return accept([], () => state);
    default:
      return unreachable(command);
  }
}

function evolve(_state: ClientStoreState, event: ClientStoreEvent): ClientStoreState {
  switch (event.kind) {
    case "store_registered":
      return event.store;
    default:
      return unreachable(event.kind);
  }
}

export const clientStoreActor: ActorDefinition<
  ClientStoreState,
  ClientStoreCommand,
  ClientStoreEvent,
  ClientStoreReply
> = {
  type: "client_store",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : s,
};

export function asStore(reply: ClientStoreReply): ClientStore {
  return "created" in reply ? reply.store : reply;
}

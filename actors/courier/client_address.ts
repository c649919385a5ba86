/**
 * One saved address of a courier client (courier 4.6 `GET, POST /client/addresses`). The label
 * names the entry in the client's address book: saving under a label again updates it. Each
 * address is its own actor (a book of hundreds would outgrow one actor's state); the client
 * account counts them against CLIENT_ADDRESSES_MAX, and lists come from the projection.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { isCountryCode } from "../../src/domain/iso_codes.ts";
import { derivedId } from "../../src/domain/secrets.ts";

export const ADDRESS_LABEL_CHARS_MAX = 60;
export const ADDRESS_NAME_CHARS_MAX = 200;
export const ADDRESS_TEXT_CHARS_MAX = 500;

/** What the client saves (spec 2.1 words: name, address, phone, country, lat, lng). */
export interface AddressFields {
  readonly label: string;
  readonly name: string;
  readonly address: string;
  readonly phone: string | null;
  readonly country: string;
  readonly lat: number | null;
  readonly lng: number | null;
}

export interface ClientAddress extends AddressFields {
  readonly id: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly created_at: number;
  readonly updated_at: number;
  readonly saved_by: string;
}

export type ClientAddressState = ClientAddress | null;

export type ClientAddressCommand =
  | {
    kind: "save";
    id: string;
    courier_id: string;
    client_id: string;
    fields: AddressFields;
    by: string;
  }
  | { kind: "get" };

export type ClientAddressEvent = { kind: "address_saved"; address: ClientAddress };

export interface AddressSaved {
  readonly address: ClientAddress;
  readonly created: boolean;
}

export type ClientAddressReply = ClientAddress | AddressSaved;

type D = Decision<ClientAddressState, ClientAddressEvent, ClientAddressReply>;

/** The address's id: derived from the client and its label (case-insensitive). */
export function addressIdOf(courier: string, client: string, label: string): string {
  return derivedId("adr", `${courier}:${client}:${label.trim().toLowerCase()}`);
}

/** The first problem with the fields, or null (the route's schema says the same, field by field). */
export function addressProblem(f: AddressFields): string | null {
  if (f.label.trim() === "" || f.label.length > ADDRESS_LABEL_CHARS_MAX) return "label";
  if (f.name.trim() === "" || f.name.length > ADDRESS_NAME_CHARS_MAX) return "name";
  if (f.address.trim() === "" || f.address.length > ADDRESS_TEXT_CHARS_MAX) return "address";
  if (!isCountryCode(f.country)) return "country";
  if ((f.lat === null) !== (f.lng === null)) return "lat and lng go together";
  if (f.lat !== null && (f.lat < -90 || f.lat > 90)) return "lat";
  if (f.lng !== null && (f.lng < -180 || f.lng > 180)) return "lng";
  return null;
}

function decide(
  state: ClientAddressState,
  command: ClientAddressCommand | { kind: "timer" },
  ctx: { readonly now: number },
): D {
  switch (command.kind) {
    case "save": {
      const problem = addressProblem(command.fields);
      if (problem !== null) return reject("validation_failed", `invalid address: ${problem}`);
      const address: ClientAddress = {
        ...command.fields,
        id: command.id,
        courier_id: command.courier_id,
        client_id: command.client_id,
        created_at: state?.created_at ?? ctx.now,
        updated_at: ctx.now,
        saved_by: command.by,
      };
      const created = state === null;
      return accept([{ kind: "address_saved", address }], (next) => ({ address: next!, created }));
    }
    case "get":
    case "timer":
      if (state === null) return reject("not_found", "address not found");
      return accept([], () => state);
    default:
      return unreachable(command);
  }
}

function evolve(_state: ClientAddressState, event: ClientAddressEvent): ClientAddressState {
  switch (event.kind) {
    case "address_saved":
      return event.address;
    default:
      return unreachable(event.kind);
  }
}

export const clientAddressActor: ActorDefinition<
  ClientAddressState,
  ClientAddressCommand,
  ClientAddressEvent,
  ClientAddressReply
> = {
  type: "client_address",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : s,
};

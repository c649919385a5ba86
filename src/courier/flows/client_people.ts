/**
 * Courier 4.6 client rows for people and places: a client's users (invited by its
 * administrators, with a temporary password changed before anything else, courier 5) and its
 * saved addresses, one per label, within the client's bound.
 */
import {
  type AddressFields,
  addressIdOf,
  type ClientAddress,
  clientAddressActor,
} from "../../../actors/courier/client_address.ts";
import {
  asClient,
  type ClientUser,
  type CourierClient,
  courierClientActor,
} from "../../../actors/courier/courier_client.ts";
import { EMAIL_TAKEN, emailTakenMessage } from "../../domain/emails.ts";
import { hashPassword, temporaryPassword } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";

/** The client acting, and who (audit). */
export interface ClientCaller {
  readonly courierId: string;
  readonly clientId: string;
  readonly by: string;
}

/** A user to invite: a client administrator or a client user. */
export interface Invitee {
  readonly email: string;
  readonly name: string;
  readonly role: ClientUser["role"];
}

/** Invites a user with a temporary password, answered once with the user and the account. */
export async function inviteUser(
  deps: Pick<Deps, "runtime" | "clock" | "requestId" | "passwordIterations">,
  caller: ClientCaller,
  invitee: Invitee,
): Promise<{ user: ClientUser; account: CourierClient; password: string }> {
  // An e-mail signs in to one client user anywhere (the client_email index).
  if (await deps.runtime.lookup("client_email", invitee.email)) {
    refuse(EMAIL_TAKEN, emailTakenMessage("client user", invitee.email));
  }
  const password = temporaryPassword();
  const user: ClientUser = {
    id: newId("cus"),
    email: invitee.email,
    name: invitee.name,
    role: invitee.role,
    password_hash: await hashPassword(password, deps.passwordIterations),
    must_change_password: true,
    session_epoch: 0,
    created_at: deps.clock.now(),
  };
  const account = asClient(orRefuse(
    await deps.runtime.ask(courierClientActor, caller.courierId, caller.clientId, {
      kind: "add_user",
      user,
      by: caller.by,
    }, { requestId: deps.requestId }),
  ));
  return { user, account, password };
}

/**
 * Saves an address under its label: new (created), or the label's address updated. A new label
 * takes one of the client's places (address_book_full past its bound), once however retried.
 */
export async function saveAddress(
  deps: Pick<Deps, "runtime">,
  caller: ClientCaller,
  fields: AddressFields,
): Promise<{ address: ClientAddress; created: boolean }> {
  const { runtime } = deps;
  const courier = caller.courierId;
  const id = await addressIdOf(courier, caller.clientId, fields.label);
  const existing = await runtime.read(clientAddressActor, courier, id, { kind: "get" });
  if (!existing.ok) {
    const reserved = await runtime.ask(courierClientActor, courier, caller.clientId, {
      kind: "reserve_address",
      address_id: id,
      by: caller.by,
    }, { idempotencyKey: `address:${id}`, permanent: true });
    if (!reserved.ok) throw new Refused(reserved);
  }
  const saved = orRefuse(
    await runtime.ask(clientAddressActor, courier, id, {
      kind: "save",
      id,
      courier_id: courier,
      client_id: caller.clientId,
      fields,
      by: caller.by,
    }),
  );
  if (!("created" in saved)) throw new Error("save answers whether it created");
  return saved;
}

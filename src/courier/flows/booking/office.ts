/**
 * Courier 4.1: the office books for one of its clients (POST /business/shipments): priced on the
 * client's card and settled by its mode, idempotent as the client's own booking in one call.
 */
import { asClient, courierClientActor } from "../../../../actors/courier/courier_client.ts";
import type { Deps } from "../../../environment.ts";
import { orRefuse, refuse } from "../../../runtime/actor.ts";
import type { Booked } from "./replay.ts";
import {
  type BookingRequest,
  bookRequest,
  formerOneCallIdentity,
  oneCallIdentity,
} from "./request.ts";

/** The courier's office booking, and who in it books (audit). */
export interface Office {
  readonly courierId: string;
  readonly by: string;
}

/**
 * Books `req` for the courier's client `clientId`; `key` is the request's Idempotency-Key
 * header, if sent. Without `service_level` the cheapest option is booked.
 */
export async function bookForClient(
  deps: Pick<Deps, "runtime" | "clock" | "db">,
  office: Office,
  clientId: string,
  req: BookingRequest,
  key: string | null,
): Promise<Booked> {
  const courier = office.courierId;
  // spec: courier 4.1: only a client of the calling courier; another's is not found.
  const found = await deps.runtime.read(courierClientActor, courier, clientId, { kind: "get" });
  if (!found.ok && found.code === "not_found") {
    refuse("not_found", `courier_client_id not found: ${clientId}`);
  }
  const account = asClient(orRefuse(found));
  const caller = { courierId: courier, clientId: account.id, client: account, by: office.by };
  // spec: courier 4.1, 7: the same booking request again books nothing new (already_booked),
  // as for the client's own booking; the office's keys are its own, apart from the client's,
  // and one key names one request whatever client it books for. An order reference under
  // unique_external_reference is the client's, whichever channel books it.
  const own = oneCallIdentity(req, key, account);
  const officeKey = own?.startsWith("key:") ?? false;
  const identity = officeKey ? `office:${own}` : own;
  // Booked before the body's key won over the header: under the office's key (its own).
  const formerly = formerOneCallIdentity(req, key);
  const former = formerly === null ? null : { identity: `office:${formerly}`, owner: courier };
  return await bookRequest(deps, caller, req, identity, officeKey ? courier : account.id, former);
}

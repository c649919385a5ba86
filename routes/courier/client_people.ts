/**
 * Courier 4.6 client rows for people and places: the client's users (`GET, POST /client/users`;
 * inviting is for client administrators) and its saved addresses (`GET, POST /client/addresses`).
 * The client's API key acts as the client itself, so it may invite; a signed-in `client_user`
 * may not (403 client_admin_only). An invited user gets a temporary password, shown once, which
 * must be changed before anything else (courier 5).
 */
import {
  ADDRESS_LABEL_CHARS_MAX,
  ADDRESS_NAME_CHARS_MAX,
  ADDRESS_TEXT_CHARS_MAX,
  type AddressFields,
  addressIdOf,
  type ClientAddress,
  clientAddressActor,
} from "../../actors/courier/client_address.ts";
import {
  asClient,
  type ClientUser,
  type CourierClient,
  courierClientActor,
} from "../../actors/courier/courier_client.ts";
import { hashPassword, temporaryPassword } from "../../src/domain/secrets.ts";
import { CLIENT_ADDRESSES_MAX } from "../../src/limits.ts";
import { client, clientPrincipalOf, requireClientAdmin } from "../../src/courier/auth.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ApiError, fromRejection } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Country, Email, UtcInstant } from "../../src/http/schemas.ts";
import { newId } from "../../src/runtime/ids.ts";
import { callerClient } from "./prices.ts";
import { ask } from "../../src/http/ask.ts";
import { iso } from "../../src/domain/iso.ts";
import { addressesOf } from "../../src/courier/queries/client_addresses.ts";

const tag = "Client API";
const security = "client" as const;

const Text = (max: number) => z.string().trim().min(1).max(max);

/** Client administrators may invite users (courier 4.6). */
export const ClientRole = z.enum(["client_admin", "client_user"]);

const InviteUser = z.object({
  email: Email,
  name: Text(200),
  role: ClientRole,
}).openapi("InviteClientUser");

const SaveAddress = z.object({
  label: Text(ADDRESS_LABEL_CHARS_MAX),
  name: Text(ADDRESS_NAME_CHARS_MAX),
  address: Text(ADDRESS_TEXT_CHARS_MAX),
  phone: z.string().regex(/^\+[1-9]\d{6,14}$/, "international format, e.g. +26771234567")
    .optional(),
  country: Country,
  lat: z.number().min(-90).max(90).optional(),
  lng: z.number().min(-180).max(180).optional(),
}).refine((a) => (a.lat === undefined) === (a.lng === undefined), {
  path: ["lng"],
  message: "lat and lng go together",
}).openapi("SaveClientAddress");

// ---- Answers (documentation: tests/http/answers_client_test.ts holds answers to them).

/** A user as the client sees it (userView). */
export const ClientUserAnswer = z.object({
  id: z.string(),
  email: z.email(),
  name: z.string(),
  role: ClientRole,
  created_at: UtcInstant,
  password_change_required: z.boolean().openapi({
    description: "A password that was sent must be changed before anything else",
  }),
}).openapi("ClientUser");

export const InvitedUserAnswer = ClientUserAnswer.extend({
  password: z.string().openapi({ description: "The temporary password, shown once" }),
}).openapi("ClientUserInvited");

/** A saved address (addressView). */
export const ClientAddressAnswer = z.object({
  id: z.string(),
  label: z.string().openapi({ description: "Saving the same label again updates the address" }),
  name: z.string(),
  address: z.string(),
  phone: z.string().nullable(),
  country: Country,
  lat: z.number().nullable(),
  lng: z.number().nullable(),
  created_at: UtcInstant,
  updated_at: UtcInstant,
}).openapi("ClientAddress");

/** A user as the client sees it: never a hash or a session epoch. */
function userView(u: ClientUser, account: CourierClient) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    created_at: iso(u.created_at ?? account.created_at),
    password_change_required: u.must_change_password,
  };
}

function addressView(a: ClientAddress) {
  return {
    id: a.id,
    label: a.label,
    name: a.name,
    address: a.address,
    phone: a.phone,
    country: a.country,
    lat: a.lat,
    lng: a.lng,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
  };
}

export function clientPeopleRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/client/users",
    summary: "The client's users: id, email, name, role, created_at, password_change_required",
    tag,
    security,
    middleware: [client()],
    response: z.array(ClientUserAnswer),
  }, async (c) => {
    const account = await callerClient(c);
    return ok(c, account.users.map((u) => userView(u, account)));
  });

  define(api, {
    method: "post",
    path: "/client/users",
    summary: "Invite a user (client administrators or the client's API key); answers a " +
      "temporary password once, which must be changed before anything else",
    tag,
    security,
    middleware: [client()],
    body: InviteUser,
    status: 201,
    response: InvitedUserAnswer,
    refusals: {
      client_admin_only: "the signed-in person is not a client administrator",
      email_taken: "a client user already has this e-mail",
      client_users_limit: "the client has as many users as a client may",
    },
  }, async (c, { body }) => {
    const p = requireClientAdmin(c, "invite users");
    const env = c.get("env");
    // An e-mail signs in to one client user anywhere (the client_email index).
    if (await env.runtime.lookup("client_email", body.email)) {
      throw new ApiError("email_taken", `a client user already has this e-mail: ${body.email}`);
    }
    const password = temporaryPassword();
    const user: ClientUser = {
      id: newId("cus"),
      email: body.email,
      name: body.name,
      role: body.role,
      password_hash: await hashPassword(password),
      must_change_password: true,
      session_epoch: 0,
      created_at: env.clock.now(),
    };
    const account = asClient(
      await ask(c, courierClientActor, p.business.id, p.client_id, {
        kind: "add_user",
        user,
        by: principalName(p),
      }),
    );
    return ok(c, { ...userView(user, account), password }, 201);
  });

  define(api, {
    method: "get",
    path: "/client/addresses",
    summary: `The client's saved addresses by label (at most ${CLIENT_ADDRESSES_MAX})`,
    tag,
    security,
    middleware: [client()],
    response: z.array(ClientAddressAnswer),
  }, async (c) => {
    const p = clientPrincipalOf(c);
    const addresses = await addressesOf(
      c.get("env").db,
      p.business.id,
      p.client_id,
      CLIENT_ADDRESSES_MAX,
    );
    return ok(c, addresses.map(addressView));
  });

  define(api, {
    method: "post",
    path: "/client/addresses",
    summary: "Save an address under its label: 201 when new; the same label again updates it " +
      `(200). At most ${CLIENT_ADDRESSES_MAX} per client`,
    tag,
    security,
    middleware: [client()],
    body: SaveAddress,
    status: 201,
    alsoAnswers: { status: 200, when: "when the label was saved before: its address is updated" },
    response: ClientAddressAnswer,
    refusals: {
      address_book_full: "a new label when the address book is full; update a saved one instead",
    },
  }, async (c, { body }) => {
    const p = clientPrincipalOf(c);
    const runtime = c.get("env").runtime;
    const courier = p.business.id;
    const id = await addressIdOf(courier, p.client_id, body.label);
    const by = principalName(p);
    const existing = await runtime.read(clientAddressActor, courier, id, { kind: "get" });
    if (!existing.ok) {
      // A new label takes one of the client's places (bounded); once per address, however retried.
      const reserved = await runtime.ask(courierClientActor, courier, p.client_id, {
        kind: "reserve_address",
        address_id: id,
        by,
      }, { idempotencyKey: `address:${id}`, permanent: true });
      if (!reserved.ok) throw fromRejection(reserved);
    }
    const fields: AddressFields = {
      label: body.label,
      name: body.name,
      address: body.address,
      phone: body.phone ?? null,
      country: body.country,
      lat: body.lat ?? null,
      lng: body.lng ?? null,
    };
    const saved = await ask(c, clientAddressActor, courier, id, {
      kind: "save",
      id,
      courier_id: courier,
      client_id: p.client_id,
      fields,
      by,
    });
    if (!("created" in saved)) throw new Error("save answers whether it created");
    return ok(c, addressView(saved.address), saved.created ? 201 : 200);
  });
}

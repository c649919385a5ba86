/**
 * Courier 4.6 client rows for people and places: the client's users (`GET, POST /client/users`;
 * inviting is for client administrators) and its saved addresses (`GET, POST /client/addresses`).
 * The client's API key acts as the client itself, so it may invite; a signed-in `client_user`
 * may not (403 client_admin_only). An invited user gets a temporary password, shown once, which
 * must be changed before anything else (courier 5).
 */
import { addressesOf } from "../../src/courier/queries/client_addresses.ts";
import {
  ADDRESS_LABEL_CHARS_MAX,
  ADDRESS_NAME_CHARS_MAX,
  ADDRESS_TEXT_CHARS_MAX,
} from "../../actors/courier/client_address.ts";
import { inviteUser, saveAddress } from "../../src/courier/flows/client_people.ts";
import { CLIENT_ADDRESSES_MAX } from "../../src/limits.ts";
import {
  callerClient,
  client,
  clientPrincipalOf,
  requireClientAdmin,
} from "../../src/courier/auth.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { Country, Email, Phone } from "../../src/http/schemas.ts";
import {
  addressView,
  ClientAddressAnswer,
  ClientRole,
  ClientUserAnswer,
  InvitedUserAnswer,
  userView,
} from "./answers/client_people.ts";

const tag = "Client API";
const security = "client" as const;

const Text = (max: number) => z.string().trim().min(1).max(max);

const InviteUser = z.object({
  email: Email,
  name: Text(200),
  role: ClientRole,
}).openapi("InviteClientUser");

const SaveAddress = z.object({
  label: Text(ADDRESS_LABEL_CHARS_MAX),
  name: Text(ADDRESS_NAME_CHARS_MAX),
  address: Text(ADDRESS_TEXT_CHARS_MAX),
  phone: Phone.optional(),
  country: Country,
  lat: z.number().min(-90).max(90).optional(),
  lng: z.number().min(-180).max(180).optional(),
}).refine((a) => (a.lat === undefined) === (a.lng === undefined), {
  path: ["lng"],
  message: "lat and lng go together",
}).openapi("SaveClientAddress");

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
      email_taken: "a client user of any courier already has this e-mail (it signs in alone); " +
        "the same words whichever client holds it",
      client_users_limit: "the client has as many users as a client may",
    },
  }, async (c, { body }) => {
    const p = requireClientAdmin(c, "invite users");
    const caller = { courierId: p.business.id, clientId: p.client_id, by: principalName(p) };
    const { user, account, password } = await inviteUser(c.get("env"), caller, body);
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
    const caller = { courierId: p.business.id, clientId: p.client_id, by: principalName(p) };
    const saved = await saveAddress(c.get("env"), caller, {
      label: body.label,
      name: body.name,
      address: body.address,
      phone: body.phone ?? null,
      country: body.country,
      lat: body.lat ?? null,
      lng: body.lng ?? null,
    });
    return ok(c, addressView(saved.address), saved.created ? 201 : 200);
  });
}

/** Courier 4.6 client rows for people and places: the client's users and saved addresses. */
import type { ClientAddress } from "../../../actors/courier/client_address.ts";
import type { ClientUser, CourierClient } from "../../../actors/courier/courier_client.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { Country, UtcInstant } from "../../../src/http/schemas.ts";

/** Client administrators may invite users (courier 4.6). */
export const ClientRole = z.enum(["client_admin", "client_user"]);

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
export function userView(u: ClientUser, account: CourierClient) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    created_at: iso(u.created_at ?? account.created_at),
    password_change_required: u.must_change_password,
  };
}

export function addressView(a: ClientAddress) {
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

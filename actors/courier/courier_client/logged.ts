/**
 * A client's event as the log and the bus keep it (courier 4.6, 5): the webhook's secret (even
 * sealed), the API key's hash and the users' password hashes stay in the state, which signing in
 * checks against; the rest names the key by its hint and a user by id and e-mail. Events logged
 * whole by earlier versions still evolve to the same state.
 */
import {
  keyMention,
  sealsBoundMention,
  secretMention,
  withoutPassword,
} from "../../../src/domain/credentials.ts";
import type { CourierClientEvent } from "./messages.ts";

export function loggedEvent(e: CourierClientEvent): unknown {
  switch (e.kind) {
    case "client_created": {
      const { api_key, users, webhook, ...client } = e.client;
      return {
        ...e,
        client: {
          ...client,
          api_key: keyMention(api_key),
          users: users.map(withoutPassword),
          ...(webhook === undefined ? {} : {
            webhook: webhook && { url: webhook.url, secret: secretMention(webhook.secret) },
          }),
        },
      };
    }
    case "api_key_rotated":
      return { ...e, key: keyMention(e.key) };
    case "user_added":
      return { ...e, user: withoutPassword(e.user) };
    case "password_changed":
      return withoutPassword(e);
    case "webhook_set":
      return { ...e, secret: secretMention(e.secret) };
    case "webhook_seals_bound":
      return sealsBoundMention(e);
    default:
      return e;
  }
}

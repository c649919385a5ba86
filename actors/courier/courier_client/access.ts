/**
 * Who the client is and who acts for it (courier 4.6, 5; CONTRACT "Sign-in and people"): its API
 * key and webhook, its users signing in and invited, and its saved addresses.
 */
import { accept, type Decision, reject, unreachable } from "../../../src/runtime/actor.ts";
import { EMAIL_TAKEN, emailTakenMessage } from "../../../src/domain/emails.ts";
import { withBoundSeal } from "../../../src/domain/credentials.ts";
import { constantTimeEqual } from "../../../src/domain/secrets.ts";
import { CLIENT_ADDRESSES_MAX, CLIENT_USERS_MAX } from "../../../src/limits.ts";
import type { ClientUser, CourierClient } from "./state.ts";
import type {
  CourierClientCommand,
  CourierClientEvent,
  CourierClientReply,
  CourierClientState,
} from "./messages.ts";
import { type D, ok } from "./decisions.ts";

const UNAUTHENTICATED = reject("unauthenticated", "unknown client credential");

function withoutHash(u: ClientUser): Omit<ClientUser, "password_hash"> {
  const { password_hash: _, ...rest } = u;
  return rest;
}

/** Who the client is and who acts for it: its key, webhook, users and saved addresses. */
export function decideAccess(
  state: CourierClient,
  command: Extract<
    CourierClientCommand,
    {
      kind:
        | "rotate_api_key"
        | "set_webhook"
        | "bind_webhook_seals"
        | "authenticate_key"
        | "authenticate_user"
        | "user_for_login"
        | "change_password";
    }
  >,
): D {
  switch (command.kind) {
    case "rotate_api_key":
      // Two rotations of one key at once are one: the later one's key would be shown and never
      // work (as the business key's, business 4.3).
      if (!constantTimeEqual(state.api_key.hash, command.replaces)) {
        return reject("key_already_rotated", "the key was rotated meanwhile: use the new key");
      }
      return ok([{ kind: "api_key_rotated", key: command.key, by: command.by }]);
    case "set_webhook":
      return ok([{
        kind: "webhook_set",
        url: command.url,
        secret: command.secret,
        by: command.by,
      }]);
    case "bind_webhook_seals": {
      // Only seals still unbound and still held: binding again, or after a change, is nothing.
      const secret = withBoundSeal(state.webhook?.secret, command.secret);
      const previous = withBoundSeal(state.webhook?.previous, command.previous);
      if (secret === null && previous === null) return ok([]);
      return ok([{ kind: "webhook_seals_bound", secret, previous }]);
    }
    case "authenticate_key":
      if (!constantTimeEqual(state.api_key.hash, command.hash)) return UNAUTHENTICATED;
      return ok([], () => ({
        client_id: state.id,
        business_id: state.business_id,
        user: null,
        api_key_hash: state.api_key.hash,
      }));
    case "authenticate_user": {
      const user = state.users.find((u) => u.id === command.user_id);
      if (!user || user.session_epoch !== command.session_epoch) return UNAUTHENTICATED;
      return ok([], () => ({
        client_id: state.id,
        business_id: state.business_id,
        user: withoutHash(user),
        api_key_hash: state.api_key.hash,
      }));
    }
    case "user_for_login": {
      const user = state.users.find((u) => u.email === command.email);
      if (!user) return UNAUTHENTICATED;
      return ok([], () => ({
        user_id: user.id,
        password_hash: user.password_hash,
        session_epoch: user.session_epoch,
      }));
    }
    case "change_password":
      return changePassword(state, command);
    default:
      return unreachable(command);
  }
}

/**
 * spec: courier 5: a change signs the person's other sessions out. One checked under an epoch that
 * has moved since (another session changed it meanwhile) is such a session's: it would overwrite a
 * password just set, and answer a session already ended.
 */
function changePassword(
  state: CourierClient,
  command: Extract<CourierClientCommand, { kind: "change_password" }>,
): D {
  const user = state.users.find((u) => u.id === command.user_id);
  if (!user) return reject("not_found", `user not found: ${command.user_id}`);
  if (user.session_epoch !== command.session_epoch) {
    return reject(
      "unauthenticated",
      "the session was signed out: the password was changed meanwhile; sign in again",
    );
  }
  return ok([{
    kind: "password_changed",
    user_id: command.user_id,
    password_hash: command.password_hash,
    by: command.by,
  }]);
}

/** spec: courier 4.6: a saved address, counted against the address book's bound. */
export function reserveAddress(
  state: CourierClient,
  c: Extract<CourierClientCommand, { kind: "reserve_address" }>,
): D {
  if ((state.addresses_total ?? 0) >= CLIENT_ADDRESSES_MAX) {
    return reject(
      "address_book_full",
      `the address book is full: ${CLIENT_ADDRESSES_MAX} addresses; update a saved one instead`,
    );
  }
  // No reply: it is kept for good under the address's idempotency key, so it stays small.
  return ok(
    [{ kind: "address_reserved", address_id: c.address_id, by: c.by }],
    () => undefined,
  );
}

/** spec: courier 4.6: a client administrator invites a user; an e-mail names one user. */
export function addUser(
  state: CourierClient,
  c: Extract<CourierClientCommand, { kind: "add_user" }>,
): Decision<CourierClientState, CourierClientEvent, CourierClientReply> {
  if (state.users.some((u) => u.email === c.user.email)) {
    // The same words as when another client holds it (src/domain/emails.ts).
    return reject(EMAIL_TAKEN, emailTakenMessage("client user", c.user.email));
  }
  if (state.users.length >= CLIENT_USERS_MAX) {
    return reject("client_users_limit", `a client has at most ${CLIENT_USERS_MAX} users`);
  }
  return accept([{ kind: "user_added", user: c.user, by: c.by }], (s) => s ?? undefined);
}

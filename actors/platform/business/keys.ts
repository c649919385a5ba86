/**
 * The business's credentials (Business API 4.3, 5.2, 5.5): the integration key (and a legacy
 * unprefixed one), the webhook secret and partner keys, each held as a hash or sealed; and what a
 * key sent with a request authenticates as.
 */
import { withBoundSeal } from "../../../src/domain/credentials.ts";
import { constantTimeEqual } from "../../../src/domain/secrets.ts";
import { reject } from "../../../src/runtime/actor.ts";
import { type Accepted, ok, UNAUTHENTICATED } from "./accepted.ts";
import type { Authenticated, Business, BusinessCommand } from "./types.ts";
import { accessOf } from "./views.ts";

type KeyCommand = Extract<
  BusinessCommand,
  {
    kind:
      | "rotate_api_key"
      | "import_legacy_key"
      | "rotate_webhook_secret"
      | "bind_webhook_seals"
      | "issue_partner_key"
      | "revoke_partner_key";
  }
>;

export function decideKeys(state: Business, command: KeyCommand, now: number) {
  switch (command.kind) {
    case "rotate_api_key":
      if (!holdsKey(state, command.replaces)) {
        // spec: business 4.3: two rotations of one key at once are one; the later one's key
        // would be shown and never work, or replace the key just shown to the other.
        return reject("key_already_rotated", "the key was rotated meanwhile: use the new key");
      }
      return ok([{ kind: "api_key_rotated", key: command.key, by: command.by }]);
    case "import_legacy_key":
      return ok([{ kind: "legacy_key_imported", key: command.key, by: command.by }]);
    case "rotate_webhook_secret":
      if (state.webhook_secret.key_id !== command.replaces) {
        // spec: business 5.6; CONTRACT Signatures: two rotations at once are one; the later
        // would end the grace of the secret before at once and replace the one just shown.
        return reject("key_already_rotated", "the secret was rotated meanwhile: use the new one");
      }
      return ok([{ kind: "webhook_secret_rotated", secret: command.secret, by: command.by }]);
    case "bind_webhook_seals": {
      // Only seals still unbound and still held: binding again, or after a rotation, is nothing.
      const secret = withBoundSeal(state.webhook_secret, command.secret);
      const previous = withBoundSeal(state.webhook_secret_previous, command.previous);
      if (secret === null && previous === null) return ok([]);
      return ok([{ kind: "webhook_seals_bound", secret, previous }]);
    }
    case "issue_partner_key":
      return ok([{
        kind: "partner_key_issued",
        key: { ...command.key, revoked_at: null },
        by: command.by,
      }]);
    case "revoke_partner_key": {
      const key = state.partner_keys.find((k) => k.id === command.id);
      if (!key) return reject("not_found", `partner key not found: ${command.id}`);
      if (key.revoked_at !== null) {
        return ok([]);
      }
      return ok([{ kind: "partner_key_revoked", id: command.id, at: now, by: command.by }]);
    }
  }
}

/** Whether `hash` is the business's integration key now, or its legacy one. */
function holdsKey(state: Business, hash: string): boolean {
  const legacy = state.legacy_api_key;
  // Both compared, so the time taken says nothing of which matched.
  const current = constantTimeEqual(state.api_key.hash, hash);
  return (legacy !== null && constantTimeEqual(legacy.hash, hash)) || current;
}

/** What the key with `hash` authenticates as: the business key, a legacy one, or a partner's. */
export function authenticateKey(state: Business, hash: string) {
  const granted = (principal: Authenticated): Accepted =>
    ok([], () => ({
      access: accessOf(state),
      principal,
    }));
  const scopes = state.settings.api_key_scopes;
  const webhook_key_id = state.webhook_secret.key_id;
  if (constantTimeEqual(state.api_key.hash, hash)) {
    return granted({ as: "business_key", legacy: false, scopes, webhook_key_id });
  }
  if (state.legacy_api_key && constantTimeEqual(state.legacy_api_key.hash, hash)) {
    return granted({ as: "business_key", legacy: true, scopes, webhook_key_id });
  }
  const partner = state.partner_keys.find((k) => constantTimeEqual(k.hash, hash));
  if (partner && partner.revoked_at === null) {
    return granted({
      as: "partner",
      partner_key_id: partner.id,
      partner: partner.partner,
      scopes: partner.scopes,
    });
  }
  return UNAUTHENTICATED;
}

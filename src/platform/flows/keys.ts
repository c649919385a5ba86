/**
 * A business's credentials (Business API 4.3, 5.5, 5.6): the integration key and the webhook
 * signing secret, rotated by the account itself; partner keys, issued and revoked by the operator
 * on the merchant's request. Each secret is shown once; only its hash (a key) or its sealed form
 * (the webhook secret) is kept.
 */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { issueCredential } from "../../domain/credentials.ts";
import { newSecret, seal, sealOwner } from "../../domain/secrets.ts";
import { apiKeyPrefix, type Deps } from "../../environment.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import { type BusinessPrincipal, partnerKeyPrefix, principalName } from "../identity.ts";
import { businessOf } from "./businesses.ts";
import type { Scope } from "../rules/scopes.ts";

export interface ApiKeyRotated {
  readonly api_key: string;
  readonly hint: string;
}

/**
 * spec: business 4.3: rotates the integration key; the previous key is invalid at once. The key
 * rotated is the one the caller sent, or for a person signed in the one held when the request
 * arrived: a rotation that finds another key by then (one sent at the same time won) is refused.
 */
export function rotateApiKey(
  deps: Pick<Deps, "name" | "runtime" | "clock" | "requestId">,
  caller: BusinessPrincipal,
): Promise<ApiKeyRotated> {
  const replaces = caller.kind === "business_key"
    ? caller.key_hash
    : caller.kind === "staff"
    ? caller.api_key_hash
    : undefined;
  return rotateApiKeyOf(deps, caller.business.id, principalName(caller), replaces);
}

/**
 * Rotates business `id`'s integration key for `by` (the caller, or the live account's twin):
 * the key whose hash is `replaces`, else the one held now.
 */
export async function rotateApiKeyOf(
  deps: Pick<Deps, "name" | "runtime" | "clock" | "requestId">,
  id: string,
  by: string,
  replaces?: string,
): Promise<ApiKeyRotated> {
  const rotated = replaces ?? (await businessOf(deps.runtime, id)).api_key.hash;
  const key = await issueCredential(apiKeyPrefix(deps.name), deps.clock.now());
  orRefuse(
    await deps.runtime.ask(businessActor, id, id, {
      kind: "rotate_api_key",
      key: key.record,
      replaces: rotated,
      by,
    }, { requestId: deps.requestId }),
  );
  return { api_key: key.secret, hint: key.record.hint };
}

export interface WebhookSecretRotated {
  readonly webhook_secret: string;
  /** As deliveries name it in `X-Service-Key-Id`. */
  readonly key_id: string;
}

/**
 * Rotates the webhook signing secret (the previous one signs beside it for a grace period): the
 * one held when the request arrived, so of two rotations sent at once the later is refused.
 */
export function rotateWebhookSecret(
  deps: Pick<Deps, "runtime" | "clock" | "dataKey" | "requestId">,
  caller: BusinessPrincipal,
): Promise<WebhookSecretRotated> {
  const replaces = caller.kind === "business_key" || caller.kind === "staff"
    ? caller.webhook_key_id
    : undefined;
  return rotateWebhookSecretOf(deps, caller.business.id, principalName(caller), replaces);
}

/**
 * Rotates business `id`'s webhook signing secret for `by`: the secret whose key id is
 * `replaces`, else the one held now.
 */
export async function rotateWebhookSecretOf(
  deps: Pick<Deps, "runtime" | "clock" | "dataKey" | "requestId">,
  id: string,
  by: string,
  replaces?: string,
): Promise<WebhookSecretRotated> {
  const rotated = replaces ?? (await businessOf(deps.runtime, id)).webhook_secret.key_id;
  const secret = newSecret("whsec_");
  const keyId = newId("whk");
  const sealed = await seal(deps.dataKey, secret, sealOwner("business_webhook", id, id));
  orRefuse(
    await deps.runtime.ask(businessActor, id, id, {
      kind: "rotate_webhook_secret",
      secret: { ...sealed, key_id: keyId, created_at: deps.clock.now() },
      replaces: rotated,
      by,
    }, { requestId: deps.requestId }),
  );
  return { webhook_secret: secret, key_id: keyId };
}

/**
 * The webhook secret rotated by a caller whose key rotation has just landed (the sandbox twin's
 * credentials, a sign-up again): a call at the same time that rotated the key after this one
 * rotates the secret too, and whichever is refused key_already_rotated asks again with the secret
 * held then. Refused, the caller would answer 409 with its key already replaced and the other's key
 * shown: neither key working (spec: business 4.4, as two calls one after the other).
 */
export async function rotateWebhookSecretAfterKey(
  deps: Pick<Deps, "runtime" | "clock" | "dataKey" | "requestId">,
  id: string,
  by: string,
): Promise<WebhookSecretRotated> {
  for (let attempt = 1;; attempt++) {
    try {
      return await rotateWebhookSecretOf(deps, id, by);
    } catch (e) {
      const raced = e instanceof Refused && e.rejection.code === "key_already_rotated";
      if (!raced || attempt >= 3) throw e;
    }
  }
}

export interface PartnerKeyIssued {
  readonly id: string;
  /** `ak_live_...` or `ak_sandbox_...`, sent in `X-Business-API-Key`; shown this once. */
  readonly key: string;
  readonly partner: string;
  readonly scopes: readonly Scope[];
}

/** spec: business 5.5: a partner key with the scopes the merchant named, issued by the operator. */
export async function issuePartnerKey(
  deps: Pick<Deps, "runtime" | "clock" | "requestId" | "name">,
  businessId: string,
  input: { readonly partner: string; readonly scopes: readonly Scope[] },
): Promise<PartnerKeyIssued> {
  const id = newId("pk");
  const key = await issueCredential(partnerKeyPrefix(deps.name), deps.clock.now());
  const { partner, scopes } = input;
  orRefuse(
    await deps.runtime.ask(businessActor, businessId, businessId, {
      kind: "issue_partner_key",
      key: { ...key.record, id, partner, scopes },
      by: "operator",
    }, { requestId: deps.requestId }),
  );
  return { id, key: key.secret, partner, scopes };
}

/** spec: business 5.5: revokes a partner key; the business and its other keys are unaffected. */
export async function revokePartnerKey(
  deps: Pick<Deps, "runtime" | "requestId">,
  id: string,
): Promise<void> {
  const owner = await deps.runtime.lookup("partner_key", id);
  if (!owner) refuse("not_found", `partner key not found: ${id}`);
  orRefuse(
    await deps.runtime.ask(businessActor, owner.tenant, owner.id, {
      kind: "revoke_partner_key",
      id,
      by: "operator",
    }, { requestId: deps.requestId }),
  );
}

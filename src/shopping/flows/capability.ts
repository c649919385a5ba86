/**
 * Shopping fulfilment settings (shopping 2.1, 4): read, changed, and the `shf_` secret rotated.
 * The webhook URL is checked as every webhook address is (public HTTPS, no credentials); the
 * secret is sealed for its business and shown only in the rotation's answer.
 */
import {
  type ShoppingCapability,
  shoppingCapabilityActor,
} from "../../../actors/shopping/capability.ts";
import type { Deps } from "../../environment.ts";
import { newSecret, seal, sealOwner } from "../../domain/secrets.ts";
import { checkWebhookUrl } from "../../outbound/url_guard.ts";
import { webhookUrlRules } from "../../platform/flows/webhook_urls.ts";
import { invalidFields, orRefuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import type { ShoppingSettings } from "../rules/settings.ts";
import { SHOPPING_SECRET_PREFIX } from "../rules/settings.ts";

type CapabilityDeps = Pick<Deps, "runtime">;

/** The business's settings as held now (the defaults until changed). */
export async function shoppingCapabilityOf(
  deps: CapabilityDeps,
  business: string,
): Promise<ShoppingCapability> {
  return orRefuse(
    await deps.runtime.read(shoppingCapabilityActor, business, business, { kind: "get" }),
  );
}

/** What PUT may change; `webhook_url: null` clears it. */
export type ShoppingSettingsChange = {
  readonly [K in keyof ShoppingSettings]?: ShoppingSettings[K] | undefined;
};

/**
 * spec: shopping 2.1: changes the settings; a webhook_url that is not public HTTPS, or holds
 * credentials, is refused 422 naming it, and nothing changes.
 */
export async function changeShoppingCapability(
  deps: Pick<Deps, "runtime" | "allowLoopbackWebhooks" | "requestId">,
  business: string,
  input: { readonly changes: ShoppingSettingsChange; readonly by: string },
): Promise<ShoppingCapability> {
  const changes: { -readonly [K in keyof ShoppingSettings]?: ShoppingSettings[K] } = {};
  const { webhook_url, ask_timeout_minutes, receipt_url_ttl_minutes } = input.changes;
  if (webhook_url !== undefined && webhook_url !== null) {
    const verdict = checkWebhookUrl(webhook_url, await webhookUrlRules(deps));
    if (!verdict.ok) {
      throw new Refused(invalidFields([{ path: "webhook_url", message: verdict.message }]));
    }
    // What was checked is kept, never the text as sent (url_guard.ts).
    changes.webhook_url = verdict.url.href;
  } else if (webhook_url === null) changes.webhook_url = null;
  if (ask_timeout_minutes !== undefined) changes.ask_timeout_minutes = ask_timeout_minutes;
  if (receipt_url_ttl_minutes !== undefined) {
    changes.receipt_url_ttl_minutes = receipt_url_ttl_minutes;
  }
  return orRefuse(
    await deps.runtime.ask(shoppingCapabilityActor, business, business, {
      kind: "change",
      changes,
      by: input.by,
    }, { requestId: deps.requestId }),
  );
}

/** The owner a business's shopping secret is sealed for (the sender unseals with the same). */
export function shoppingSecretOwner(business: string): string {
  return sealOwner("shopping_webhook", business, business);
}

/**
 * spec: shopping 2.1, 4: a new `shf_` secret, in force at once (for retries of older events too:
 * each attempt reads the secret held then); answered this once, stored only sealed.
 */
export async function rotateShoppingSecret(
  deps: Pick<Deps, "runtime" | "clock" | "dataKey" | "requestId">,
  business: string,
  by: string,
): Promise<{ readonly webhook_secret: string; readonly key_id: string }> {
  const secret = newSecret(SHOPPING_SECRET_PREFIX);
  const keyId = newId("shk");
  const sealed = await seal(deps.dataKey, secret, shoppingSecretOwner(business));
  orRefuse(
    await deps.runtime.ask(shoppingCapabilityActor, business, business, {
      kind: "rotate_secret",
      secret: { ...sealed, key_id: keyId, created_at: deps.clock.now() },
      by,
    }, { requestId: deps.requestId }),
  );
  return { webhook_secret: secret, key_id: keyId };
}

/**
 * The account profile (Business API 4.3 profile, 5.6): company name, billing contact, webhook
 * address and low-balance threshold. The company record is for a person signed in; the
 * integration key manages only the webhook.
 */
import type { Business, Profile } from "../../../actors/platform/business/mod.ts";
import { asBusiness, businessActor } from "../../../actors/platform/business/mod.ts";
import { formatMinor, toMinor } from "../../domain/money.ts";
import { stripUndefined } from "../../domain/objects.ts";
import type { Deps } from "../../environment.ts";
import { checkWebhookUrl } from "../../outbound/url_guard.ts";
import { webhookUrlRules } from "./webhook_urls.ts";
import { invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { type BusinessPrincipal, principalName } from "../identity.ts";
import { businessOf } from "./businesses.ts";

/** What a caller may change of the profile: each field sent; null clears it. */
export interface ProfileChanges {
  readonly name?: string | undefined;
  readonly billing_contact?: string | null | undefined;
  readonly webhook_url?: string | null | undefined;
  /** An amount in the account's currency (a JSON number or a decimal string). */
  readonly low_balance_threshold?: number | string | null | undefined;
}

/** Changes the profile; only what differs is recorded (and e-mailed, for the webhook address). */
export async function changeProfile(
  deps: Pick<Deps, "runtime" | "allowLoopbackWebhooks" | "requestId">,
  caller: BusinessPrincipal,
  input: ProfileChanges,
): Promise<Business> {
  // spec: business 5.6: the company record is for an admin; the integration key manages only
  // the webhook.
  if (
    caller.kind === "business_key" &&
    (input.name !== undefined || input.billing_contact !== undefined)
  ) {
    refuse(
      "signed_in_admin_only",
      "the company record needs the owner or a portal admin signed in",
    );
  }
  let checked: { webhook_url?: string } = {};
  if (input.webhook_url) {
    const verdict = checkWebhookUrl(input.webhook_url, await webhookUrlRules(deps));
    if (!verdict.ok) {
      throw new Refused(invalidFields([{ path: "webhook_url", message: verdict.message }]));
    }
    // What was checked is kept, never the text as sent (url_guard.ts).
    checked = { webhook_url: verdict.url.href };
  }
  const { low_balance_threshold, ...rest } = { ...stripUndefined(input), ...checked };
  const id = caller.business.id;
  const changes: Partial<Profile> = {
    ...rest,
    ...(low_balance_threshold === undefined ? {} : {
      low_balance_threshold: low_balance_threshold === null
        ? null
        : await thresholdText(deps.runtime, id, low_balance_threshold),
    }),
  };
  return asBusiness(orRefuse(
    await deps.runtime.ask(businessActor, id, id, {
      kind: "change_profile",
      changes,
      by: principalName(caller),
    }, { requestId: deps.requestId }),
  ));
}

/**
 * The low-balance threshold is money in the account's currency: an exact decimal with no more
 * places than the currency has, kept in its canonical form (`"50.00"`, never `"1e+21"` or
 * `"0.30000000000000004"`).
 */
async function thresholdText(
  runtime: ActorRuntime,
  businessId: string,
  value: number | string,
): Promise<string> {
  const { currency } = await businessOf(runtime, businessId);
  const parsed = toMinor(value, currency);
  if (!parsed.ok || parsed.minor < 0) {
    throw new Refused(invalidFields([{
      path: "low_balance_threshold",
      message: parsed.ok ? `must not be negative: ${value}` : parsed.message,
    }]));
  }
  return formatMinor(parsed.minor, currency);
}

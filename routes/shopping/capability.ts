/**
 * Shopping 2.1, 4: the capability's settings (GET, PUT /business/shopping-fulfilment), its `shf_`
 * secret (POST .../secret/rotate) and its delivery history (GET .../deliveries). Every one answers
 * 403 SHOPPING_FULFILMENT_OFF until the operator enables the capability.
 */
import type { Context } from "hono";
import {
  changeShoppingCapability,
  rotateShoppingSecret,
  shoppingCapabilityOf,
} from "../../src/shopping/flows/capability.ts";
import { shoppingDeliveries } from "../../src/shopping/queries/deliveries.ts";
import { shoppingFulfilment } from "../../src/shopping/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, z } from "../../src/http/route.ts";
import { business, portalAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import {
  SHOPPING_ASK_TIMEOUT_MINUTES_MAX,
  SHOPPING_DELIVERY_HISTORY_MAX,
  SHOPPING_RECEIPT_TTL_MINUTES_MAX,
  SHOPPING_RECEIPT_TTL_MINUTES_MIN,
} from "../../src/limits.ts";
import {
  deliveryView,
  SecretAnswer,
  settingsView,
  ShoppingDeliveryAnswer,
  ShoppingEventSent,
  ShoppingSettingsAnswer,
} from "./answers/capability.ts";
import { EXAMPLE_URL } from "../../src/http/schemas.ts";
import { documentWebhook } from "../../src/http/openapi_webhooks.ts";

const tag = "Shopping fulfilment";
const security = "business" as const;
// spec: business 5.6: the webhook and its secret are the integration's; a coordinator's not.
const middleware = [business(), portalAdmin, shoppingFulfilment];
const PATH = "/business/shopping-fulfilment";

const SettingsBody = z.object({
  webhook_url: z.string().trim().min(1).max(2_000).nullable().optional().openapi({
    description: "Public HTTPS only: no private, loopback or metadata address, no credentials " +
      "in the URL; checked again at every attempt, redirects never followed. null clears it",
    example: EXAMPLE_URL,
  }),
  ask_timeout_minutes: z.number().int().min(1).max(SHOPPING_ASK_TIMEOUT_MINUTES_MAX).optional()
    .openapi({ description: "The decision window of a line under `ask` (default 5)" }),
  receipt_url_ttl_minutes: z.number().int().min(SHOPPING_RECEIPT_TTL_MINUTES_MIN)
    .max(SHOPPING_RECEIPT_TTL_MINUTES_MAX).optional().openapi({
      description: `How long a receipt_photo_url is valid: at least ` +
        `${SHOPPING_RECEIPT_TTL_MINUTES_MIN} minutes (default 1,440)`,
    }),
});

async function settingsOf(c: Context<AppEnv>) {
  const { env, tenant, principal } = businessCall(c);
  const held = await shoppingCapabilityOf(env, tenant);
  return settingsView(held, principal.business.shopping_fulfilment_enabled);
}

export function shoppingCapabilityRoutes(api: Api): void {
  documentWebhook(api, {
    name: "shoppingEvent",
    summary: "Shopping event (shopping 6)",
    body: ShoppingEventSent,
    headers: "shopping",
  });
  define(api, {
    method: "get",
    path: PATH,
    summary: "The shopping fulfilment settings",
    tag,
    security,
    middleware,
    response: ShoppingSettingsAnswer,
  }, async (c) => ok(c, await settingsOf(c)));

  define(api, {
    method: "put",
    path: PATH,
    summary: "Change the shopping fulfilment settings: webhook_url, the decision window, the " +
      "receipt links' life",
    description: "Fields left out keep their value. A changed webhook_url is e-mailed to the " +
      "account owner (Business API 5.6); the same value again changes nothing.",
    tag,
    security,
    middleware,
    body: SettingsBody,
    response: ShoppingSettingsAnswer,
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    await changeShoppingCapability(env, tenant, { changes: body, by });
    return ok(c, await settingsOf(c));
  });

  define(api, {
    method: "post",
    path: `${PATH}/secret/rotate`,
    summary: "Issue a new `shf_` webhook secret, shown once, in force at once",
    description: "Every attempt from now on is signed with it, retries of older events too; " +
      "the previous secret signs nothing more. The account owner is e-mailed of the change " +
      "(the secret's key id, never the secret).",
    tag,
    security,
    middleware,
    response: SecretAnswer,
  }, async (c) => {
    const { env, tenant, by } = businessCall(c);
    const rotated = await rotateShoppingSecret(env, tenant, by);
    return ok(c, { webhook_secret: rotated.webhook_secret });
  });

  define(api, {
    method: "get",
    path: `${PATH}/deliveries`,
    summary: `The last ${SHOPPING_DELIVERY_HISTORY_MAX} shopping events sent, newest first, ` +
      "with their state, attempts and last error",
    description: "Events: shopping.store_collected (every store whose part ended, an " +
      "unavailable one with store.status unavailable), shopping.decision_required (a line " +
      "under `ask` awaits the customer until decide_by), shopping.basket_collected (every " +
      "store finished: the float reconciled, a signed packing_slip_url). Signed V2 only " +
      "(X-Service-Timestamp, X-Service-Delivery = event_id on every retry, X-Service-Event, " +
      "X-Service-Signature-V2) with the secret held at each attempt. None is made while the " +
      "capability is off or no webhook_url or secret is set (sending false). Follows the " +
      "service's changes within the projection lag (GET /api/metrics).",
    tag,
    security,
    middleware,
    response: z.array(ShoppingDeliveryAnswer),
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    return ok(c, (await shoppingDeliveries(env.db, tenant)).map(deliveryView));
  });
}

/**
 * Where a business's shopping events go (shopping 2.1, 6), resolved at every attempt: its
 * shopping webhook URL and `shf_` secret as held then (so a rotation signs the retries of older
 * events at once, and a URL changed or cleared is honoured). None while the operator has the
 * capability off, or no URL or no secret is set: the attempt finds no endpoint and the engine
 * tries again hourly, as for every recipient.
 */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { shoppingCapabilityActor } from "../../../actors/shopping/capability.ts";
import type { OutboundTarget } from "../../../actors/platform/outbound_event/mod.ts";
import type { TargetResolver } from "../../platform/delivery_hooks.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/** Where the business's shopping events are sent now; null: nowhere (nothing is made). */
export async function shoppingTargetOf(
  runtime: ActorRuntime,
  business: string,
): Promise<OutboundTarget | null> {
  const [account, capability] = await Promise.all([
    runtime.read(businessActor, business, business, { kind: "get" }),
    runtime.read(shoppingCapabilityActor, business, business, { kind: "get" }),
  ]);
  // A refused read (a busy actor) is no answer that nothing is set: the attempt fails and is
  // retried on the schedule.
  for (const got of [account, capability]) {
    if (!got.ok && got.code !== "not_found") throw new Error(`${got.code}: ${got.message}`);
  }
  if (!account.ok || !account.reply || !("settings" in account.reply)) return null;
  if (!account.reply.settings.shopping_fulfilment_enabled || !capability.ok) return null;
  const { webhook_url, webhook_secret } = capability.reply;
  if (!webhook_url || !webhook_secret) return null;
  return { url: webhook_url, key_id: webhook_secret.key_id, sealed_secret: webhook_secret };
}

export function shoppingWebhookTargets(runtime: ActorRuntime): TargetResolver {
  return async (tenant, recipient) => {
    if (recipient.kind !== "shopping") return undefined;
    // spec: shopping 4: the secret in force now, with no grace period for the one rotated out.
    const target = await shoppingTargetOf(runtime, tenant);
    return target && { ...target, previous: null };
  };
}

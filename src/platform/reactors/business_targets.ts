/**
 * Where a business's own webhook events go (Business API 6): its webhook URL, looked up at each
 * attempt (a URL set, changed or cleared since the event was made is honoured), signed with its
 * webhook secret, and with the rotated-out secret too during its grace period. Only the
 * `business` recipient: the others are the documents' (the courier's targets).
 */
import { businessActor, type PreviousSecret } from "../../../actors/platform/business/mod.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { TargetResolver } from "../delivery_hooks.ts";

export function businessWebhookTargets(runtime: ActorRuntime, clock: Clock): TargetResolver {
  const previousOf = (p: PreviousSecret | null | undefined) =>
    p && p.expires_at > clock.now() ? { key_id: p.key_id, sealed_secret: p } : null;
  return async (tenant, recipient) => {
    if (recipient.kind !== "business") return undefined;
    const got = await runtime.read(businessActor, tenant, tenant, { kind: "get" });
    // A refused read (a busy actor) is no answer that there is no URL: the attempt fails and is
    // retried on the schedule.
    if (!got.ok && got.code !== "not_found") {
      throw new Error(`business ${tenant}: ${got.code}: ${got.message}`);
    }
    if (!got.ok || !got.reply || !("profile" in got.reply)) return null;
    const b = got.reply;
    if (!b.profile.webhook_url) return null;
    return {
      url: b.profile.webhook_url,
      key_id: b.webhook_secret.key_id,
      sealed_secret: b.webhook_secret,
      previous: previousOf(b.webhook_secret_previous),
    };
  };
}

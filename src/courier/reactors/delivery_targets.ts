/**
 * Where an outbound event goes, looked up at each attempt (courier 6.1, 6.2): the courier's
 * billing endpoint or else its business webhook URL, signed with the courier's webhook secret;
 * or a client's own webhook, signed with the client's own secret (never the courier's). A secret
 * replaced by a rotation still signs a second header until its grace period ends.
 */
import { businessActor, type PreviousSecret } from "../../../actors/platform/business/mod.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import type { Recipient } from "../../../actors/platform/outbound_event/mod.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { DeliveryTarget } from "../../platform/reactors/deliver.ts";

export function targetResolver(runtime: ActorRuntime, clock: Clock) {
  const previousOf = (p: PreviousSecret | null | undefined) =>
    p && p.expires_at > clock.now() ? { key_id: p.key_id, sealed_secret: p } : null;

  return async (tenant: string, recipient: Recipient): Promise<DeliveryTarget | null> => {
    if (recipient.kind === "courier") {
      const got = await runtime.read(businessActor, tenant, tenant, { kind: "get" });
      refusedRead(got, `business ${tenant}`);
      if (!got.ok || !got.reply || !("profile" in got.reply)) return null;
      const b = got.reply;
      // spec: courier 6.1: the billing endpoint, or else the business webhook URL.
      const url = b.profile.billing_endpoint_url || b.profile.webhook_url;
      if (!url) return null;
      return {
        url,
        key_id: b.webhook_secret.key_id,
        sealed_secret: b.webhook_secret,
        previous: previousOf(b.webhook_secret_previous),
      };
    }
    // A business's own webhooks are the platform's to resolve (business_targets.ts).
    if (recipient.kind !== "client") return null;
    const got = await runtime.read(courierClientActor, tenant, recipient.client_id, {
      kind: "get",
    });
    refusedRead(got, `client ${recipient.client_id}`);
    if (!got.ok || !got.reply || !("settings" in got.reply)) return null;
    const hook = got.reply.webhook;
    if (!hook) return null;
    return {
      url: hook.url,
      key_id: hook.secret.key_id,
      sealed_secret: hook.secret,
      previous: previousOf(hook.previous),
    };
  };
}

/**
 * spec: courier 3.1: a refused read (a busy actor) is no answer that no endpoint is set: thrown,
 * so the attempt fails and is retried on the schedule, and no wait or endpoint alert is noted.
 */
function refusedRead(got: { ok: boolean; code?: string; message?: string }, what: string) {
  if (!got.ok && got.code !== "not_found") {
    throw new Error(`${what}: ${got.code}: ${got.message}`);
  }
}

/**
 * The rules a webhook or billing endpoint address is checked against in this environment: loopback
 * as ALLOW_LOOPBACK_WEBHOOKS says, and the ports the operator allows besides 443 (platform
 * settings `webhook_ports`), read afresh at each check, so a port the operator removes is refused
 * from the next attempt on.
 */
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import type { Deps } from "../../environment.ts";
import type { UrlRules } from "../../outbound/url_guard.ts";
import { orRefuse } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/** The ports the operator allows besides 443. */
export async function webhookPorts(runtime: ActorRuntime): Promise<readonly number[]> {
  const settings = orRefuse(
    await runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  );
  return settings.webhook_ports;
}

/** What a webhook address saved now is checked against (url_guard.ts checkWebhookUrl). */
export async function webhookUrlRules(
  deps: Pick<Deps, "runtime" | "allowLoopbackWebhooks">,
): Promise<UrlRules> {
  return {
    allowLoopback: deps.allowLoopbackWebhooks,
    allowedPorts: await webhookPorts(deps.runtime),
  };
}

/**
 * The sandbox's built-in inbox as a receiver of the delivery engine (Business API 4.4, 6 "the
 * sandbox inbox can stand in"): a business webhook whose target is SANDBOX_INBOX_URL is signed as
 * any other and handed here instead of the network; it is kept (an inbox delivery actor, its
 * exact raw body and headers) before the attempt is answered delivered.
 */
import { sandboxInboxActor } from "../../../actors/business/sandbox_inbox.ts";
import type { EnvironmentName } from "../../environment.ts";
import type { LocalReceivers } from "../../platform/reactors/outbound_attempt.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { SANDBOX_INBOX_URL, servesSandbox } from "../rules/sandbox.ts";

/** The inbox, for the engine's targets; on live none (no URL names it there). */
export function sandboxInboxReceivers(
  deps: { readonly runtime: ActorRuntime; readonly name: EnvironmentName },
): LocalReceivers {
  if (!servesSandbox(deps.name)) return () => undefined;
  return (_tenant, url) => {
    if (url !== SANDBOX_INBOX_URL) return undefined;
    return async (d) => {
      const kept = await deps.runtime.ask(sandboxInboxActor, d.tenant, d.attempt_id, {
        kind: "receive",
        delivery: {
          id: d.attempt_id,
          event: d.event_type,
          event_id: d.event_id,
          headers: d.headers,
          body: d.body,
        },
      });
      if (!kept.ok) throw new Error(`inbox: ${kept.code}: ${kept.message}`);
    };
  };
}

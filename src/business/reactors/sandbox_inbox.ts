/**
 * The sandbox's built-in inbox as a receiver of the delivery engine (Business API 4.4, 6 "the
 * sandbox inbox can stand in"): a business webhook whose target is SANDBOX_INBOX_URL is signed as
 * any other and handed here instead of the network; it is kept (a row of the inbox's list, its
 * exact raw body and headers: keepInboxDelivery) before the attempt is answered delivered.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EnvironmentName } from "../../environment.ts";
import type { LocalReceivers } from "../../platform/reactors/outbound_attempt.ts";
import type { Clock } from "../../runtime/clock.ts";
import { keepInboxDelivery } from "../queries/sandbox_inbox.ts";
import { SANDBOX_INBOX_URL, servesSandbox } from "../rules/sandbox.ts";

/** The inbox, for the engine's targets; on live none (no URL names it there). */
export function sandboxInboxReceivers(
  deps: {
    readonly db: Kysely<Database>;
    readonly clock: Clock;
    readonly name: EnvironmentName;
  },
): LocalReceivers {
  if (!servesSandbox(deps.name)) return () => undefined;
  return (_tenant, url) => {
    if (url !== SANDBOX_INBOX_URL) return undefined;
    return async (d) => {
      // spec: business 4.4: a row of the inbox's list alone; no actor is kept per delivery.
      await keepInboxDelivery(deps.db, d.tenant, {
        id: d.attempt_id,
        event: d.event_type,
        event_id: d.event_id,
        received_at: deps.clock.now(),
        headers: d.headers,
        body: d.body,
      });
    };
  };
}

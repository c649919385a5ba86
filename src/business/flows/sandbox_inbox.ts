/**
 * The sandbox inbox (Business API 4.4, 6): the business's webhook URL pointed at the built-in
 * inbox, and the deliveries it received, newest first, each with the exact raw body and headers
 * sent. PATCH /business/profile with a real webhook_url points it away again. Sandbox only: on
 * live these answer not_found (rules/sandbox.ts).
 */
import { asBusiness, businessActor } from "../../../actors/platform/business/mod.ts";
import type { InboxDelivery } from "../../../actors/business/sandbox_inbox.ts";
import type { Deps } from "../../environment.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { orRefuse } from "../../runtime/actor.ts";
import { inboxDeliveries } from "../queries/sandbox_inbox.ts";
import { refuseUnlessSandbox, SANDBOX_INBOX_URL } from "../rules/sandbox.ts";

/** Refuses a sandbox-only endpoint off the sandbox: not found, saying where it is. */
export function requireSandbox(deps: Pick<Deps, "name">, endpoint: string): void {
  refuseUnlessSandbox(deps.name, endpoint);
}

export interface InboxPointed {
  /** The URL the business's webhooks now go to: the inbox's. */
  readonly webhook_url: string;
  /** The webhook URL it replaced (null: none was set, or it was the inbox already). */
  readonly replaced: string | null;
}

/** spec: business 4.4: points the webhook URL at the built-in inbox; a second call is harmless. */
export async function pointWebhookAtInbox(
  deps: Pick<Deps, "name" | "runtime" | "requestId">,
  business: string,
  by: string,
): Promise<InboxPointed> {
  requireSandbox(deps, "POST /business/sandbox/inbox");
  const before = (await businessOf(deps.runtime, business)).profile.webhook_url;
  if (before === SANDBOX_INBOX_URL) return { webhook_url: SANDBOX_INBOX_URL, replaced: null };
  // The owner is told of the changed address as for any (spec: business 5.6).
  asBusiness(orRefuse(
    await deps.runtime.ask(businessActor, business, business, {
      kind: "change_profile",
      changes: { webhook_url: SANDBOX_INBOX_URL },
      by,
    }, { requestId: deps.requestId }),
  ));
  return { webhook_url: SANDBOX_INBOX_URL, replaced: before };
}

/** spec: business 4.4: the inbox's deliveries, newest first, at most `limit`. */
export async function listInbox(
  deps: Pick<Deps, "name" | "db">,
  business: string,
  limit: number,
): Promise<InboxDelivery[]> {
  requireSandbox(deps, "GET /business/sandbox/inbox");
  return await inboxDeliveries(deps.db, business, limit);
}

/**
 * Billing events in the outbox (courier 3.1, 4.3, 6.1): where they go (the billing endpoint, else
 * the business webhook URL), a failed or pending one sent again, and what the courier's system
 * reports back about one, forward only.
 */
import { businessActor } from "../../../../actors/platform/business/mod.ts";
import {
  type OutboundEvent,
  outboundEventActor,
} from "../../../../actors/platform/outbound_event/mod.ts";
import { REPORTED_STATES } from "../../../platform/rules/export_state.ts";
import { checkWebhookUrl } from "../../../outbound/url_guard.ts";
import { webhookUrlRules } from "../../../platform/flows/webhook_urls.ts";
import { foundOrNull, refuse, Refused } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import type { Deps } from "../../../environment.ts";
import { type BillingCaller, refuseField } from "./account.ts";

/** A billing event of the courier; another courier's, or a client webhook, is not found. */
export async function billingEventOf(
  runtime: ActorRuntime,
  courier: string,
  eventId: string,
): Promise<OutboundEvent> {
  // One answer for every event that is not this courier's billing event: a missing id, a client
  // webhook, another courier's (courier 1.1: it tells nothing of what exists elsewhere).
  const got = await runtime.read(outboundEventActor, courier, eventId, { kind: "get" });
  // A read refused for a moment (a busy actor) is no answer that the event does not exist: a
  // 404 would tell the courier's system to give up an acknowledgement it must send again.
  const event = foundOrNull(got) as OutboundEvent | null;
  if (!event || event.stream !== "billing") {
    refuse("not_found", `billing event not found: ${eventId}`);
  }
  return event;
}

/** Sends a failed or pending event again from its first attempt; the reason is recorded. */
export async function requeueEvent(
  deps: Pick<Deps, "runtime" | "requestId">,
  caller: BillingCaller,
  eventId: string,
  reason: string,
): Promise<OutboundEvent> {
  await billingEventOf(deps.runtime, caller.courier, eventId);
  const r = await deps.runtime.ask(outboundEventActor, caller.courier, eventId, {
    kind: "requeue",
    reason,
    by: caller.by,
  }, { requestId: deps.requestId });
  if (!r.ok) throw new Refused(r);
  if (!r.reply) throw new Error("requeue answers the event");
  return r.reply;
}

/** What the courier's system reports about an event (courier 4.3 acknowledge). */
export interface Acknowledgement {
  readonly state: string;
  readonly external_reference: string | null;
}

/**
 * Records the state the courier's system reports for an event: acknowledged, invoiced
 * externally or reconciled, forward only (courier 3.1 rule 1); `paid` is refused (rule 2).
 */
export async function acknowledgeEvent(
  deps: Pick<Deps, "runtime" | "requestId">,
  caller: BillingCaller,
  eventId: string,
  report: Acknowledgement,
): Promise<OutboundEvent> {
  if (report.state === "paid") {
    // spec: courier 3.1 rule 2: there is no paid state; exported never means paid.
    refuse(
      "state_paid_refused",
      "there is no paid state: report acknowledged, invoiced_externally or reconciled",
    );
  }
  const state = REPORTED_STATES.find((s) => s === report.state);
  if (!state) refuseField("state", `one of ${REPORTED_STATES.join(", ")}: ${report.state}`);
  await billingEventOf(deps.runtime, caller.courier, eventId);
  const r = await deps.runtime.ask(outboundEventActor, caller.courier, eventId, {
    kind: "acknowledge",
    state,
    external_reference: report.external_reference,
    by: caller.by,
  }, { requestId: deps.requestId });
  if (!r.ok) throw new Refused(r);
  if (!r.reply) throw new Error("acknowledge answers the event");
  return r.reply;
}

/**
 * Sets (or clears, with null) where the courier's billing events go (courier 6.1); a URL must be
 * public HTTPS. What waited for an endpoint goes now, not at its next hourly try (3.1): the
 * account's commit hands it to the endpoint-set outbox (src/platform/reactors/endpoint_set.ts).
 */
export async function setBillingEndpoint(
  deps: Pick<Deps, "runtime" | "allowLoopbackWebhooks" | "requestId">,
  caller: BillingCaller,
  sent: string | null,
): Promise<string | null> {
  let url = sent?.trim() || null;
  if (url !== null) {
    // Checked again, after DNS, at every attempt (url_guard.ts); what was checked is kept.
    const verdict = checkWebhookUrl(url, await webhookUrlRules(deps));
    if (!verdict.ok) refuseField("url", verdict.message);
    else url = verdict.url.href;
  }
  const r = await deps.runtime.ask(businessActor, caller.courier, caller.courier, {
    kind: "change_profile",
    changes: { billing_endpoint_url: url },
    by: caller.by,
  }, { requestId: deps.requestId });
  if (!r.ok) throw new Refused(r);
  return url;
}

/** Where the courier's billing events go now: the billing endpoint, else the webhook URL. */
export async function billingEndpointOf(runtime: ActorRuntime, courier: string) {
  const r = await runtime.read(businessActor, courier, courier, { kind: "get" });
  if (!r.ok) throw new Refused(r);
  const b = r.reply;
  if (!b || !("profile" in b)) throw new Error("expected the business");
  const endpoint = b.profile.billing_endpoint_url ?? null;
  return {
    billing_endpoint_url: endpoint,
    webhook_url: b.profile.webhook_url,
    sends_to: endpoint ?? b.profile.webhook_url,
  };
}

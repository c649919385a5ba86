/**
 * A business's webhook deliveries (Business API 4.3, 6): the signed sample POST
 * /business/webhook-test sends, one delivery read, and a delivery sent again (requeue). Every
 * webhook is an outbound event of the one delivery engine, so the sample is logged, signed and
 * retried as any other.
 */
import {
  type AttemptOutcome,
  type OutboundEvent,
  outboundEventActor,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { Deps } from "../../environment.ts";
import { pinnedPost } from "../../outbound/pinned_post.ts";
import { egressPolicyOf, egressSend } from "../../outbound/egress.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { webhookPorts } from "../../platform/flows/webhook_urls.ts";
import { businessWebhookTargets } from "../../platform/reactors/business_targets.ts";
import { observeAttempt } from "../../platform/reactors/outbound_log.ts";
import { sendAttempt } from "../../platform/reactors/outbound_attempt.ts";
import { newId } from "../../runtime/ids.ts";
import { foundOrNull, invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { emitBusinessWebhook } from "../reactors/business_webhooks.ts";
import { sandboxInboxReceivers } from "../reactors/sandbox_inbox.ts";
import { sampleTripCreated } from "../rules/webhook_sample.ts";

/** A business webhook of the caller's; another business's, or another stream's, is not found. */
export async function webhookDeliveryOf(
  runtime: ActorRuntime,
  business: string,
  id: string,
): Promise<OutboundEvent> {
  const got = await runtime.read(outboundEventActor, business, id, { kind: "get" });
  // A read refused for a moment (a busy actor) is no answer that the delivery does not exist.
  const event = foundOrNull(got) ?? null;
  // One answer for a missing id, a courier billing event, another business's (spec: business 5).
  if (!event || event.stream !== "business_webhook") {
    refuse("not_found", `webhook delivery not found: ${id}`);
  }
  return event;
}

/** Sends a failed or pending webhook again from its first attempt; the reason is recorded. */
export async function requeueWebhookDelivery(
  deps: Pick<Deps, "runtime" | "requestId">,
  business: string,
  input: { readonly id: string; readonly reason: string; readonly by: string },
): Promise<OutboundEvent> {
  await webhookDeliveryOf(deps.runtime, business, input.id);
  const r = await deps.runtime.ask(outboundEventActor, business, input.id, {
    kind: "requeue",
    reason: input.reason,
    by: input.by,
  }, { requestId: deps.requestId });
  const event = orRefuse(r);
  if (!event) throw new Error("requeue answers the event");
  return event;
}

/** What the sample's first attempt did. */
export interface WebhookTestResult {
  readonly event: OutboundEvent;
  /** Null when another sender held the event (its attempt is under way). */
  readonly outcome: AttemptOutcome | null;
}

/**
 * spec: business 6: sends a signed sample (`trip.created` of a sample trip, marked `test`) to the
 * webhook URL now, as the first attempt of a webhook of the engine; later attempts follow its
 * schedule. 422 naming webhook_url when none is set.
 */
export async function sendWebhookTest(
  deps: Pick<
    Deps,
    | "name"
    | "runtime"
    | "db"
    | "clock"
    | "dataKey"
    | "allowLoopbackWebhooks"
    | "log"
    | "metrics"
    | "requestId"
  >,
  business: string,
): Promise<WebhookTestResult> {
  const { runtime, clock } = deps;
  const { currency } = await businessOf(runtime, business);
  const item = sampleTripCreated({ business, currency, now: clock.now(), sample: newId("test") });
  const webhook = await emitBusinessWebhook(
    runtime,
    business,
    item,
    { test: true },
    deps.requestId,
  );
  if (webhook === null) {
    throw new Refused(invalidFields([{
      path: "webhook_url",
      message: "no webhook URL is set: set one with PATCH /business/profile",
    }]));
  }
  const attemptId = newId("att");
  // The claim makes this request the event's one sender, as the engine's pump does; only for the
  // first attempt, so a pump that made it meanwhile is not followed by a second one at once.
  const claimed = await runtime.ask(outboundEventActor, business, webhook.id, {
    kind: "claim",
    attempt_id: attemptId,
    first_only: true,
  }, { requestId: deps.requestId });
  if (!claimed.ok || !claimed.reply) {
    return { event: await webhookDeliveryOf(runtime, business, webhook.id), outcome: null };
  }
  const targets = businessWebhookTargets(runtime, clock);
  const outcome = await sendAttempt(
    {
      dataKey: deps.dataKey,
      clock,
      allowLoopback: deps.allowLoopbackWebhooks,
      allowedPorts: () => webhookPorts(runtime),
      send: egressSend(egressPolicyOf(deps.name), "webhook", (request) => pinnedPost(request)),
      targets: async (tenant, recipient) => (await targets(tenant, recipient)) ?? null,
      // The sample reaches the sandbox inbox as every webhook does.
      receivers: sandboxInboxReceivers(deps),
    },
    business,
    claimed.reply,
    attemptId,
  );
  observeAttempt(deps, business, claimed.reply, attemptId, outcome);
  const recorded = orRefuse(
    await runtime.ask(outboundEventActor, business, webhook.id, {
      kind: "record_attempt",
      attempt_id: attemptId,
      outcome,
    }, { requestId: deps.requestId }),
  );
  return { event: recorded ?? claimed.reply, outcome };
}

/**
 * Business webhooks (Business API 6, 2.7): each item an actor adds to the business webhook outbox
 * in the commit of the transition it reports (rules/webhook_events.ts) becomes one outbound event
 * of the one delivery engine (src/platform/reactors/deliver.ts): signed V1 and V2 with the
 * business's webhook secret, sent to its webhook URL as looked up and checked at every attempt,
 * retried after 1, 5, 30, 120 and 720 minutes, kept in its delivery log, requeued on demand.
 *
 * Idempotent: the event's id derives from the item's `event_id`, so an item handed over twice (a
 * crash before its removal, the outbox sweep) finds its event made and makes no second one. A
 * business with no webhook URL when the item is handled gets no event (as a client without a
 * webhook, courier 6.2): nothing is kept for it; a URL cleared later leaves events already made
 * waiting, retried hourly, as the engine does for every recipient.
 */
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import type { Logger } from "../../observe/log.ts";
import { Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import {
  type BusinessWebhook,
  businessWebhookOf,
  type EnvelopeOptions,
} from "../rules/webhook_envelope.ts";
import { BUSINESS_WEBHOOK_OUTBOX, type BusinessWebhookItem } from "../rules/webhook_events.ts";

export interface BusinessWebhooksOptions {
  readonly runtime: ActorRuntime;
  readonly log: Logger;
  /** The environment's address: a trip's tracking_url starts with it (Deps.linkBase). */
  readonly publicUrl: string;
}

/** Makes the webhook events the actors' commits put in the business webhook outbox. */
export class BusinessWebhooks {
  readonly #o: BusinessWebhooksOptions;
  readonly #handling: OutboxHandling;

  constructor(options: BusinessWebhooksOptions) {
    this.#o = options;
    this.#handling = new OutboxHandling(
      options.runtime,
      BUSINESS_WEBHOOK_OUTBOX,
      (item) => this.#onItem(item),
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being made. */
  close(): Promise<void> {
    return this.#handling.close();
  }

  /** One item; a failure is thrown (the item stays and the runtime's sweep hands it over again). */
  async #onItem(item: OutboxItem): Promise<void> {
    const webhook = item.payload as BusinessWebhookItem;
    if (webhook.business_id !== item.tenant) {
      // The tenant whose actor committed the fact is the only recipient ever: an item naming
      // another business is a broken actor, and is dropped rather than sent across tenants.
      this.#o.log.error(
        { event: "business_webhook_dropped", tenant_id: item.tenant, event_id: webhook.event_id },
        "business webhook item names another business",
      );
      return;
    }
    try {
      await emitBusinessWebhook(this.#o.runtime, item.tenant, webhook, {
        publicUrl: this.#o.publicUrl,
      }, item.requestId);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      // Refused for good (an event without a name): handed over again it would be refused again
      // at every sweep, so it is logged and let go.
      this.#o.log.error(
        { event: "business_webhook_refused", tenant_id: item.tenant, code: e.rejection.code },
        "business webhook refused",
      );
    }
  }
}

/** Refusals of an event's creation that the same item would meet again. */
const REFUSED_FOR_GOOD = new Set(["body_too_large", "invalid_event"]);

/**
 * Makes (or finds made) the outbound event of one business webhook; answers it, or null when the
 * business has no webhook URL (nothing is made). A creation refused for good is thrown as
 * Refused; any other failed read or commit as an Error (tried again). `requestId`: the request
 * whose command made the item, named by the event's attempt log lines.
 */
export async function emitBusinessWebhook(
  runtime: ActorRuntime,
  business: string,
  item: BusinessWebhookItem,
  options: EnvelopeOptions = {},
  requestId?: string,
): Promise<BusinessWebhook | null> {
  const got = await runtime.read(businessActor, business, business, { kind: "get" });
  if (!got.ok && got.code !== "not_found") {
    throw new Error(`business ${business}: ${got.code}: ${got.message}`);
  }
  if (!got.ok || !got.reply || !("profile" in got.reply) || !got.reply.profile.webhook_url) {
    return null;
  }
  const webhook = businessWebhookOf(business, item, options);
  const created = await runtime.ask(outboundEventActor, business, webhook.id, {
    kind: "create",
    event: {
      event_id: webhook.id,
      stream: "business_webhook",
      event_type: webhook.event,
      raw_body: webhook.raw_body,
      // spec: business 6: the URL and secret are looked up, and the URL checked, at every attempt.
      recipient: { kind: "business" },
      ...(requestId === undefined ? {} : { request_id: requestId }),
    },
    // Derived from an item handled now: new unless handled again (AskOptions.fresh).
  }, { fresh: true });
  if (!created.ok && REFUSED_FOR_GOOD.has(created.code)) throw new Refused(created);
  if (!created.ok && created.code !== "exists_with_different_body") {
    throw new Error(`business webhook ${webhook.id}: ${created.code}: ${created.message}`);
  }
  return webhook;
}

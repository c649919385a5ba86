/**
 * `shopping.basket_collected` to the business webhook (Business API 6 "Events named", 2.7), for
 * one item the order actor added in the commit that collected the basket. It is the Business
 * API's event, so it goes as every business webhook does (emitBusinessWebhook: the 2.7 envelope,
 * the `whsec_` signatures, the business's webhook_url looked up at every attempt, its retries),
 * apart from the shopping stream's event of the same name, which stays as it is.
 *
 * Idempotent: the event's id derives from the basket's event_id, so an item handed over again (a
 * crash before its removal, the outbox sweep) finds its event made and makes no second one; the
 * first body made stands (a later handling signs its link at another moment).
 */
import { shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { emitBusinessWebhook } from "../../business/reactors/business_webhooks.ts";
import type { BusinessWebhookItem } from "../../business/rules/webhook_events.ts";
import { basketCollectedFields } from "../rules/event_bodies.ts";
import type { BasketWebhookItem } from "../rules/events.ts";
import { basketFactsOf, type EventDeps, linkLifeMs } from "./events.ts";

/** Sends the basket's business webhook; a failure throws (the item is handed over again). */
export async function sendBasketWebhook(deps: EventDeps, item: BasketWebhookItem) {
  const { business_id: business, order_reference: reference } = item;
  const got = await deps.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  if (!got.ok) throw new Error(`shopping order ${reference}: ${got.code}: ${got.message}`);
  const order = got.reply;
  if (!order?.basket) return;
  // spec: business 6: "carries a signed packing_slip_url", valid as the shopping stream's links.
  const facts = await basketFactsOf(deps, order, await linkLifeMs(deps, business));
  const webhook: BusinessWebhookItem = {
    business_id: business,
    // One basket, one id (distinct from the shopping stream's: derived under another name).
    event_id: order.basket.event_id,
    event: "shopping.basket_collected",
    // spec: business 2.7: events carry the business's external_reference.
    external_reference: order.external_reference,
    occurred_at: order.basket.collected_at,
    // The trip's reference under `reference`, as every business event's data names it.
    data: { reference: order.reference, ...basketCollectedFields(facts) },
  };
  // No tracking_token: the envelope needs no address (the slip link is made under publicUrl).
  await emitBusinessWebhook(deps.runtime, business, webhook, {}, deps.requestId);
}

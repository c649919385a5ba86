/**
 * What follows a store's change the merchant hears of (shopping 2.3, 3, 6; Business API 6; issue
 * 41 items 5 and 7), for one item of the store actor's outbox. Every step is idempotent with a
 * derived key, so an item handed over again (a crash between two steps, the outbox sweep)
 * finishes what the first handling began and repeats nothing:
 *
 * 1. a finished store's part is recorded on the order (the last one completes the basket and
 *    reconciles the float in the same commit);
 * 2. its `shopping.store_collected` event is made, with a signed receipt link;
 * 3. once the basket is collected, the goods are charged to the wallet (one debit, keyed by the
 *    order) and the settlement recorded, and `shopping.basket_collected` is made with a signed
 *    packing slip link (to the shopping webhook; the order's own commit hands the same event to
 *    the business webhook: basket_webhook.ts).
 *
 * An event is made only while the business's shopping events are sent (the operator's switch on,
 * a webhook URL and a secret set): otherwise none is kept for it, as for a client without a
 * webhook (courier 6.2); the order's own bookkeeping (steps 1 and 3's charge) happens regardless.
 */
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { type ShoppingOrder, shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { shoppingCapabilityActor } from "../../../actors/shopping/capability.ts";
import { lineOf, type ShoppingStore, shoppingStoreActor } from "../../../actors/shopping/store.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, Refused } from "../../runtime/actor.ts";
import {
  basketCollectedEvent,
  type BasketFacts,
  decisionRequiredEvent,
  type ShoppingEvent,
  shoppingEventId,
  storeCollectedEvent,
} from "../rules/event_bodies.ts";
import type { ShoppingEventItem } from "../rules/events.ts";
import { shoppingTargetOf } from "./targets.ts";
import { askTrip } from "../../business/flows/trips.ts";
import { lowBalanceWatchOf } from "../../business/flows/low_balance.ts";
import { signedLink } from "./links.ts";

export type EventDeps = Pick<Deps, "runtime" | "clock" | "dataKey" | "publicUrl"> & {
  /** The request whose command made the item being handled: its events' attempts name it. */
  readonly requestId?: string | undefined;
};

/** Handles one item of the shopping event outbox; a failure throws (the item is handed again). */
export async function handleShoppingItem(deps: EventDeps, item: ShoppingEventItem) {
  const order = await bookedOrder(deps, item.business_id, item.order_reference);
  if (!order) return;
  const store = orRefuse(
    await deps.runtime.read(shoppingStoreActor, item.business_id, item.store_id, { kind: "get" }),
  );
  if (!store) throw new Error(`shopping store ${item.store_id} not found`);
  if (item.kind === "decision_needed") return await decisionNeeded(deps, order, store, item);
  const recorded = orRefuse(
    await deps.runtime.ask(shoppingOrderActor, order.business_id, order.reference, {
      kind: "record_store",
      store,
    }, { requestId: deps.requestId }),
  )!;
  const sending = await sendsNow(deps, order.business_id);
  if (sending) await storeCollected(deps, { order, store, event_id: item.event_id, sending });
  if (recorded.basket) await basketCollected(deps, recorded, sending);
}

async function bookedOrder(deps: EventDeps, business: string, reference: string) {
  const got = await deps.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  if (!got.ok) throw new Error(`shopping order ${reference}: ${got.code}: ${got.message}`);
  return got.reply?.phase === "booked" ? got.reply : null;
}

/** The receipt links' life (at least 10 minutes) when events are sent now; null: none are. */
async function sendsNow(deps: EventDeps, business: string): Promise<{ ttl_ms: number } | null> {
  if (!(await shoppingTargetOf(deps.runtime, business))) return null;
  return { ttl_ms: await linkLifeMs(deps, business) };
}

/** spec: shopping 6: a signed link's life, receipt_url_ttl_minutes (24 hours by default). */
export async function linkLifeMs(deps: Pick<EventDeps, "runtime">, business: string) {
  const got = orRefuse(
    await deps.runtime.read(shoppingCapabilityActor, business, business, { kind: "get" }),
  );
  return got.receipt_url_ttl_minutes * 60_000;
}

async function storeCollected(
  deps: EventDeps,
  o: { order: ShoppingOrder; store: ShoppingStore; event_id: string; sending: { ttl_ms: number } },
) {
  const { order, store } = o;
  const now = deps.clock.now();
  const photo = store.receipt_photo;
  // spec: shopping 6: valid receipt_url_ttl_minutes from now; every attempt renews it
  // (link_renewal.ts), so a retry's link is valid as long from its receipt.
  const url = photo && store.status === "collected"
    ? await signedLink(deps, order.business_id, {
      kind: "receipt",
      reference: order.reference,
      sha256: photo.sha256,
    }, now + o.sending.ttl_ms)
    : null;
  await made(
    deps,
    order.business_id,
    storeCollectedEvent({
      id: shoppingEventId(order.business_id, o.event_id),
      order,
      store,
      receipt_photo_url: url,
      // The moment the store's part ended, the same however often the event is made.
      at: store.finished_at ?? now,
    }),
  );
}

async function decisionNeeded(
  deps: EventDeps,
  order: ShoppingOrder,
  store: ShoppingStore,
  item: Extract<ShoppingEventItem, { kind: "decision_needed" }>,
) {
  const line = lineOf(store, item.external_item_id);
  if (!line || !(await sendsNow(deps, order.business_id))) return;
  // spec: shopping 3, 6: the line as its commit left it (awaiting the customer), not as it is now:
  // the customer may have decided, or the window closed, before the item was handled.
  const awaited = item.line
    ? { ...line, ...item.line, outcome: "awaiting_decision", decided_by: null }
    : line;
  await made(
    deps,
    order.business_id,
    decisionRequiredEvent({
      id: shoppingEventId(order.business_id, item.event_id),
      order,
      store,
      line: awaited,
      decide_by: item.decide_by,
      at: item.at ?? deps.clock.now(),
    }),
  );
}

/**
 * Issue 41 item 7: the goods charged once (exactly what the tills took), the settlement recorded,
 * and the basket's event made with its packing slip link.
 */
async function basketCollected(
  deps: EventDeps,
  order: ShoppingOrder,
  sending: { ttl_ms: number } | null,
) {
  const basket = order.basket!;
  if (!basket.settlement) await settle(deps, order);
  await handOver(deps, order);
  if (!sending) return;
  const facts = await basketFactsOf(deps, order, sending.ttl_ms);
  await made(
    deps,
    order.business_id,
    basketCollectedEvent({ id: shoppingEventId(order.business_id, basket.event_id), ...facts }),
  );
}

/**
 * The basket is the trip's handover: the shopper may pick it up from now on (twice is harmless).
 * A trip already ended (its cancellation finished the stores, trip_ended.ts) hands nothing over:
 * its refusal (business 3.1: a final trip changes no more) is no failure of the basket, whose
 * event is still made.
 */
async function handOver(deps: EventDeps, order: ShoppingOrder) {
  try {
    await askTrip(deps, order.business_id, order.reference, { kind: "ready" });
  } catch (e) {
    if (!(e instanceof Refused) || e.rejection.code !== "invalid_transition") throw e;
  }
}

/** The collected basket's event fields, with a packing slip link valid `ttlMs` from now. */
export async function basketFactsOf(
  deps: EventDeps,
  order: ShoppingOrder,
  ttlMs: number,
): Promise<BasketFacts> {
  const basket = order.basket!;
  const url = await signedLink(
    deps,
    order.business_id,
    { kind: "packing_slip", reference: order.reference },
    deps.clock.now() + ttlMs,
  );
  const stores = order.stores.map((s) => ({
    external_fulfilment_id: s.external_fulfilment_id,
    status: order.parts?.[s.store_id]?.status ?? "pending",
  }));
  return {
    order,
    stores,
    reconciliation: basket.reconciliation,
    packing_slip_url: url,
    at: basket.collected_at,
  };
}

/**
 * One debit of the goods, keyed by the order (a second handling books nothing more). It is never
 * refused for the balance: the shopper has paid the tills already, so it may take the wallet
 * below zero, as a debt the business owes.
 */
async function settle(deps: EventDeps, order: ShoppingOrder) {
  const charge = order.basket!.reconciliation.charge_minor;
  let transactionId: string | null = null;
  if (charge > 0) {
    const debited = orRefuse(
      await deps.runtime.ask(walletActor, order.business_id, order.business_id, {
        kind: "debit",
        amount_minor: charge,
        currency: order.currency,
        reference: `shopping:${order.reference}`,
        by: "shopping_float",
        limit_minor: Number.MAX_SAFE_INTEGER,
        // spec: business 6 wallet.low_balance: the goods are a debit as a trip's charge is.
        low_balance: await lowBalanceWatchOf(deps.runtime, order.business_id, order.currency),
      }, {
        idempotencyKey: `shopping_goods:${order.reference}`,
        permanent: true,
        requestId: deps.requestId,
      }),
    );
    transactionId = debited.transaction?.id ?? null;
  }
  orRefuse(
    await deps.runtime.ask(shoppingOrderActor, order.business_id, order.reference, {
      kind: "record_settlement",
      transaction_id: transactionId,
    }, { requestId: deps.requestId }),
  );
}

/** Makes (or finds made) the outbound event; the engine resolves its target at every attempt. */
async function made(deps: EventDeps, business: string, event: ShoppingEvent) {
  const created = await deps.runtime.ask(outboundEventActor, business, event.id, {
    kind: "create",
    event: {
      event_id: event.id,
      stream: "shopping_webhook",
      event_type: event.event,
      raw_body: event.raw_body,
      recipient: { kind: "shopping" },
      ...(deps.requestId === undefined ? {} : { request_id: deps.requestId }),
    },
  }, { fresh: true });
  // Made before with another body (its links were signed at another moment): the first stands.
  if (!created.ok && created.code !== "exists_with_different_body") {
    throw new Error(`shopping event ${event.id}: ${created.code}: ${created.message}`);
  }
}

/**
 * POST and GET /business/shopping-orders (shopping 2.2, 4): an order checked whole, its
 * external_order_id claimed (unique per account), its stores opened, then its shop-and-deliver
 * trip booked through the Business API's booking flow. A refusal before the trip exists releases
 * the claim: nothing booked, the reference and the order id free again. A crash between two steps
 * leaves a claim that a retry of the same body completes (each step is idempotent); once the trip
 * is created, its commit's outbox marks the order booked without a retry (orderTripBooked).
 */
import { tripActor } from "../../../actors/business/trip/mod.ts";
import type { Trip } from "../../../actors/business/trip/mod.ts";
import {
  EXTERNAL_ORDER_INDEX,
  externalOrderKey,
  type ShoppingOrder,
  shoppingOrderActor,
  type ShoppingOrderCommand,
} from "../../../actors/shopping/order.ts";
import { type ShoppingStore, shoppingStoreActor } from "../../../actors/shopping/store.ts";
import { bookTrip, refuseTestFlags, type TestFlags } from "../../business/flows/book.ts";
import type { CompleteDeps } from "../../business/flows/complete_booking.ts";
import {
  bookingReference,
  fingerprintOf,
  type MarkedText,
  type ShopTripBookedItem,
} from "../../business/rules/booking.ts";
import type { Deps } from "../../environment.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { foundOrNull, invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { OrderStalledItem } from "../rules/events.ts";
import {
  checkShoppingOrder,
  type ShoppingOrderDraft,
  type ShoppingOrderInput,
} from "../rules/order.ts";

/** The body of 2.2 as the route parsed it (shapes and counts checked). */
export interface ShoppingOrderRequest extends ShoppingOrderInput, TestFlags {
  readonly pickup_address: string;
  readonly pickup_lat: number;
  readonly pickup_lng: number;
  readonly dest_address: string;
  readonly dest_lat: number;
  readonly dest_lng: number;
  readonly scheduled_at?: string | undefined;
  readonly notes?: string | undefined;
  readonly delivery_code?: string | undefined;
}

/** An order with its stores' live state and its trip. */
export interface ShoppingOrderLive {
  readonly order: ShoppingOrder;
  readonly stores: readonly ShoppingStore[];
  readonly trip: Trip | null;
}

export type BookDeps =
  & Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">
  & Pick<CompleteDeps, "offers" | "numbers">;

/** What an order's asks need: the runtime, and the request they are made for (if any). */
type AskDeps = Pick<Deps, "runtime" | "requestId">;

/** Books a shopping order, or answers the order a repeat of the same body made (`replayed`). */
export async function createShoppingOrder(
  deps: BookDeps,
  business: string,
  input: { readonly request: ShoppingOrderRequest; readonly body: unknown; readonly by: string },
): Promise<{ readonly live: ShoppingOrderLive; readonly replayed: boolean }> {
  // spec: business 7, 9.3: live refuses test and dry_run before anything is claimed or booked.
  if (deps.name === "live") refuseTestFlags(input.request);
  const account = await businessOf(deps.runtime, business);
  const checked = checkShoppingOrder(input.request, account.currency);
  // spec: shopping 7: 422 naming the first problem; nothing is booked.
  if (!checked.ok) throw new Refused(invalidFields([checked.error]));
  const draft = checked.order;
  const reference = bookingReference(
    deps.referenceKey,
    account,
    { kind: "external_reference", value: draft.external_reference },
    () => crypto.randomUUID(),
  );
  const fingerprint = fingerprintOf(input.body);
  const order = await claim(deps, { business, reference, fingerprint, draft });
  // A repeat that found the order still booking may find its trip booked by the first request
  // meanwhile: it replays that booking too (spec: shopping 4: a repeat replays).
  let replayed = order.phase === "booked";
  if (!replayed) {
    await openStores(deps, order, draft);
    replayed = await bookOrderTrip(deps, order, input, draft);
  }
  const booked = orRefuse(
    await deps.runtime.ask(shoppingOrderActor, business, reference, { kind: "booked" }, {
      requestId: deps.requestId,
    }),
  );
  return { live: await liveOf(deps.runtime, booked!), replayed };
}

async function claim(
  deps: AskDeps,
  o: { business: string; reference: string; fingerprint: string; draft: ShoppingOrderDraft },
): Promise<ShoppingOrder> {
  const { stores, ...header } = o.draft;
  const r = await deps.runtime.ask(shoppingOrderActor, o.business, o.reference, {
    kind: "claim",
    order: {
      ...header,
      business_id: o.business,
      reference: o.reference,
      fingerprint: o.fingerprint,
    },
    stores: stores.map(({ items, ...s }) => ({ ...s, lines: items.length })),
  }, { requestId: deps.requestId });
  if (!r.ok && r.code === "index_taken") {
    const held = await deps.runtime.lookup(
      EXTERNAL_ORDER_INDEX,
      externalOrderKey(o.business, o.draft.external_order_id),
    );
    refuse(
      "duplicate_order",
      `shopping.external_order_id already used: ${o.draft.external_order_id}` +
        (held ? ` (order ${held.id})` : ""),
      held ? { reference: held.id } : {},
    );
  }
  const order = orRefuse(r)!;
  // spec: business appendix 1: the same external_reference with other details is a conflict.
  if (order.fingerprint !== o.fingerprint) {
    refuse(
      "external_reference_conflict",
      `external_reference ${order.external_reference} was booked with other details: ` +
        `order ${order.reference}`,
      { reference: order.reference },
    );
  }
  return order;
}

async function openStores(deps: AskDeps, order: ShoppingOrder, draft: ShoppingOrderDraft) {
  await Promise.all(order.stores.map(async (s, n) =>
    orRefuse(
      await deps.runtime.ask(shoppingStoreActor, order.business_id, s.store_id, {
        kind: "open",
        order_reference: order.reference,
        business_id: order.business_id,
        store_id: s.store_id,
        substitution_preference: order.substitution_preference,
        store: draft.stores[n]!,
      }, { requestId: deps.requestId }),
    )
  ));
}

/**
 * spec: shopping 1.1: an ordinary shop-and-deliver trip, booked by the Business API's flow;
 * answers whether the trip was booked before (by another request of the same order).
 */
async function bookOrderTrip(
  deps: BookDeps,
  order: ShoppingOrder,
  input: { readonly request: ShoppingOrderRequest; readonly body: unknown; readonly by: string },
  draft: ShoppingOrderDraft,
): Promise<boolean> {
  const r = input.request;
  try {
    const { replayed } = await bookTrip(deps, order.business_id, {
      request: {
        type: "parcel",
        passenger_name: `${r.recipient_first_names} ${r.recipient_surname}`,
        passenger_phone: r.recipient_phone,
        pickup: { address: r.pickup_address, lat: r.pickup_lat, lng: r.pickup_lng },
        dest: { address: r.dest_address, lat: r.dest_lat, lng: r.dest_lng },
        external_reference: draft.external_reference,
        scheduled_at: r.scheduled_at,
        note: r.notes,
        delivery_code: r.delivery_code,
        shop_deliver: true,
        // spec: shopping 1.1: one trip delivers the whole basket, so the driver picks it up only
        // once every store is finished (the basket's handling marks the trip ready).
        handover_required: true,
        order_payload: { external_order_id: draft.external_order_id, stores: draft.stores.length },
        // spec: business 7 (shopping 1.4): live refuses a marker in any name, address, item or
        // note, named as this body names it.
        marked_texts: markedTexts(r),
      },
      body: input.body,
      idempotencyKey: null,
      by: input.by,
      // spec: shopping 2.2: the trip charges only while this claim holds the order id.
      gate: { kind: "shopping_order", claim_id: order.claim_id },
    });
    return replayed;
  } catch (e) {
    if (e instanceof Refused) await releaseUnbooked(deps, order);
    throw e;
  }
}

/** The order's names (its stores' too), addresses, items and notes, by their paths in 2.2. */
function markedTexts(r: ShoppingOrderRequest): MarkedText[] {
  return [
    { path: "recipient_first_names", text: r.recipient_first_names },
    { path: "recipient_surname", text: r.recipient_surname },
    { path: "pickup_address", text: r.pickup_address },
    { path: "dest_address", text: r.dest_address },
    ...r.shopping.stores.flatMap((s, i) => [
      // The store's name is shown to the shopper, who is sent there (spec: shopping 2.2).
      { path: `shopping.stores.${i}.store_name`, text: s.store_name },
      ...s.items.map((item, j) => ({
        path: `shopping.stores.${i}.items.${j}.name`,
        text: item.name,
      })),
    ]),
    { path: "notes", text: r.notes },
  ];
}

/**
 * A refused booking leaves the order id free (spec: business appendix 1 "A refused booking leaves
 * the reference free"; shopping 2.2): the claim is released unless this order's own booking holds
 * the trip (another request of the same body is booking it, or booked it). A trip free, or held
 * by a booking of other details, means this order got no trip: its id must not stay taken.
 */
async function releaseUnbooked(deps: AskDeps, order: ShoppingOrder): Promise<void> {
  const trip = orRefuse(
    await deps.runtime.read(tripActor, order.business_id, order.reference, { kind: "claim_state" }),
  );
  const holder = trip.phase === "booking"
    ? trip.claim.fingerprint
    : trip.phase === "booked"
    ? trip.fingerprint
    : null;
  if (holder === order.fingerprint) return;
  const released = await deps.runtime.ask(shoppingOrderActor, order.business_id, order.reference, {
    kind: "release",
    claim_id: order.claim_id,
  }, { requestId: deps.requestId });
  // Best effort: the refusal answered is the booking's; a store left is never read again.
  if (released.ok && released.reply?.claim_id !== order.claim_id) {
    await Promise.allSettled(order.stores.map((s) => discardStore(deps, order, s.store_id)));
  }
}

/**
 * spec: shopping 7 "nothing is booked": the stores a released claim opened keep no lines (the
 * store drops them only if never worked on).
 */
async function discardStore(deps: AskDeps, order: ShoppingOrder, storeId: string) {
  orRefuse(
    await deps.runtime.ask(shoppingStoreActor, order.business_id, storeId, { kind: "discard" }, {
      requestId: deps.requestId,
    }),
  );
}

/**
 * spec: shopping 1.1, 2.2: a shop-and-deliver trip created completes the order that booked it
 * (same fingerprint): its shopper can work it and the merchant read it, whether or not the request
 * lived to mark it. A trip booked outside an order (no order, or another claim's) changes nothing.
 */
export async function orderTripBooked(deps: AskDeps, item: ShopTripBookedItem): Promise<void> {
  // No order claimed this reference: nothing to complete. Anything else (a busy order) is thrown,
  // so the item is handed over again.
  foundOrNull(
    await deps.runtime.ask(shoppingOrderActor, item.business_id, item.reference, {
      kind: "booked",
      fingerprint: item.fingerprint,
    }, { requestId: deps.requestId }),
  );
}

/**
 * The sweep of a booking that stopped while holding the order id (a crash between two steps
 * leaves state that a retry or a sweep completes). Its trip booked: the order is booked, as the
 * request would have. Its trip's claim let through to its charge: the trip's own sweep completes
 * it, and the next look finds the outcome. Anything else (no trip claim, a released one, another
 * booking's): the claim is released and the order id freed; the fence (confirm_claim) keeps a
 * late wake-up of the request from charging after.
 */
export async function sweepStalledOrder(
  runtime: ActorRuntime,
  item: OrderStalledItem,
): Promise<void> {
  const got = await runtime.read(shoppingOrderActor, item.business_id, item.reference, {
    kind: "get",
  });
  const order = foundOrNull(got);
  if (!order || order.phase !== "booking") return;
  const made = orRefuse(
    await runtime.read(tripActor, order.business_id, order.reference, { kind: "claim_state" }),
  );
  const ask = (command: ShoppingOrderCommand) =>
    runtime.ask(shoppingOrderActor, order.business_id, order.reference, command).then(orRefuse);
  if (made.phase === "booked" && made.fingerprint === order.fingerprint) {
    await ask({ kind: "booked", fingerprint: order.fingerprint });
    return;
  }
  const seen = order.trip_claimed_at ?? null;
  const charging = made.phase === "booking" && made.claim.fingerprint === order.fingerprint &&
    made.claim.claimed_at === seen;
  if (charging) return;
  const after = await ask({ kind: "release_stalled", claim_id: order.claim_id, claimed_at: seen });
  // Released (a trip claim let through meanwhile keeps it): its stores are no order's. As for a
  // refused booking, a store left by a failure here is never read again.
  if (after?.claim_id !== order.claim_id) {
    for (const s of order.stores) await discardStore({ runtime }, order, s.store_id);
  }
}

async function liveOf(runtime: ActorRuntime, order: ShoppingOrder): Promise<ShoppingOrderLive> {
  const [stores, trip] = await Promise.all([
    Promise.all(
      order.stores.map(async (s) =>
        orRefuse(
          await runtime.read(shoppingStoreActor, order.business_id, s.store_id, { kind: "get" }),
        )
      ),
    ),
    runtime.read(tripActor, order.business_id, order.reference, { kind: "get" }),
  ]);
  // A refused read (a full mailbox) is thrown (503), never shown as an order without its trip.
  const booked = foundOrNull(trip);
  return {
    order,
    stores: stores.flatMap((s) => s ? [s] : []),
    trip: booked?.phase === "booked" ? booked.trip : null,
  };
}

/** spec: shopping 4: the live order; another account's or an unknown reference is not found. */
export async function shoppingOrderOf(
  deps: Pick<Deps, "runtime">,
  business: string,
  reference: string,
): Promise<ShoppingOrderLive> {
  // A refused read (a full mailbox) is thrown (503), never answered 404 for one that exists.
  const got = await deps.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  const order = foundOrNull(got);
  if (!order || order.phase !== "booked") {
    refuse("not_found", `shopping order not found: ${reference}`);
  }
  return liveOf(deps.runtime, order);
}

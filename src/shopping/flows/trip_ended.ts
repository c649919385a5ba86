/**
 * A shopping order's trip cancelled before its basket was collected (business 3.1; shopping 1.1,
 * 3), for one item of the trip's outbox: every store not yet finished ends unavailable. Each
 * store's own commit hands its part to the shopping event outbox (events.ts), so the basket
 * completes, the float reconciles against the receipts of the stores collected and their goods
 * are charged once; a store finished already is left as it is. Idempotent: handed over again, the
 * stores are found ended and nothing is repeated.
 */
import { type ShoppingOrder, shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";
import type { ShopTripEndedItem } from "../../business/rules/booking.ts";
import { foundOrNull, orRefuse } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/** Ends the unfinished stores of the order the cancelled trip `item` booked. */
export async function endOrderStores(runtime: ActorRuntime, item: ShopTripEndedItem) {
  // The order is marked booked from the trip's creation (orderTripBooked); this may come first.
  const order: ShoppingOrder | null = foundOrNull(
    await runtime.ask(shoppingOrderActor, item.business_id, item.reference, {
      kind: "booked",
      fingerprint: item.fingerprint,
    }),
  );
  // No order booked this trip (none claimed it, or another booking's claim holds the id).
  if (order?.phase !== "booked" || order.fingerprint !== item.fingerprint) return;
  for (const s of order.stores) {
    orRefuse(
      await runtime.ask(shoppingStoreActor, order.business_id, s.store_id, { kind: "trip_ended" }),
    );
  }
}

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
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse } from "../../runtime/actor.ts";

/**
 * Ends the unfinished stores of the order the cancelled trip `item` booked, for the request that
 * cancelled it (`deps.requestId`), if any.
 */
export async function endOrderStores(
  deps: Pick<Deps, "runtime" | "requestId">,
  item: ShopTripEndedItem,
) {
  const options = { requestId: deps.requestId };
  // The order is marked booked from the trip's creation (orderTripBooked); this may come first.
  const order: ShoppingOrder | null = foundOrNull(
    await deps.runtime.ask(shoppingOrderActor, item.business_id, item.reference, {
      kind: "booked",
      fingerprint: item.fingerprint,
    }, options),
  );
  // No order booked this trip (none claimed it, or another booking's claim holds the id).
  if (order?.phase !== "booked" || order.fingerprint !== item.fingerprint) return;
  const ended = { kind: "trip_ended" } as const;
  for (const s of order.stores) {
    orRefuse(
      await deps.runtime.ask(shoppingStoreActor, order.business_id, s.store_id, ended, options),
    );
  }
}

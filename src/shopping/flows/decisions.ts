/**
 * POST /business/shopping-orders/{reference}/items/{external_item_id}/decision (shopping 3, 4):
 * the customer's accept or reject of a substitute awaiting them, found through the order: the
 * line's store is the one holding that external_item_id (unique across the order, 2.2).
 */
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";
import { lineOf } from "../../../actors/shopping/store.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { type Decision, windowClosed } from "../rules/shopper.ts";
import { type ShoppingOrderLive, shoppingOrderOf } from "./orders.ts";

/** spec: shopping 3: the decision within the window; the order as it is after it. */
export async function decideShoppingItem(
  deps: Pick<Deps, "runtime" | "requestId">,
  business: string,
  at: { readonly reference: string; readonly external_item_id: string },
  decision: Decision,
): Promise<ShoppingOrderLive> {
  const live = await shoppingOrderOf(deps, business, at.reference);
  const store = live.stores.find((s) => lineOf(s, at.external_item_id) !== undefined);
  if (!store) {
    refuse("not_found", `no item ${at.external_item_id} in shopping order ${at.reference}`);
  }
  // spec: shopping 3: the order's cancellation ends the window of every line awaiting the
  // customer (its stores refund them as by the preference when they hear of it, trip_ended.ts):
  // a decision after the cancellation is late even before the stores have heard.
  const line = lineOf(store, at.external_item_id)!;
  if (live.trip?.status === "cancelled" && line.outcome === "awaiting_decision") {
    throw new Refused(windowClosed(line.external_item_id));
  }
  const after = orRefuse(
    await deps.runtime.ask(shoppingStoreActor, business, store.store_id, {
      kind: "decide",
      external_item_id: at.external_item_id,
      decision,
    }, { requestId: deps.requestId }),
  );
  return {
    ...live,
    stores: live.stores.map((s) => s.store_id === store.store_id && after ? after : s),
  };
}

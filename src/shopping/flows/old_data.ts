/**
 * Old data, brought to today's rules once at start (the shopping feature's migrations).
 *
 * Shopping orders claimed before the stalled-booking sweep (ORDER_STALL_TIMER) were
 * given no timer, so one left in `booking` by a crash between two steps is looked at by no sweep
 * and holds its external_order_id for ever. This pass gives each order still booking its timer
 * (`watch_booking`), due at the bound from its claim, so the sweep completes it from its trip or
 * releases it (flows/orders.ts sweepStalledOrder).
 *
 * Shopping trips cancelled before their cancellation ended the order's stores (SHOP_TRIP_ENDED)
 * left those stores pending for ever and the goods already bought never charged: this pass ends
 * the unfinished stores of each order whose trip is cancelled (flows/trip_ended.ts).
 */
import { type ShoppingOrder, shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { foundOrNull } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { endOrderStores } from "./trip_ended.ts";

/** Sets the stall timer of every stored order still booking. Idempotent; answers how many. */
export async function watchOrdersBooking(runtime: ActorRuntime): Promise<number> {
  let watched = 0;
  for await (const { id, record } of runtime.stored(shoppingOrderActor)) {
    const order = record.state as ShoppingOrder | null;
    if (order?.phase !== "booking") continue;
    const r = await runtime.ask(shoppingOrderActor, record.tenant, id, { kind: "watch_booking" });
    if (!r.ok) throw new Error(`watching shopping order ${id}: ${r.code}: ${r.message}`);
    watched++;
  }
  return watched;
}

/** Ends the unfinished stores of every stored order whose trip was cancelled; answers how many. */
export async function endStoresOfCancelledTrips(runtime: ActorRuntime): Promise<number> {
  let ended = 0;
  for await (const { record } of runtime.stored(shoppingOrderActor)) {
    const order = record.state as ShoppingOrder | null;
    if (order?.phase !== "booked" || order.basket) continue;
    // A refused read (a full mailbox) is thrown, so the pass runs again at the next start: a
    // cancelled trip skipped here would leave its stores pending and their goods uncharged.
    const got = await runtime.read(tripActor, order.business_id, order.reference, { kind: "get" });
    const trip = foundOrNull(got);
    if (trip?.phase !== "booked" || trip.trip.status !== "cancelled") continue;
    const { business_id, reference, fingerprint } = order;
    await endOrderStores({ runtime }, { business_id, reference, fingerprint });
    ended++;
  }
  return ended;
}

/**
 * Old data: shopping orders claimed before the stalled-booking sweep (ORDER_STALL_TIMER) were
 * given no timer, so one left in `booking` by a crash between two steps is looked at by no sweep
 * and holds its external_order_id for ever. This pass gives each order still booking its timer
 * (`watch_booking`), due at the bound from its claim, so the sweep completes it from its trip or
 * releases it (flows/orders.ts sweepStalledOrder).
 */
import { type ShoppingOrder, shoppingOrderActor } from "../../../actors/shopping/order.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

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

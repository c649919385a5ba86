/**
 * Shopping 2.2, 4: POST /business/shopping-orders (an order of 1 to 20 stores of 1 to 200 lines,
 * booked as one shop-and-deliver trip) and GET /business/shopping-orders/{reference} (its live
 * state). Both answer 403 SHOPPING_FULFILMENT_OFF until the operator enables the capability.
 */
import { dispatcherOf } from "../../src/business/reactors/dispatcher.ts";
import { tripNumbersOf } from "../../src/business/flows/trip_numbers.ts";
import {
  BOOKING_RETRY_AFTER_SECONDS,
  IN_PROGRESS_CODES,
} from "../../src/business/rules/booking.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { retryAfter } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { shoppingFulfilment } from "../../src/shopping/auth.ts";
import { createShoppingOrder, shoppingOrderOf } from "../../src/shopping/flows/orders.ts";
import { ShoppingOrderRequest } from "../../src/shopping/order_schema.ts";
import { SHOPPING_ORDER_BODY_BYTES_MAX } from "../../src/limits.ts";
import { ShoppingOrderAnswer, shoppingOrderView } from "./answers/orders.ts";

const tag = "Shopping fulfilment";
const security = "business" as const;
// spec: business 5: the deliveries scope books and reads.
const middleware = [business({ scope: "deliveries" }), shoppingFulfilment];
const OrderReference = z.object({ reference: z.string().min(1).max(40) });

// spec: business 7: a booking still in progress answers Retry-After (5 seconds).
const withRetryAfter = retryAfter(IN_PROGRESS_CODES, BOOKING_RETRY_AFTER_SECONDS);

export function shoppingOrderRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/shopping-orders",
    summary: "Create a shopping order: one shopper buys across up to 20 stores and delivers in " +
      "one shop-and-deliver trip",
    description: "Checked whole before anything is booked: a 422 names the first problem, and " +
      "the reference and shopping.external_order_id stay free. The trip is priced and charged " +
      "as POST /business/book's. The same external_reference (default: " +
      "shopping.external_order_id) with the same body answers the first order (200, replayed). " +
      `A body may be up to ${SHOPPING_ORDER_BODY_BYTES_MAX} bytes (20 stores of 200 lines).`,
    tag,
    security,
    middleware,
    body: ShoppingOrderRequest,
    // spec: shopping 8: 20 stores of 200 lines is a lawful order, past the common cap.
    bodyBytesMax: SHOPPING_ORDER_BODY_BYTES_MAX,
    status: 201,
    replay: "The same external_reference with the same body",
    response: ShoppingOrderAnswer,
    refusals: {
      duplicate_order: "shopping.external_order_id is already used by another order of the " +
        "account (its reference is named)",
      external_reference_conflict: "the external_reference was booked with other details",
      booking_in_progress: "the first booking of this external_reference is still being " +
        "processed: retry after `Retry-After` (5) seconds",
      test_mode_moved_to_sandbox: "sandbox-only fields on live",
      test_booking_refused: "on live, a name, item, address or note starting with a test marker",
      insufficient_balance: "the wallet cannot pay the fare: nothing charged, the order id " +
        "stays free",
      no_vehicle_fits: "no vehicle type can carry the order",
      vehicle_upgrade_refused: "the account refuses the vehicle the order needs",
      outside_service_area: "no zone serves the pickup (GET /business/zones)",
      shopping_order_released: "this request stopped before its charge and the order's sweep " +
        "released it: nothing charged, the order id free; send the order again",
    },
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    const made = await createShoppingOrder(
      { ...env, offers: dispatcherOf(env), numbers: tripNumbersOf(env) },
      tenant,
      {
        request: body,
        body,
        by,
      },
    ).catch(withRetryAfter);
    return ok(c, shoppingOrderView(made.live, made.replayed), made.replayed ? 200 : 201);
  });

  define(api, {
    method: "get",
    path: "/business/shopping-orders/{reference}",
    summary: "A shopping order's live state: every store and line, the float, the trip",
    tag,
    security,
    middleware,
    params: OrderReference,
    response: ShoppingOrderAnswer,
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, shoppingOrderView(await shoppingOrderOf(env, tenant, params.reference)));
  });
}

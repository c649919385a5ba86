/**
 * The authority sweeps' Business API resources of courier A (authority_fixtures.ts ownedByA): a
 * trip, a waiting webhook, a recurring delivery, a shopping order and the shopper's paths.
 */
import assert from "node:assert/strict";
import { type TestEnv } from "../../helpers/test_env.ts";
import { type Courier } from "../../helpers/courier.ts";
import { waitingWebhook } from "../../helpers/guard_world.ts";

/**
 * A's Business API trip (paid from its wallet), a business webhook of A's waiting for a URL and a
 * recurring delivery of A's.
 */
export async function businessThingsOfA(t: TestEnv, a: Courier) {
  const funded = await t.call("POST", `/operator/businesses/${a.business.id}/wallet`, {
    operator: true,
    body: { amount: "500.00", currency: "BWP", reference: "a-trip-wallet" },
  });
  assert.equal(funded.status, 201, JSON.stringify(funded.body));
  const booked = await t.call("POST", "/business/book", {
    key: a.business.api_key,
    body: {
      type: "parcel",
      pickup_address: "Main Mall, Gaborone",
      pickup_lat: -24.6545,
      pickup_lng: 25.9086,
      dest_address: "Plot 9, Block 8",
      dest_lat: -24.6019,
      dest_lng: 25.935,
      external_reference: "A-TRIP-1",
    },
  });
  assert.equal(booked.status, 201, JSON.stringify(booked.body));
  const batch = await t.call("POST", "/business/batches", {
    key: a.business.api_key,
    body: {
      segment: "parcel",
      external_reference: "A-BATCH-1",
      stops: [{
        pickup_address: "Main Mall, Gaborone",
        pickup_lat: -24.6545,
        pickup_lng: 25.9086,
        dest_address: "Plot 10, Block 8",
        dest_lat: -24.602,
        dest_lng: 25.936,
        size: "s",
      }],
    },
  });
  assert.equal(batch.status, 201, JSON.stringify(batch.body));
  // Business API 4.1: a checkout of A's, held.
  const checkout = await t.call("POST", "/business/checkouts", {
    key: a.business.api_key,
    body: {
      cart_reference: "A-CART-1",
      pickup_address: "Main Mall, Gaborone",
      pickup_lat: -24.6545,
      pickup_lng: 25.9086,
      dest_address: "Plot 9, Block 8",
      dest_lat: -24.6019,
      dest_lng: 25.935,
    },
  });
  assert.equal(checkout.status, 201, JSON.stringify(checkout.body));
  const delivery = await waitingWebhook(t, a.business.id, "a-sweep");
  return {
    trip: booked.body.data.reference as string,
    delivery,
    order: await shoppingOrderOfA(t, a),
    subscription: await subscriptionOfA(t, a),
    batch: batch.body.data.id as string,
    checkout: checkout.body.data.reference as string,
  };
}

/** Business API 4.2: A's recurring delivery. */
async function subscriptionOfA(t: TestEnv, a: Courier): Promise<string> {
  const subscribed = await t.call("POST", "/business/subscriptions", {
    key: a.business.api_key,
    body: {
      pickup_address: "Main Mall, Gaborone",
      pickup_lat: -24.6545,
      pickup_lng: 25.9086,
      dest_address: "Plot 9, Block 8",
      dest_lat: -24.6019,
      dest_lng: 25.935,
      days_of_week: [2],
      pickup_time: "09:30",
    },
  });
  assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
  return subscribed.body.data.id as string;
}

/** Shopping 2.2: A's shopping order (the capability enabled for A), by its trip reference. */
async function shoppingOrderOfA(t: TestEnv, a: Courier): Promise<string> {
  await t.call("PATCH", `/operator/businesses/${a.business.id}`, {
    operator: true,
    body: { shopping_fulfilment_enabled: true },
  });
  const r = await t.call("POST", "/business/shopping-orders", {
    key: a.business.api_key,
    body: {
      pickup_address: "Game City, Gaborone",
      pickup_lat: -24.6545,
      pickup_lng: 25.9086,
      dest_address: "Plot 9, Block 8",
      dest_lat: -24.6019,
      dest_lng: 25.935,
      recipient_first_names: "Neo",
      recipient_surname: "Kgosi",
      recipient_phone: "+26771234567",
      shopping: {
        external_order_id: "A-SHOP-1",
        stores: [{
          external_fulfilment_id: "F1",
          external_store_id: "S1",
          estimated_amount: 20,
          items: [{ external_item_id: "I1", name: "Bread", qty: 2 }],
        }],
      },
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.reference as string;
}

/** Shopping 3: the shopper's paths of a shopping order (driver app and sandbox). */
export const SHOPPER_PATHS = [
  "/driver/shopping/{reference}",
  "/business/sandbox/shopping-orders/{reference}",
]
  .flatMap((base) => [
    `${base}/stores/{external_fulfilment_id}/items/{external_item_id}`,
    `${base}/stores/{external_fulfilment_id}/collect`,
    `${base}/stores/{external_fulfilment_id}/unavailable`,
  ]).concat(
    "/business/sandbox/shopping-orders/{reference}/items/{external_item_id}/close_decision_window",
  );

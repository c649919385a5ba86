/**
 * A fixture world for the tests generated from the OpenAPI document (tests/http/guard_*_test.ts):
 * a courier with two clients, two drivers and one of everything that has an identifier of its
 * own, built through the API as an integrator would, and a digest of what its credentials see.
 */
import { storefrontSource } from "../../src/business/rules/sandbox.ts";
import assert from "node:assert/strict";
import { raiseAlert } from "../../src/courier/flows/alerts.ts";
import { storeEvidence } from "../../src/courier/flows/evidence.ts";
import { COURIER_SCOPES } from "../../src/platform/rules/scopes.ts";
import { outboundEventActor } from "../../actors/platform/outbound_event/mod.ts";
import { businessWebhookOf } from "../../src/business/rules/webhook_envelope.ts";
import { sampleTripCreated } from "../../src/business/rules/webhook_sample.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  newDriver,
  topUp,
} from "./courier.ts";
import type { TestEnv } from "./test_env.ts";
import { createPoolDriver } from "./pool_drivers.ts";
import { newOfferId } from "../../src/business/flows/dispatch.ts";
import { acceptAs } from "./driver_trips.ts";
import { orderBody } from "./shopping_orders.ts";

export interface Tenant {
  readonly courier: Courier;
  /** The owner's portal session (people, password): a business key may not manage people. */
  readonly ownerToken: string;
  readonly client: Client;
  /** Another client of the same courier. */
  readonly client2: Client;
  /** The driver of `run`. */
  readonly driver: { id: string; token: string };
  /** Another driver of the same courier, on no run. */
  readonly driver2: { id: string; token: string };
  /** A platform driver of the dispatch pool holding the tenant's Business API trip. */
  readonly poolDriver: { id: string; token: string };
  /** Another pool driver, holding no trip. */
  readonly poolDriver2: { id: string; token: string };
  /** Identifiers by what they name (guard_isolation_test.ts maps parameters to these). */
  readonly ids: Readonly<Record<string, string>>;
}

async function ok(t: TestEnv, method: string, path: string, o: Parameters<TestEnv["call"]>[2]) {
  const r = await t.call(method, path, o);
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** A courier with every courier scope on its key, and one of each thing it can own. */
export async function newTenant(t: TestEnv, tag: string): Promise<Tenant> {
  const courier = await newCourier(t);
  const biz = courier.business;
  const key = biz.api_key;
  await ok(t, "PATCH", `/operator/businesses/${biz.id}`, {
    operator: true,
    body: { api_key_scopes: COURIER_SCOPES },
  });
  const login = await ok(t, "POST", "/business/login", {
    body: { email: biz.owner.email, password: biz.owner.password },
  });
  const [client, client2, driver, driver2] = await Promise.all([
    newClient(t, courier),
    newClient(t, courier),
    newDriver(t, biz.id),
    newDriver(t, biz.id),
  ]);
  await topUp(t, courier, client, "5000");
  const waybill = await bookWaybill(t, client, { client_order_reference: `${tag}-ORDER-1` });
  const crossBorder = await bookWaybill(t, client, {
    to_country: "ZA",
    recipient_address: "12 Long St, Rustenburg",
  });
  const customs = await ok(t, "GET", `/business/shipments/${crossBorder}/customs`, { key });
  const crossing = customs.crossings[0]?.id;
  assert.ok(crossing, `a cross-border booking opens a crossing: ${JSON.stringify(customs)}`);
  const run = await ok(t, "POST", "/business/network-runs", {
    key,
    body: {
      facility_id: "GBE-HUB",
      kind: "delivery",
      countries: ["BW"],
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
      driver_id: driver.id,
    },
  });
  const stops = await ok(t, "POST", `/business/network-runs/${run.id}/stops`, {
    key,
    body: { kind: "deliver", waybill },
  });
  const sha = await storeEvidence(t.env.runtime, biz.id, {
    name: "slip.txt",
    content_type: "text/plain",
    bytes: new TextEncoder().encode(`remittance slip of ${tag}`),
  }, "test");
  assert.ok(sha.ok);
  const alert = await raiseAlert(t.env.runtime, biz.id, {
    kind: "no_scan",
    condition_key: waybill,
    owner: "courier",
    subject: { type: "shipment", id: waybill },
    waybill,
    message: `no physical scan for 26 hours: ${waybill}`,
    detail: { hours: 26 },
  });
  const [quote, person, claim, store, facility, checklist] = await Promise.all([
    ok(t, "POST", "/client/quotes", {
      headers: { "X-Client-API-Key": client.api_key },
      body: DOMESTIC,
    }),
    ok(t, "POST", "/business/people", {
      key: login.token,
      body: {
        name: "Admin",
        email: `admin.${tag}.${crypto.randomUUID()}@example.com`,
        portal_role: "admin",
      },
    }),
    ok(t, "POST", "/business/courier/claims", {
      key,
      body: { waybill, kind: "damage", amount: 10, description: "box crushed" },
    }),
    ok(t, "POST", `/business/courier/clients/${client.id}/stores`, {
      key,
      body: { code: `${tag}-STORE`, name: "Main Mall", address: "Plot 9, Gaborone" },
    }),
    ok(t, "POST", "/business/courier/facilities", {
      key,
      body: { code: `${tag}-HUB`, name: "Hub", country: "BW", timezone: "Africa/Gaborone" },
    }),
    ok(t, "POST", "/business/compliance-checklists", {
      key,
      body: {
        code: `${tag}-EXPORT`,
        name: "Export documents",
        supplier: "clearing_agent",
        items: [{ key: "invoice", label: "Commercial invoice" }],
      },
    }),
    ok(t, "POST", "/business/courier/operations/views", {
      key,
      body: { name: `${tag} late`, filters: { health: "late" } },
    }),
  ]);
  const { trip, ...business } = await businessThingsOf(t, biz.id, key, tag);
  const [poolDriver, poolDriver2] = await Promise.all([createPoolDriver(t), createPoolDriver(t)]);
  await acceptAs(t, biz.id, trip.reference, poolDriver.id);
  await t.settle();
  const events = await ok(t, "GET", "/business/courier/billing/events", { key });
  const event = events[0]?.event_id ?? events[0]?.id;
  assert.ok(event, `a top-up makes a billing event: ${JSON.stringify(events)}`);
  return {
    courier,
    ownerToken: login.token,
    client,
    client2,
    driver,
    driver2,
    poolDriver,
    poolDriver2,
    ids: {
      business: biz.id,
      client: client.id,
      waybill,
      client_order_reference: `${tag}-ORDER-1`,
      crossing,
      run: run.id,
      stop: stops.stops[0].id,
      sha256: sha.value.sha256,
      alert: alert.id,
      quote: quote.quote_reference ?? quote.prices_reference,
      person: person.id,
      claim: claim.id,
      store: store.id,
      facility: facility.id ?? facility.code,
      checklist: checklist.code,
      view: `${tag} late`,
      event,
      webhook_delivery: business.delivery,
      rate_card: courier.rateCardId,
      rate_card_version: "1",
      trip: trip.reference,
      shopping_order: business.order,
      // Shopping 3, 4: the order's store and line (shoppingOrderOf's).
      shopping_store: "F1",
      shopping_item: "I1",
      subscription: business.subscription,
      checkout: business.checkout,
      tracking_token: String(trip.tracking_url).split("/").at(-1)!,
      offer: newOfferId(biz.id, trip.reference),
      channel: storefrontSource(biz.id),
      batch: business.batch,
    },
  };
}

/**
 * A business webhook of the tenant's, waiting for a webhook URL (none is set, so nothing is sent
 * and the world stays still): as the delivery engine holds one made while the URL was set.
 */
export async function waitingWebhook(t: TestEnv, business: string, tag: string): Promise<string> {
  const item = sampleTripCreated({ business, currency: "BWP", now: 0, sample: tag });
  const webhook = businessWebhookOf(business, item);
  const r = await t.env.runtime.ask(outboundEventActor, business, webhook.id, {
    kind: "create",
    event: {
      event_id: webhook.id,
      stream: "business_webhook",
      event_type: webhook.event,
      raw_body: webhook.raw_body,
      recipient: { kind: "business" },
    },
    endpoint_missing: true,
  });
  assert.ok(r.ok, JSON.stringify(r));
  return webhook.id;
}

/**
 * What the tenant's own credentials see, as one string: lists, views and balances across the
 * API. Taken after the projections settle, so any change a probe made shows here.
 */
export async function digest(t: TestEnv, w: Tenant): Promise<string> {
  await t.settle();
  const key = w.courier.business.api_key;
  const client = { "X-Client-API-Key": w.client.api_key };
  const reads: [string, Parameters<TestEnv["call"]>[2]][] = [
    ["/business/profile", { key }],
    ["/business/wallet", { key }],
    ["/business/people", { key: w.ownerToken }],
    ["/business/audit-log", { key: w.ownerToken }],
    [`/business/courier/shipments?q=${w.ids.waybill}`, { key }],
    ["/business/courier/operations?include_closed=1", { key }],
    ["/business/courier/operations/views", { key }],
    ["/business/courier/billing/events", { key }],
    ["/business/courier/billing/endpoint", { key }],
    ["/business/webhook-deliveries", { key }],
    ["/business/courier/claims", { key }],
    ["/business/courier/alerts", { key }],
    ["/business/courier/rate-cards", { key }],
    ["/business/courier/service-levels", { key }],
    ["/business/courier/calendars", { key }],
    ["/business/courier/facilities", { key }],
    ["/business/compliance-checklists", { key }],
    [`/business/courier/clients/${w.client.id}`, { key }],
    [`/business/courier/clients/${w.client.id}/billing`, { key }],
    [`/business/courier/clients/${w.client2.id}/billing`, { key }],
    [`/business/courier/clients/${w.client.id}/stores`, { key }],
    [`/business/network-runs/${w.ids.run}`, { key }],
    [`/business/shipments/${w.ids.waybill}/customs`, { key }],
    [`/business/shipments/${w.ids.waybill}/lab`, { key }],
    [`/business/courier/operations/${w.ids.waybill}`, { key }],
    [`/business/trips/${w.ids.trip}`, { key }],
    [`/business/shopping-orders/${w.ids.shopping_order}`, { key }],
    ["/business/shopping-fulfilment", { key }],
    [`/business/checkouts/${w.ids.checkout}`, { key }],
    ["/client/me", { headers: client }],
    ["/client/account", { headers: client }],
    ["/client/shipments", { headers: client }],
    ["/client/quotes", { headers: client }],
    ["/client/claims", { headers: client }],
    ["/client/stores", { headers: client }],
    ["/client/users", { headers: client }],
    ["/client/addresses", { headers: client }],
    ["/driver/network-runs", { bearer: w.driver.token }],
    ["/driver/network-runs", { bearer: w.driver2.token }],
  ];
  const answers = await Promise.all(reads.map(async ([path, o]) => {
    const r = await t.call("GET", path, o);
    return `${path} ${r.status} ${JSON.stringify(r.body)}`;
  }));
  return answers.join("\n");
}

/** Shopping 2.2: the tenant's shopping order (the capability enabled), by its trip reference. */
async function shoppingOrderOf(t: TestEnv, business: string, key: string, tag: string) {
  await ok(t, "PATCH", `/operator/businesses/${business}`, {
    operator: true,
    body: { shopping_fulfilment_enabled: true },
  });
  const stores = [{
    external_fulfilment_id: "F1",
    external_store_id: "S1",
    estimated_amount: 20,
    items: [{ external_item_id: "I1", name: "Bread", qty: 2 }],
  }];
  const order = await ok(t, "POST", "/business/shopping-orders", {
    key,
    body: orderBody(`${tag}-SHOP-1`, { shopping: { stores } }),
  });
  return order.reference as string;
}

/** A Business API route in Gaborone (Main Mall to Block 8): the sweeps' trips are booked on it. */
const ROUTE = {
  pickup_address: "Main Mall, Gaborone",
  pickup_lat: -24.6545,
  pickup_lng: 25.9086,
  dest_address: "Plot 9, Block 8",
  dest_lat: -24.6019,
  dest_lng: 25.935,
};

/** A business's Business API things, one of each kind the sweeps address by id. */
export interface BusinessThings {
  /** A trip paid from the business's wallet. */
  readonly trip: { readonly reference: string; readonly tracking_url: string };
  /** A business webhook waiting for a URL (waitingWebhook). */
  readonly delivery: string;
  readonly order: string;
  readonly subscription: string;
  readonly batch: string;
  readonly checkout: string;
}

/**
 * One of each Business API thing of a business: a trip (its wallet funded first), a waiting
 * webhook, a shopping order (2.2), a recurring delivery and a batch of one stop (4.2), a checkout
 * held for a cart (4.1).
 */
export async function businessThingsOf(
  t: TestEnv,
  business: string,
  key: string,
  tag: string,
): Promise<BusinessThings> {
  const delivery = await waitingWebhook(t, business, tag);
  await ok(t, "POST", `/operator/businesses/${business}/wallet`, {
    operator: true,
    body: { amount: "500.00", currency: "BWP", reference: `${tag}-wallet` },
  });
  const trip = await ok(t, "POST", "/business/book", {
    key,
    body: { type: "parcel", ...ROUTE, external_reference: `${tag}-TRIP-1` },
  });
  const order = await shoppingOrderOf(t, business, key, tag);
  const subscription = await ok(t, "POST", "/business/subscriptions", {
    key,
    body: { ...ROUTE, days_of_week: [2], pickup_time: "09:30" },
  });
  const stop = { ...ROUTE, dest_address: "Plot 10, Block 8", dest_lat: -24.602, dest_lng: 25.936 };
  const batch = await ok(t, "POST", "/business/batches", {
    key,
    body: {
      segment: "parcel",
      external_reference: `${tag}-BATCH-1`,
      stops: [{ ...stop, size: "s" }],
    },
  });
  const checkout = await ok(t, "POST", "/business/checkouts", {
    key,
    body: { cart_reference: `${tag}-CART-1`, ...ROUTE },
  });
  return {
    trip,
    delivery,
    order,
    subscription: subscription.id,
    batch: batch.id,
    checkout: checkout.reference,
  };
}

/**
 * A courier ready to sell: platform on, a Gaborone calendar, express and economy service levels,
 * a BWP rate card, and one client on it. Built through the HTTP API, as an integrator would.
 */
import assert from "node:assert/strict";
import {
  type BookingOrigin,
  courierClientActor,
  type CourierClientCommand,
} from "../../actors/courier/courier_client.ts";
import { entryAsk } from "../../actors/courier/client_ledger.ts";
import type { CreatedBusiness, TestEnv } from "./test_env.ts";

/** What the setup below asks of a server: in process (TestEnv) or over HTTP (server_process.ts). */
export type Caller = Pick<TestEnv, "call" | "createBusiness">;

export const HOURS = {
  collection_due_hours: 8,
  depot_dwell_hours: 8,
  border_presentation_hours: 16,
  customs_wait_hours: 16,
  linehaul_hours: 24,
  destination_dwell_hours: 8,
  delivery_attempt_hours: 8,
  redelivery_due_hours: 16,
  no_scan_hours: 24,
};

export interface Courier {
  readonly business: CreatedBusiness;
  readonly rateCardId: string;
}

export interface Client {
  readonly id: string;
  readonly api_key: string;
  readonly user: { email: string; password: string };
}

/** A courier with the platform on and exactly the given scopes stored on its key. */
export async function courierWithScopes(
  t: TestEnv,
  scopes: readonly string[],
): Promise<CreatedBusiness> {
  const b = await t.createBusiness();
  const r = await t.call("PATCH", `/operator/businesses/${b.id}`, {
    operator: true,
    body: { courier_platform_enabled: true, api_key_scopes: scopes },
  });
  assert.equal(r.status, 200);
  return b;
}

/** The scopes newCourier stores on the courier's key. */
const COURIER_SCOPES = ["billing:administer", "billing:view-own", "runs:override"] as const;

/** The operator grants `extra` scopes on top of those newCourier stored. */
export async function grantScopes(
  t: TestEnv,
  courier: Courier,
  ...extra: readonly string[]
): Promise<void> {
  const r = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
    operator: true,
    body: { api_key_scopes: [...COURIER_SCOPES, ...extra] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** A driver of the courier `businessId`, made by the operator: its id and bearer token. */
export async function newDriver(
  t: TestEnv,
  businessId: string,
): Promise<{ id: string; token: string }> {
  const r = await t.call("POST", `/operator/businesses/${businessId}/drivers`, {
    operator: true,
    body: { name: "Thabo", phone: "+26771000000", vehicle_type_id: 1 },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

export async function newCourier(t: Caller, card: Record<string, unknown> = {}): Promise<Courier> {
  const business = await t.createBusiness({ plan: "enterprise" });
  const key = business.api_key;
  const patched = await t.call("PATCH", `/operator/businesses/${business.id}`, {
    operator: true,
    body: {
      courier_platform_enabled: true,
      api_key_scopes: COURIER_SCOPES,
    },
  });
  assert.equal(patched.status, 200);
  const cal = await t.call("POST", "/business/courier/calendars", {
    key,
    body: {
      code: "BW",
      name: "Botswana office days",
      timezone: "Africa/Gaborone",
      working_days: [1, 2, 3, 4, 5],
      holidays: ["2026-12-25", "2026-12-26"],
    },
  });
  assert.equal(cal.status, 201, JSON.stringify(cal.body));
  for (
    const sl of [
      { code: "express", name: "Express", transit_days: 1, price_adjustment_pct: 20 },
      { code: "economy", name: "Economy", transit_days: 3, price_adjustment_pct: 0 },
    ]
  ) {
    const r = await t.call("POST", "/business/courier/service-levels", {
      key,
      body: { ...sl, cut_off: "14:00", calendar_id: cal.body.data.id, ...HOURS },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const rc = await t.call("POST", "/business/courier/rate-cards", {
    key,
    body: {
      name: "Standard 2026",
      currency: "BWP",
      base_charge: 50,
      per_kg: 10,
      included_kg: 1,
      volumetric_divisor: 5000,
      minimum_charge: 40,
      tax_pct: 14,
      tax_inclusive: false,
      tax_label: "VAT",
      customs_admin_fee: 75,
      corridors: [{
        from: "BW",
        to: "ZA",
        base_charge: 120,
        per_kg: 15,
        label: "Gaborone-Johannesburg",
      }],
      ...card,
    },
  });
  assert.equal(rc.status, 201, JSON.stringify(rc.body));
  return { business, rateCardId: rc.body.data.id };
}

/** POST /business/courier/clients of a prepaid BWP client with `fields` over it; the raw reply. */
export function postClient(
  t: Caller,
  courier: Courier,
  code: string,
  fields: Record<string, unknown>,
) {
  return t.call("POST", "/business/courier/clients", {
    key: courier.business.api_key,
    body: {
      name: "Molapo Pharmacy",
      code,
      email: `${code.toLowerCase()}@example.com`,
      settlement_mode: "prepaid",
      billing_currency: "BWP",
      ...fields,
    },
  });
}

export async function newClient(
  t: Caller,
  courier: Courier,
  settings: Record<string, unknown> = {},
): Promise<Client> {
  const code = `C${crypto.randomUUID().slice(0, 8)}`;
  const r = await postClient(t, courier, code, { rate_card_id: courier.rateCardId, ...settings });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

export async function topUp(
  t: Caller,
  courier: Courier,
  client: Client,
  amount: string,
): Promise<void> {
  const r = await t.call("POST", `/business/courier/clients/${client.id}/billing/top-up`, {
    key: courier.business.api_key,
    body: { amount, currency: "BWP", reference: `top-up-${crypto.randomUUID()}` },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

/** A new courier's client holding 500.00 BWP, its webhook sent to `url` (courier 6.2). */
export async function hookedClient(
  t: Caller,
  url: string,
): Promise<{ courier: Courier; client: Client }> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500.00");
  const hook = await t.call("POST", "/client/webhook", {
    headers: clientKey(client),
    body: { url },
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  return { courier, client };
}

/** A domestic 2.5 kg parcel: express 50 + 15 transport... see the booking tests for figures. */
export const DOMESTIC = {
  sender_name: "Molapo Pharmacy",
  sender_address: "Plot 123, Main Mall, Gaborone",
  recipient_name: "Neo Kgosi",
  recipient_phone: "+26771234567",
  recipient_address: "Plot 9, Block 8, Gaborone",
  parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
  contents: "Medicines",
  from_country: "BW",
  to_country: "BW",
};

export function clientKey(client: Client): Record<string, string> {
  return { "X-Client-API-Key": client.api_key };
}

/** Prices DOMESTIC (with `extra` over it) for the client and books an option (express). */
export async function bookShipment(
  t: TestEnv,
  client: Client,
  extra: Record<string, unknown> = {},
  options: { dangerous_goods_confirmed?: boolean; service_level?: string } = {},
): Promise<{ waybill: string; tracking_url: string; total: number; currency: string }> {
  const p = await t.call("POST", "/client/prices", {
    headers: clientKey(client),
    body: { ...DOMESTIC, ...extra },
  });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  const b = await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: {
      prices_reference: p.body.data.prices_reference,
      service_level: options.service_level ?? "express",
      dangerous_goods_confirmed: options.dangerous_goods_confirmed ?? false,
    },
  });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  return b.body.data;
}

/** bookShipment, answering the waybill. */
export async function bookWaybill(
  t: TestEnv,
  client: Client,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return (await bookShipment(t, client, extra)).waybill;
}

/** The billing export CSV (courier 4.3): GET is the preview, POST marks the entries exported. */
export async function billingCsv(
  t: TestEnv,
  courier: Courier,
  method: "GET" | "POST",
  query: string,
): Promise<string> {
  const headers = { "X-Business-API-Key": courier.business.api_key };
  const res = method === "GET"
    ? await t.app.request(`/api/business/courier/billing/export?${query}`, { headers })
    : await t.app.request(`/api/business/courier/billing/export`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(Object.fromEntries(new URLSearchParams(query))),
    });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type") ?? "", /^text\/csv/);
  return await res.text();
}

/** The rows of a billing CSV by column name; the test data has no commas or quotes in fields. */
export function billingCsvRows(text: string): Record<string, string>[] {
  const lines = text.trimEnd().split("\n");
  const header = lines[0]!.split(",");
  return lines.slice(1).map((l) => Object.fromEntries(l.split(",").map((v, i) => [header[i], v])));
}

/**
 * A booking's first commit alone: the client account's charge for `waybill` (an express booking
 * of the standard parcel, 88.92 BWP), as if the process stopped right after it. With `booking`,
 * the charge keeps its request as the booking flow's does; without, as charges kept before it.
 */
export async function chargeOnly(
  t: TestEnv,
  courierId: string,
  clientId: string,
  waybill: string,
  booking?: BookingOrigin,
): Promise<void> {
  const charged = await t.env.runtime.ask(courierClientActor, courierId, clientId, {
    kind: "charge_booking",
    waybill,
    amount_minor: 8_892,
    currency: "BWP",
    service_level: "express",
    ...(booking ? { booking } : {}),
    by: "test",
  }, { idempotencyKey: `charge:${waybill}`, permanent: true });
  assert.ok(charged.ok);
}

/**
 * A later charge as a customs or run step would post it (a customs admin fee of 75.00 BWP unless
 * `fields` says otherwise): once per source event.
 */
export async function postCharge(
  t: TestEnv,
  courier: Courier,
  client: Client,
  fields: Partial<Extract<CourierClientCommand, { kind: "post_charge" }>> & { reference: string },
): Promise<void> {
  const command = {
    kind: "post_charge" as const,
    entry_kind: "customs_admin" as const,
    amount_minor: 7_500,
    currency: "BWP",
    reason: "customs administration",
    evidence_path: null,
    source_event: `customs.cleared:${fields.reference}`,
    shipment: null,
    recoverable: false,
    by: "test",
    ...fields,
  };
  const r = await t.env.runtime.ask(
    courierClientActor,
    courier.business.id,
    client.id,
    command,
    entryAsk(command.source_event),
  );
  assert.ok(r.ok, JSON.stringify(r));
}

/** POST /business/courier/clients/{client}/billing/{action} with the courier's key. */
export function billingAction(
  t: TestEnv,
  courier: Courier,
  client: Client,
  action: string,
  body: unknown,
) {
  return t.call("POST", `/business/courier/clients/${client.id}/billing/${action}`, {
    key: courier.business.api_key,
    body,
  });
}

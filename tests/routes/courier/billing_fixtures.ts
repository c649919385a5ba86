/** What the courier billing route tests share: a courier and client ready, views and bookings. */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";
import {
  billingAction,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
} from "../../helpers/courier.ts";

export const DAY = 24 * 60 * 60 * 1000;
export const CREDIT = { settlement_mode: "credit", credit_limit: "5000.00", payment_days: 30 };

export async function ready(
  t: TestEnv,
  settings: Record<string, unknown> = CREDIT,
): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  return [courier, await newClient(t, courier, settings)];
}

/** Lets the projections catch up with what was committed. */
export function settle(t: TestEnv): Promise<void> {
  return t.settle();
}

/** POST resolve-fx: the entry's conversion at `rate`, quoting its source (courier 2.6). */
export function resolveFx(
  t: TestEnv,
  courier: Courier,
  client: Client,
  entry_reference: string,
  rate: unknown,
  source = "Bank of Botswana",
) {
  return billingAction(t, courier, client, "resolve-fx", { entry_reference, rate, source });
}

export function invoice(t: TestEnv, courier: Courier, client: Client, period: string) {
  return t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
    key: courier.business.api_key,
    body: { period },
  });
}

export async function view(t: TestEnv, courier: Courier, client: Client, period?: string) {
  await settle(t);
  const q = period ? `?period=${period}` : "";
  const r = await t.call("GET", `/business/courier/clients/${client.id}/billing${q}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

export async function rows(t: TestEnv, client: Client) {
  await settle(t);
  return await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("client_id", "=", client.id).orderBy("seq").execute();
}

export async function book(t: TestEnv, client: Client): Promise<string> {
  const offer = await t.call("POST", "/client/prices", {
    headers: clientKey(client),
    body: DOMESTIC,
  });
  assert.equal(offer.status, 200, JSON.stringify(offer.body));
  const r = await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: {
      prices_reference: offer.body.data.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: true,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.waybill;
}

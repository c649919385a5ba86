/** What the client booking tests share (prices, booking, a courier and its client). */
import assert from "node:assert/strict";
import { type TestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
} from "../../helpers/courier.ts";

export async function prices(t: TestEnv, client: Client, body: Record<string, unknown> = DOMESTIC) {
  const r = await t.call("POST", "/client/prices", { headers: clientKey(client), body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

export async function book(
  t: TestEnv,
  client: Client,
  prices_reference: string,
  service_level = "express",
) {
  return await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: { prices_reference, service_level, dangerous_goods_confirmed: true },
  });
}

export async function account(t: TestEnv, client: Client) {
  return (await t.call("GET", "/client/account", { headers: clientKey(client) })).body.data;
}

export async function ready(
  t: TestEnv,
  settings: Record<string, unknown> = {},
): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  return [courier, await newClient(t, courier, settings)];
}

export async function quote(t: TestEnv, client: Client): Promise<string> {
  const q = await t.call("POST", "/client/quotes", { headers: clientKey(client), body: DOMESTIC });
  assert.equal(q.status, 201, JSON.stringify(q.body));
  return q.body.data.quote_reference;
}

export async function office(
  t: TestEnv,
  courier: Courier,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return await t.call("POST", "/business/shipments", {
    key: courier.business.api_key,
    headers,
    body,
  });
}

/**
 * What the operations route tests share: a courier and client ready, the courier's scans, and
 * what the operations board and the alerts show once the query side caught up.
 */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";
import { type Client, type Courier, newClient, newCourier, topUp } from "../../helpers/courier.ts";

/** An hour, in seconds (as the manual clock advances). */
export const HOUR = 3600;

/** A courier, and a client of it topped up with 2000. */
export async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

/** Records the scan on the shipment with the courier's key, which must answer `status`. */
export async function scan(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown>,
  status = 201,
) {
  const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

/** The operations board (`query` its filters), once the query side caught up. */
export async function board(t: TestEnv, courier: Courier, query = "") {
  await t.settle();
  const r = await t.call("GET", `/business/courier/operations${query}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { data: Record<string, unknown>[]; meta: { by_health: Record<string, number> } };
}

/** The courier's alerts (`query` their filters), once the query side caught up. */
export async function alerts(t: TestEnv, courier: Courier, query = "") {
  await t.settle();
  const r = await t.call("GET", `/business/courier/alerts${query}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as { kind: string; waybill: string; owner: string; status: string }[];
}

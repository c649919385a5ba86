/**
 * What the client shipments tests share (courier 4.6): a courier and client with money, the
 * client's calls, and CSV lines.
 */
import assert from "node:assert/strict";
import { stringify } from "csv-stringify/sync";
import { type Answer, type TestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

/** DOMESTIC express: 65 transport + 13 express + 10.92 VAT. */
export const EXPRESS = 88.92;
export const ROW = { ...DOMESTIC, service_level: "express" };

export async function ready(
  t: TestEnv,
  balance = "2000",
  settings: Record<string, unknown> = {},
): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier, settings);
  if (balance !== "0") await topUp(t, courier, client, balance);
  return [courier, client];
}

export async function balance(t: TestEnv, client: Client): Promise<number> {
  const r = await t.call("GET", "/client/account", { headers: clientKey(client) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.balance;
}

export function post(
  t: TestEnv,
  client: Client,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return t.call("POST", path, { headers: { ...clientKey(client), ...headers }, body });
}

export async function list(t: TestEnv, client: Client, query = "") {
  await t.settle();
  const r = await t.call("GET", `/client/shipments${query}`, { headers: clientKey(client) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as {
    data: { waybill: string; status: string; client_order_reference: string | null }[];
    meta: { limit: number; next_cursor: string | null };
  };
}

/** Sends a CSV as a text/csv body (or `type`), or as the multipart field `file`. */
export async function upload(
  t: TestEnv,
  client: Client,
  csv: string,
  o: { multipart?: boolean; key?: string; type?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...clientKey(client) };
  if (o.key) headers["Idempotency-Key"] = o.key;
  let body: BodyInit = csv;
  if (o.multipart) {
    const form = new FormData();
    form.append("file", new File([csv], "orders.csv", { type: "text/csv" }));
    body = form;
  } else headers["Content-Type"] = o.type ?? "text/csv";
  const res = await t.app.request("/api/client/shipments/csv", { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export function csvOf(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return stringify([columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? "")))]);
}

/** One CSV line's fields for DOMESTIC, express. */
export function line(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { parcels: [parcel], ...rest } = DOMESTIC;
  return { ...rest, ...parcel, service_level: "express", ...extra };
}

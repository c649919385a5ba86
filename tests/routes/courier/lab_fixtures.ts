/**
 * What the laboratory tests share (courier 2.10, 4.5): a courier and client, the lab calls, a
 * reading, a sample's record and the laboratory's decision.
 */
import assert from "node:assert/strict";
import { type TestEnv } from "../../helpers/test_env.ts";
import { type Client, type Courier, newClient, newCourier, topUp } from "../../helpers/courier.ts";

export const HOUR = 3600;
export const NOW = Date.parse("2026-11-02T08:00:00Z");

export async function ready(
  t: TestEnv,
  card: Record<string, unknown> = {},
): Promise<[Courier, Client]> {
  const courier = await newCourier(t, card);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

export function lab(t: TestEnv, courier: Courier, waybill: string, action: string, body: unknown) {
  return t.call("POST", `/business/shipments/${waybill}/lab/${action}`, {
    key: courier.business.api_key,
    body,
  });
}

export async function profile(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown> = {},
) {
  const r = await lab(t, courier, waybill, "profile", {
    sample_type: "blood",
    min_temp_c: 2,
    max_temp_c: 8,
    deadline_at: "2026-11-02T14:00:00Z",
    seal_id: "SEAL-001",
    ...body,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

export const READING = {
  value: 5.5,
  unit: "C",
  source: "logger",
  device: "TL-9",
  time: "2026-11-02T08:00:00Z",
};

export async function reading(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown>,
  status = 201,
) {
  const r = await lab(t, courier, waybill, "temperature", { ...READING, ...body });
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

export async function record(t: TestEnv, courier: Courier, waybill: string) {
  const r = await t.call("GET", `/business/shipments/${waybill}/lab`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

export async function approve(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  decision: "accept" | "reject",
  status = 200,
) {
  const r = await lab(t, courier, waybill, "approve", {
    decision,
    note: `laboratory says ${decision}`,
    by: "Dr Mosweu",
  });
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

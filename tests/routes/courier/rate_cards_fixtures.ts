/** What the rate-card route tests share: a courier, every term of 2.4, publishing, listing. */
import assert from "node:assert/strict";
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { courierWithScopes } from "../../helpers/courier.ts";

export const HOUR = 3_600_000;

/** A courier with the platform on and the given scopes stored on its key. */
export function courier(
  t: TestEnv,
  scopes: readonly string[] = ["billing:administer"],
): Promise<CreatedBusiness> {
  return courierWithScopes(t, scopes);
}

/** Every term of courier 2.4, as an integrator sends them (numbers and decimal strings). */
export const EVERY_TERM = {
  name: "Standard 2026",
  currency: "BWP",
  effective_from: "2026-11-01T00:00:00+02:00",
  base_charge: 45,
  per_kg: 12.34,
  included_kg: "2.5",
  volumetric_divisor: 4_000,
  minimum_charge: "30.10",
  collection_fee: 5.5,
  delivery_fee: "7",
  discount_pct: 2.5,
  surcharge_pct: "10",
  tax_pct: 14,
  tax_inclusive: true,
  tax_label: "VAT 14%",
  corridors: [
    { from: "BW", to: "ZA", base_charge: "120.50", per_kg: 20, label: "Gaborone-Johannesburg" },
    { from: "ZA", to: "BW", base_charge: 99.99, per_kg: "19.05", label: "Johannesburg-Gaborone" },
  ],
  liability_cover_pct: 1.25,
  redelivery_fee: 25,
  return_fee: 30.01,
  claim_window_days: 14,
  customs_admin_fee: 150,
  errand_fee: 10.75,
  failed_collection_fee: 20,
  cold_chain_fee: 50,
  waiting_fee: 0.8,
};

/** What the API shows back for EVERY_TERM: decimals and percentages as numbers. */
export const EVERY_TERM_SHOWN = {
  name: "Standard 2026",
  currency: "BWP",
  effective_from: "2026-10-31T22:00:00.000Z",
  base_charge: 45,
  per_kg: 12.34,
  included_kg: 2.5,
  volumetric_divisor: 4_000,
  minimum_charge: 30.1,
  collection_fee: 5.5,
  delivery_fee: 7,
  discount_pct: 2.5,
  surcharge_pct: 10,
  tax_pct: 14,
  tax_inclusive: true,
  tax_label: "VAT 14%",
  corridors: [
    { from: "BW", to: "ZA", base_charge: 120.5, per_kg: 20, label: "Gaborone-Johannesburg" },
    { from: "ZA", to: "BW", base_charge: 99.99, per_kg: 19.05, label: "Johannesburg-Gaborone" },
  ],
  liability_cover_pct: 1.25,
  redelivery_fee: 25,
  return_fee: 30.01,
  claim_window_days: 14,
  customs_admin_fee: 150,
  errand_fee: 10.75,
  failed_collection_fee: 20,
  cold_chain_fee: 50,
  waiting_fee: 0.8,
};

export async function publish(t: TestEnv, b: CreatedBusiness, body: unknown = EVERY_TERM) {
  const r = await t.call("POST", "/business/courier/rate-cards", { key: b.api_key, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

export async function list(t: TestEnv, b: CreatedBusiness) {
  const r = await t.call("GET", "/business/courier/rate-cards", { key: b.api_key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

/** A version as the API shows it, without the fields the server chooses. */
export function terms(v: Record<string, unknown>) {
  const {
    id: _,
    version: _v,
    published_at: _p,
    in_force: _f,
    in_force_from: _i,
    replayed: _r,
    ...rest
  } = v;
  return rest;
}

/**
 * Checks an answer against its documented success schema (RouteSpec.response): every field a
 * handler answers must be named by its schema, every field the schema requires must be there,
 * and money is a JSON number with no more decimals than its currency has.
 */
import assert from "node:assert/strict";
import { exponentOf } from "../../src/domain/money.ts";
import { PageMeta, z } from "../../src/http/route.ts";
import type { Answer } from "./test_env.ts";
import { HOURS } from "./courier.ts";
import { PACKET_STATES } from "../../actors/courier/retail_packet.ts";
import { ITEM_STATES } from "../../actors/courier/network_run/mod.ts";

/**
 * Numbers in these answers that are not money: by key, or by `parent.key` where the key alone is
 * money elsewhere, or every number of an object by `parent.*` (counts keyed by value).
 */
export const NOT_MONEY = new Set([
  "chargeable_kg",
  "days_past_due",
  "included_kg",
  "volumetric_divisor",
  "discount_pct",
  "surcharge_pct",
  "tax_pct",
  "liability_cover_pct",
  "claim_window_days",
  "version",
  "version_in_force",
  "rate_card_version",
  "transit_days",
  "at_risk_pct",
  "price_adjustment_pct",
  ...Object.keys(HOURS),
  "lat",
  "lng",
  // The dispatch board's positions and vehicles (dispatch_board_test.ts).
  "accuracy",
  "heading",
  "weight_kg",
  "length_cm",
  "width_cm",
  "height_cm",
  "credit_limit_minor",
  "payment_days",
  "limit",
  // Alerts, billing events, tracking and the operations board (answers_operations_test.ts).
  "size",
  "actions_total",
  "attempts",
  "http_status",
  "delivery_attempts",
  "age_days",
  "open_alerts",
  "count",
  "places",
  "trail_total",
  "open_shipments.total",
  "by_health.*",
  "by_next_owner.*",
  "ageing_days.*",
  "open",
  "unacknowledged",
  "older_than_24h",
  "deliveries",
  "alerts_raised",
  "alerts_resolved",
  // The operator API and the business account (answers_account_test.ts).
  "rate_limit_per_minute",
  "rate_limit_per_day",
  "price_hold_minutes",
  "prep_offer_lead_minutes",
  "dispatch_offer_seconds",
  "dispatch_window_minutes",
  "schedule_offer_lead_minutes",
  "position_fresh_seconds",
  "timers_fired",
  "seq",
  "next_after",
  // The client API (answers_client_test.ts).
  "pieces",
  "shipments",
  "scans_total",
  "booked",
  "failed",
  "index",
  "line",
  // A store's packets counted by state.
  ...PACKET_STATES,
  // Network runs: loads, counts, and the count of items in each state.
  "kg",
  "m3",
  "cold_slots",
  "stops",
  "stops_open",
  ...ITEM_STATES,
  // Laboratory samples: temperatures and counts.
  "value",
  "celsius",
  "min_temp_c",
  "max_temp_c",
  "lowest_c",
  "highest_c",
  "seq",
  "ticks_total",
  "readings_total",
  "out_of_range_total",
  "occurrences",
  "decisions_total",
  // Customs moves, duties and supplies are numbered; checklists count their items.
  "n",
  "supply",
  "items_count",
  // Business API reference data and fare estimates (routes/business/answers/reference_data.ts).
  "id",
  "vehicle_type_id",
  "payload_kg",
  "load_length_cm",
  "load_width_cm",
  "load_height_cm",
  "min_kg",
  "max_kg",
  "center_lat",
  "center_lng",
  "radius_km",
  "road_factor",
  "parcel_weight_min_kg",
  "parcel_weight_max_kg",
  "volumetric_weight_kg",
  "distance_km",
  "passenger_seats",
  // A trip's places and geocoding candidates (routes/business/answers/geocode.ts).
  "pickup_lat",
  "pickup_lng",
  "dest_lat",
  "dest_lng",
  "confidence",
]);

/** The paths of fields in `sent` that the schema's parse left out: fields it does not name. */
function undocumented(sent: unknown, kept: unknown, at: string): string[] {
  if (Array.isArray(sent)) {
    return sent.flatMap((v, i) => undocumented(v, (kept as unknown[])[i], `${at}[${i}]`));
  }
  if (sent === null || typeof sent !== "object") return [];
  const k = kept as Record<string, unknown>;
  return Object.entries(sent).flatMap(([key, v]) =>
    key in k ? undocumented(v, k[key], `${at}.${key}`) : [`${at}.${key}`]
  );
}

/** Money with more decimals than the currency of the nearest object naming one. */
function overPrecise(value: unknown, currency: string | null, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => overPrecise(v, currency, `${at}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  const o = value as Record<string, unknown>;
  // A client's settings name theirs as billing_currency.
  const named = o.currency ?? o.billing_currency;
  const cur = typeof named === "string" ? named : currency;
  // The key of this object in its parent (`data.today` -> `today`, `data.rows[2]` -> `rows`).
  const parent = at.slice(at.lastIndexOf(".") + 1).replace(/\[\d+\]$/, "");
  return Object.entries(o).flatMap(([key, v]) => {
    if (typeof v !== "number") return overPrecise(v, cur, `${at}.${key}`);
    if (NOT_MONEY.has(key) || NOT_MONEY.has(`${parent}.${key}`) || NOT_MONEY.has(`${parent}.*`)) {
      return [];
    }
    const inCurrency = key === "original_amount" ? o.original_currency as string : cur;
    assert.ok(inCurrency, `${at}.${key}: an amount with no currency around it`);
    const decimals = (String(v).split(".")[1] ?? "").length;
    return decimals > exponentOf(inCurrency) ? [`${at}.${key}: ${v} ${inCurrency}`] : [];
  });
}

/** The answer is a success of `status` whose data is exactly what `schema` documents. */
// deno-lint-ignore no-explicit-any
export function documented(schema: z.ZodType, r: Answer, status: number, what: string): any {
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.deepEqual(Object.keys(r.body).sort(), ["data", "success"], what);
  return documentedData(schema, r, what);
}

/** A page of a list: its data what `schema` documents, its meta exactly PageMeta. */
// deno-lint-ignore no-explicit-any
export function listed(schema: z.ZodType, r: Answer, what: string): any[] {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  assert.deepEqual(Object.keys(r.body).sort(), ["data", "meta", "success"], what);
  const meta = PageMeta.strict().safeParse(r.body.meta);
  assert.ok(meta.success, `${what} meta: ${JSON.stringify(r.body.meta)}`);
  return documentedData(z.array(schema), r, what);
}

// deno-lint-ignore no-explicit-any
export function documentedData(schema: z.ZodType, r: Answer, what: string): any {
  assert.equal(r.body.success, true, what);
  const parsed = schema.safeParse(r.body.data);
  assert.ok(parsed.success, `${what}: ${JSON.stringify(parsed.error?.issues, null, 1)}`);
  assert.deepEqual(undocumented(r.body.data, parsed.data, "data"), [], `${what}: undocumented`);
  assert.deepEqual(r.body.data, parsed.data, `${what}: the parse changed no value`);
  assert.deepEqual(overPrecise(r.body.data, null, "data"), [], `${what}: decimals`);
  return r.body.data;
}

/** The answers an OpenAPI operation documents besides its refusals (4xx, 5xx): sorted. */
export function successes(responses: Record<string, unknown>): string[] {
  return Object.keys(responses).filter((s) => !/^[45]/.test(s)).sort();
}

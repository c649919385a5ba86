/** Dispatch's pure rules (Business API 1.2, 3.1): which vehicle fits, and when a trip is offered. */
import assert from "node:assert/strict";
import { offerDueAt, vehicleFits } from "../../../src/business/rules/dispatch.ts";
import { vehicleTypeOf } from "../../../src/business/rules/catalogue.ts";
import { businessCatalogueActor } from "../../../actors/business/catalogue.ts";

const c = businessCatalogueActor.initial.catalogue;
const v = (id: number) => vehicleTypeOf(c, id)!;
const need = (
  resolved: number,
  over: { type?: "ride" | "parcel"; body?: "refrigerated" } = {},
) => ({
  type: over.type ?? "parcel" as const,
  vehicle: { vehicle_class: v(resolved), cargo_body_type: over.body ?? null },
});

Deno.test("dispatch rules: a driver's vehicle fits when it is the resolved one or larger, with the body and seats needed", () => {
  // A motorcycle job: the motorcycle, a car, a van fit.
  for (const id of [1, 2, 3, 5, 9]) assert.equal(vehicleFits(v(id), v(1), need(1)), true, `${id}`);
  // A one-ton van job: nothing smaller, and not an open bakkie for a closed body.
  for (const id of [1, 2, 3, 4]) assert.equal(vehicleFits(v(id), v(5), need(5)), false, `${id}`);
  assert.equal(vehicleFits(v(8), v(5), need(5)), true);
  // Refrigerated goods: only the refrigerated van among one-ton vehicles.
  assert.equal(vehicleFits(v(6), v(6), need(6, { body: "refrigerated" })), true);
  assert.equal(vehicleFits(v(8), v(6), need(6, { body: "refrigerated" })), false);
  // A ride needs seats: a car, not a motorcycle or a van without seats.
  assert.equal(vehicleFits(v(2), v(2), need(2, { type: "ride" })), true);
  assert.equal(vehicleFits(v(3), v(2), need(2, { type: "ride" })), v(3).passenger_seats >= 1);
});

Deno.test("dispatch rules: a prep order at booking + prep_minutes - lead, at once when ready; a scheduled trip lead minutes before", () => {
  const s = { prep_offer_lead_minutes: 12, schedule_offer_lead_minutes: 15 };
  const base = { created_at: 0, scheduled_at: null, prep_minutes: null, ready_at: null };
  assert.equal(offerDueAt(base, s), null);
  assert.equal(offerDueAt({ ...base, prep_minutes: 30 }, s), 18 * 60_000);
  // Preparation shorter than the lead: due at once (a time already past).
  assert.ok(offerDueAt({ ...base, prep_minutes: 5 }, s)! <= 0);
  assert.equal(offerDueAt({ ...base, prep_minutes: 30, ready_at: 60_000 }, s), null);
  assert.equal(offerDueAt({ ...base, scheduled_at: 3_600_000 }, s), 3_600_000 - 15 * 60_000);
});

Deno.test("dispatch rules: a scheduled trip marked ready is still offered at its lead before scheduled_at", () => {
  // spec: business 3.1: "scheduled: offered to drivers shortly before scheduled_at"; readiness
  // brings forward only a prep order's offer.
  const s = { prep_offer_lead_minutes: 12, schedule_offer_lead_minutes: 15 };
  const scheduled = { created_at: 0, scheduled_at: 3_600_000, prep_minutes: null, ready_at: 1 };
  assert.equal(offerDueAt(scheduled, s), 3_600_000 - 15 * 60_000);
  assert.equal(offerDueAt({ ...scheduled, prep_minutes: 30 }, s), 3_600_000 - 15 * 60_000);
});

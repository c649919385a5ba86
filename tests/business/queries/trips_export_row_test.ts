/**
 * Business API 4.1 trips export, one row: a returned trip is told from a delivered one, and the
 * cash on delivery asked and collected are in it (spec: business 6 trip.completed).
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { tripActor, type TripDraft } from "../../../actors/business/trip/mod.ts";
import { tripCsvRow, TRIPS_CSV_COLUMNS } from "../../../src/business/queries/trips_export.ts";
import { ActorHarness } from "../../helpers/actor.ts";
import { CHARGE, claimOf, DRIVER, FORCED, PROOF } from "../../actors/business/trip_fixtures.ts";

function arrived(over: Partial<TripDraft> = {}) {
  const h = new ActorHarness(tripActor, { now: 1_000 }) as ActorHarness<any, any, any, any>;
  h.must({ kind: "claim", claim: claimOf(over) });
  h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE, scan_code: null });
  h.must({ kind: "accept", driver: DRIVER });
  h.must({ kind: "arrive", driver_id: DRIVER.id });
  h.must(FORCED);
  return h;
}

const rowOf = (h: ActorHarness<any, any, any, any>) =>
  Object.fromEntries(TRIPS_CSV_COLUMNS.map((c, i) => [c, tripCsvRow(h.state.trip)[i]]));

Deno.test("trips export row: delivered with its COD asked and collected; returned with its reason", () => {
  const paid = arrived({ cod_amount_minor: 15_000 });
  paid.must({ ...PROOF, cod_collected_amount_minor: 15_000 });
  const delivered = rowOf(paid);
  assert.equal(delivered.status, "completed");
  assert.equal(delivered.delivery_outcome, "delivered");
  assert.equal(delivered.return_reason, "");
  assert.equal(delivered.cod_amount, "150.00");
  assert.equal(delivered.cod_collected_amount, "150.00");

  const back = arrived();
  back.must({ kind: "fail", reason: "recipient_absent" });
  back.must({ kind: "complete_return" });
  // Before, both rows read completed alike, with no column to tell them apart.
  const returned = rowOf(back);
  assert.equal(returned.status, "completed");
  assert.equal(returned.delivery_outcome, "returned");
  assert.equal(returned.return_reason, "recipient_absent");
  assert.equal(returned.cod_amount, "");
  assert.equal(returned.cod_collected_amount, "");
  // New columns only ever at the end: a reader of the old header finds its columns in place.
  assert.deepEqual(TRIPS_CSV_COLUMNS.slice(-4), [
    "delivery_outcome",
    "return_reason",
    "cod_amount",
    "cod_collected_amount",
  ]);
  assert.equal(TRIPS_CSV_COLUMNS.indexOf("is_test"), 21);
});

/**
 * Business API 4.4: a booking's own sandbox_scenario is checked at booking. `id_refused` is the
 * scenario of age-restricted orders: on any other order its id_refused step could never be taken,
 * so the booking is refused naming the field, and nothing is stored.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, debitsOf, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

Deno.test("sandbox booking: id_refused on an order that is not age-restricted is refused 422 naming sandbox_scenario, nothing stored", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const before = await balanceOf(t, b.api_key);
    for (const body of [{ ...PARCEL }, { ...PARCEL, age_verification_required: false }]) {
      const r = await book(t, b.api_key, { ...body, sandbox_scenario: "id_refused" });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      const [error] = r.body.errors;
      assert.equal(error.path, "sandbox_scenario");
      assert.match(error.message, /age_verification_required/);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    assert.equal(await debitsOf(t, b.id), 0);
    const trips = await t.call("GET", "/business/trips", { key: b.api_key });
    assert.deepEqual(trips.body.data.trips ?? trips.body.data, []);
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.moving, got.body.data.gave_up], [[], []]);
    // The age-restricted order runs it.
    const ok = await book(t, b.api_key, {
      ...PARCEL,
      age_verification_required: true,
      sandbox_scenario: "id_refused",
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  }, { name: "sandbox" }));

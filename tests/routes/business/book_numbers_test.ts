/**
 * Trip ids (Business API 2.2 `id`) taken from blocks the business's sequence reserved ahead
 * (src/business/flows/trip_numbers.ts): bookings at once get distinct ids, bookings one after
 * another increasing ones, and each business numbers its own trips.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

Deno.test("book numbers: 50 bookings of one business at once get 50 distinct ids, later ones increasing, another business its own", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "100000.00");
    const at_once = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => book(t, b.api_key, { ...PARCEL, external_reference: `N-${i}` }),
      ),
    );
    for (const r of at_once) assert.equal(r.status, 201, JSON.stringify(r.body));
    const ids = at_once.map((r) => r.body.data.id as number);
    assert.equal(new Set(ids).size, 50, `distinct: ${ids}`);
    assert.ok(ids.every((id) => Number.isSafeInteger(id) && id >= 1), `${ids}`);
    // One after another: each id above every id before it.
    let last = Math.max(...ids);
    for (let i = 0; i < 5; i++) {
      const r = await book(t, b.api_key, { ...PARCEL, external_reference: `S-${i}` });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.ok(r.body.data.id > last, `${r.body.data.id} after ${last}`);
      last = r.body.data.id;
    }
    // A replay answers the trip's first id, taking none.
    const again = await book(t, b.api_key, { ...PARCEL, external_reference: "S-4" });
    assert.equal(again.body.data.id, last);
    const read = await t.call("GET", `/business/trips/${ids[7]}`, { key: b.api_key });
    assert.equal(read.body.data.reference, at_once[7]!.body.data.reference);
    // Another business's first trip is its own number 1; b's trips are not found by it.
    const other = await fundedBusiness(t);
    const first = await book(t, other.api_key, PARCEL);
    assert.equal(first.body.data.id, 1);
    for (const id of [String(last), at_once[7]!.body.data.reference]) {
      const hidden = await t.call("GET", `/business/trips/${id}`, { key: other.api_key });
      assert.equal(hidden.status, 404);
    }
  }));

/**
 * GET /driver/trips (CONTRACT "Driver app"): the trips a pool driver holds, newest first, a keyset
 * page at a time; trips booked in the same millisecond (several businesses' included) keep one
 * order, booking order within a business, so paging and repeated reads neither skip nor reorder.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptAs } from "../../helpers/driver_trips.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

type Listed = { reference: string };

Deno.test("driver trips list: trips booked in the same millisecond are newest first by booking order, paged without a skip or a repeat, old cursors too", () =>
  withTestEnv(async (t) => {
    const driver = await createPoolDriver(t);
    const first = await fundedBusiness(t, "5000.00");
    const second = await fundedBusiness(t, "5000.00");
    // The manual clock stands still: every trip is booked in the same millisecond.
    const booked: { business: string; reference: string }[] = [];
    for (let i = 1; i <= 6; i++) {
      for (const b of [first, second]) {
        const r = await book(t, b.api_key, { ...PARCEL, external_reference: `TIE-${i}` });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        booked.push({ business: b.id, reference: r.body.data.reference });
        await acceptAs(t, b.id, r.body.data.reference, driver.id);
      }
    }
    await t.settle();
    const all = await t.call("GET", "/driver/trips?per_page=100", { bearer: driver.token });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    const listed: string[] = all.body.data.map((x: Listed) => x.reference);
    assert.equal(listed.length, booked.length);
    // Within a business, the later booking first (spec: business 4.1 newest first).
    for (const b of [first, second]) {
      const mine = booked.filter((x) => x.business === b.id).map((x) => x.reference);
      assert.deepEqual(listed.filter((r) => mine.includes(r)), [...mine].reverse());
    }
    const again = await t.call("GET", "/driver/trips?per_page=100", { bearer: driver.token });
    assert.deepEqual(again.body.data.map((x: Listed) => x.reference), listed, "read again alike");
    const paged: string[] = [];
    let cursor = "";
    for (let n = 0; n < booked.length; n++) {
      const r = await t.call("GET", `/driver/trips?per_page=5${cursor}`, {
        bearer: driver.token,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      paged.push(...r.body.data.map((x: Listed) => x.reference));
      if (r.body.meta.next_cursor === null) break;
      cursor = `&cursor=${r.body.meta.next_cursor}`;
    }
    assert.deepEqual(paged, listed);
    // A cursor as the list gave before the tie-break (its last trip's time and reference) asks
    // the page after that trip.
    const old = btoa(JSON.stringify([t.clock.now(), listed[3]])).replaceAll("=", "");
    const rest = await t.call("GET", `/driver/trips?per_page=100&cursor=${old}`, {
      bearer: driver.token,
    });
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    assert.deepEqual(rest.body.data.map((x: Listed) => x.reference), listed.slice(4));
  }));

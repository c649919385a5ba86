/**
 * Business API 4.2 recurring deliveries over HTTP, the rule's edges: a start in the past is
 * refused as a past scheduled_at is (3.1, 7), and a repeated cancel answers as a trip's does.
 */
import assert from "node:assert/strict";
import { advance } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "./trips_fixtures.ts";
import { subscribe, WEEKLY } from "./subscription_fixtures.ts";

// spec: business 3.1, 7: a past time is refused with 422; today (the zone's date) is not past.
Deno.test("subscriptions: a starts_on before today in the subscription's zone is 422 and creates nothing; today is taken", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // The clock is Monday 2026-11-02 10:00 in Gaborone: Sunday the 1st is past.
    const past = await subscribe(t, b.api_key, { ...WEEKLY, starts_on: "2026-11-01" });
    assert.deepEqual([past.status, past.body.code, past.body.errors], [422, "validation_failed", [{
      path: "starts_on",
      message: "must not be before today in Africa/Gaborone: 2026-11-01",
    }]], JSON.stringify(past.body));
    // Already the 2nd in Gaborone, still the 1st in Honolulu: the zone named decides.
    const named = await subscribe(t, b.api_key, {
      ...WEEKLY,
      timezone: "Pacific/Honolulu",
      starts_on: "2026-11-01",
    });
    assert.equal(named.status, 201, JSON.stringify(named.body));
    const today = await subscribe(t, b.api_key, { ...WEEKLY, starts_on: "2026-11-02" });
    assert.deepEqual([today.status, today.body.data?.next_occurrence?.date], [201, "2026-11-03"]);
    await t.settle();
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(
      list.body.data.map((x: { starts_on: string }) => x.starts_on).sort(),
      ["2026-11-01", "2026-11-02"],
      "the refused one was not created",
    );
  }));

// spec: business 3.1, 7: a second cancel of a cancelled trip answers 200 already_cancelled: a
// client retrying a cancel whose answer it lost is told it is done, not refused.
Deno.test("subscriptions: a second cancel answers 200 with already_cancelled and changes nothing; pause and resume of a cancelled one stay 409", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    const act = (action: string) =>
      t.call("POST", `/business/subscriptions/${s.id}/${action}`, { key: b.api_key });
    const first = await act("cancel");
    assert.deepEqual([first.status, first.body.data.status, first.body.data.already_cancelled], [
      200,
      "cancelled",
      undefined,
    ]);
    await advance(t, 60);
    const again = await act("cancel");
    assert.deepEqual(
      [again.status, again.body.data?.status, again.body.data?.already_cancelled],
      [200, "cancelled", true],
      JSON.stringify(again.body),
    );
    assert.equal(again.body.data.updated_at, first.body.data.updated_at, "nothing changed");
    for (const action of ["pause", "resume"]) {
      const r = await act(action);
      assert.deepEqual([r.status, r.body.code], [409, "invalid_transition"], action);
    }
  }));

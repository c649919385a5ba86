/**
 * A business's dispatch board shows the pool drivers holding or offered its trips in progress,
 * and no other (issue 38 item 7): each as long as one of its trips names them.
 */
import assert from "node:assert/strict";
import {
  boardDriverIds,
  BoardDrivers,
  carriesOtherTenantsTrip,
  offeredSince,
} from "../../../src/business/rules/board_drivers.ts";

const trip = (
  reference: string,
  status: "pending" | "accepted" | "completed" | "cancelled",
  driver: string | null,
  offered: string | null = null,
) => ({
  reference,
  status,
  driver: driver === null ? null : { id: driver },
  offer: offered === null ? null : { driver_id: offered },
});

Deno.test("board drivers: a trip's driver and its offer's driver, none once it ended", () => {
  assert.deepEqual(boardDriverIds(trip("A", "pending", null)), []);
  assert.deepEqual(boardDriverIds(trip("A", "pending", null, "d1")), ["d1"]);
  assert.deepEqual(boardDriverIds(trip("A", "accepted", "d1")), ["d1"]);
  assert.deepEqual(boardDriverIds(trip("A", "completed", "d1")), []);
});

Deno.test("board drivers: a driver stays while any trip names them; offered elsewhere, gone", () => {
  const b = new BoardDrivers();
  assert.deepEqual(b.trip(trip("A", "pending", null, "d1")), { added: ["d1"], removed: [] });
  // The offer expired and went to the next driver.
  assert.deepEqual(b.trip(trip("A", "pending", null, "d2")), { added: ["d2"], removed: ["d1"] });
  assert.equal(b.has("d1"), false);
  assert.deepEqual(b.trip(trip("A", "accepted", "d2")), { added: [], removed: [] });
  assert.deepEqual(b.trip(trip("B", "accepted", "d2")), { added: [], removed: [] });
  assert.deepEqual(b.trip(trip("A", "completed", "d2")), { added: [], removed: [] });
  assert.equal(b.has("d2"), true, "still on trip B");
  assert.deepEqual(b.trip(trip("B", "cancelled", "d2")), { added: [], removed: ["d2"] });
  assert.equal(b.has("d2"), false);
  assert.deepEqual(b.trip(trip("B", "cancelled", "d2")), { added: [], removed: [] });
});

Deno.test("board drivers: a driver only on trips queued here is on the board unseen; from the start on, seen", () => {
  const b = new BoardDrivers();
  const queued = {
    reference: "A",
    status: "queued" as const,
    driver: { id: "d1" },
    accepted_at: 1_000,
    started_at: null,
  };
  assert.deepEqual(b.trip(queued), { added: ["d1"], removed: [] });
  assert.equal(b.since("d1"), null);
  assert.equal(b.sees("d1", 9_000), false);
  assert.deepEqual(b.trip({ ...queued, status: "accepted", started_at: 5_000 }), {
    added: [],
    removed: [],
  });
  assert.equal(b.sees("d1", 4_999), false, "observed on the trip before");
  assert.equal(b.sees("d1", 5_000), true);
  // Offered another trip of the business, carrying nothing of another's: seen as offered.
  b.trip({ reference: "B", status: "pending", driver: null, offer: { driver_id: "d1" } });
  b.carrying("d1", 0);
  assert.equal(b.sees("d1", 1), true);
  assert.deepEqual(b.ids(), ["d1"]);
  assert.deepEqual(b.named("B"), ["d1"]);
});

Deno.test("board drivers: a driver merely offered a trip is seen only while known to carry no other business's trip", () => {
  const b = new BoardDrivers();
  b.trip(trip("A", "pending", null, "d1"));
  assert.equal(b.sees("d1", 1), false, "holdings not yet told");
  b.carrying("d1", null);
  assert.equal(b.since("d1"), null, "carrying another business's trip");
  b.carrying("d1", 0);
  assert.equal(b.sees("d1", 1), true);
  b.carrying("d1", null);
  assert.equal(b.sees("d1", 1), false);
  // Its own trip's driver is seen as such, whatever else they are offered.
  b.trip(trip("B", "accepted", "d1"));
  assert.equal(b.sees("d1", 1), true);
  // Taken off the board, what they carried is forgotten: offered again, unseen until told.
  b.trip(trip("B", "completed", "d1"));
  b.trip(trip("A", "pending", null, "d2"));
  b.trip(trip("C", "pending", null, "d1"));
  assert.equal(b.sees("d1", 1), false);
});

Deno.test("carriesOtherTenantsTrip(): a held trip of another business, current or queued", () => {
  const none = { current: null, queued: null };
  assert.equal(carriesOtherTenantsTrip(none, "biz_a"), false);
  assert.equal(carriesOtherTenantsTrip({ ...none, current: "biz_a:T1" }, "biz_a"), false);
  assert.equal(carriesOtherTenantsTrip({ ...none, current: "biz_b:T1" }, "biz_a"), true);
  assert.equal(carriesOtherTenantsTrip({ current: "biz_a:T1", queued: "biz_b:T2" }, "biz_a"), true);
  assert.equal(carriesOtherTenantsTrip({ ...none, current: "garbled" }, "biz_a"), true);
});

Deno.test("offeredSince(): none while carrying another business's trip or when the last release is unknown; else after it", () => {
  const none = { current: null, queued: null };
  assert.equal(offeredSince({ ...none, released_at: 0 }, "biz_a"), 1, "never gave one up");
  assert.equal(offeredSince({ ...none, released_at: 7_000 }, "biz_a"), 7_001);
  assert.equal(offeredSince({ ...none, current: "biz_a:T1", released_at: 7_000 }, "biz_a"), 7_001);
  assert.equal(offeredSince({ ...none, current: "biz_b:T1", released_at: 0 }, "biz_a"), null);
  // spec: business 3.1, 2.4: stored before releases were kept: where they were may be another's.
  assert.equal(offeredSince({ ...none, released_at: null }, "biz_a"), null);
  assert.equal(offeredSince(none, "biz_a"), null);
});

Deno.test("board drivers: a driver merely offered a trip is not seen where they were before giving up another trip", () => {
  const b = new BoardDrivers();
  b.trip(trip("A", "pending", null, "d1"));
  b.carrying("d1", offeredSince({ current: null, queued: null, released_at: 7_000 }, "biz_a"));
  assert.equal(b.sees("d1", 6_000), false, "observed on the trip given up");
  assert.equal(b.sees("d1", 7_000), false, "observed as it was given up");
  assert.equal(b.sees("d1", 7_001), true);
  // Accepted here, their trip's own rule applies (rules/tracking locationSince).
  b.trip(trip("A", "accepted", "d1"));
  assert.equal(b.sees("d1", 6_000), true);
});

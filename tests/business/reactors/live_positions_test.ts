/**
 * The pool drivers' positions (src/business/reactors/live_positions.ts): a report is current at
 * once and writes nothing; a flush writes every position reported since, in one batch. An instance
 * of its own over a test environment's query side, which no pump loop flushes meanwhile (the
 * environment's own is flushed every TIMER_POLL_MS of real time, so a route test cannot see
 * between a report and its batch).
 */
import assert from "node:assert/strict";
import { LivePositions, type Position } from "../../../src/business/reactors/live_positions.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

Deno.test("live positions: a report is current at once and writes nothing; a flush writes all reported since", () =>
  withTestEnv(async (t) => {
    const live = new LivePositions(t.env.db);
    const now = t.clock.now();
    const at = (s: number): Position => ({
      lat: -24.6,
      lng: 25.9 + s / 1000,
      accuracy: null,
      heading: null,
      at: now - s * 1_000,
    });
    const stored = async () =>
      (await t.env.db.selectFrom("driver_positions").select("at").where("driver_id", "=", "drv_a")
        .orderBy("at").execute()).map((r) => Number(r.at));

    assert.deepEqual(live.report("drv_a", [at(5), at(0), at(10)]), at(0));
    assert.deepEqual(live.latest("drv_a"), at(0));
    assert.deepEqual(await stored(), [], "nothing is written per report");
    await live.flush();
    assert.deepEqual(await stored(), [now - 10_000, now - 5_000, now]);

    // A late report of an older position is stored, and leaves the newest current.
    live.report("drv_a", [at(30)]);
    assert.deepEqual(live.latest("drv_a"), at(0));
    assert.deepEqual((await stored()).length, 3);
    await live.flush();
    assert.deepEqual(await stored(), [now - 30_000, now - 10_000, now - 5_000, now]);
  }));

/** POST /business/batches on live (Business API 7 test_booking_refused, 2.3 stop fields). */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { LINE, postBatch, stop } from "./batch_fixtures.ts";
import { balanceOf, bwp, fundedBusiness } from "./trips_fixtures.ts";

Deno.test("batches: a test marker in a stop's recipient_name or address is refused on live naming the stop's own field, nothing charged", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const marked: [string, Record<string, unknown>][] = [
      ["stops.1.recipient_name", stop("__TEST Neo", "l", 0, 1)],
      ["stops.1.pickup_address", stop("Neo", "l", 0, 1, { pickup_address: "[TEST] mall" })],
      ["stops.1.dest_address", stop("Neo", "l", 0, 1, { dest_address: "DO NOT DELIVER" })],
    ];
    for (const [path, second] of marked) {
      const stops = [LINE[0], second, LINE[2]];
      const r = await postBatch(t, b.api_key, { segment: "parcel", stops });
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "test_booking_refused", path);
      assert.equal(r.body.path, path);
      assert.ok(r.body.message.includes(path), `${r.body.message} names ${path}`);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000), "nothing charged");
  }));

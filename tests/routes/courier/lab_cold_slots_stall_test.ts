/**
 * A cold profile whose request stalled past the reservation's sweep (courier 2.10: a run's cold
 * slots): woken after another shipment took the run's last cold slot, it is refused
 * capacity_exceeded and changes nothing: the sample is not made cold while the run counts no slot.
 */
import assert from "node:assert/strict";
import { COLD_RESERVATION_STALL_MS } from "../../../src/limits.ts";
import { commandKind, holdAsk } from "../../helpers/faults.ts";
import { advance } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import { deliverStops, newRun, ready } from "./runs_fixtures.ts";

Deno.test("lab cold slots: a profile stalled past the sweep, whose slot another took meanwhile, is refused and leaves the sample as it was", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, {
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
    });
    const [waybill, other] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    await deliverStops(t, courier, run, [waybill, other]);
    const key = courier.business.api_key;
    const profile = (w: string) =>
      t.call("POST", `/business/shipments/${w}/lab/profile`, {
        key,
        body: { sample_type: "blood", min_temp_c: 2, max_temp_c: 8 },
      });
    const held = holdAsk(t.env.runtime, commandKind("profile", "lab_sample"));
    const stalled = profile(waybill);
    await held.reached;
    await advance(t, COLD_RESERVATION_STALL_MS / 1000 + 1);
    await t.env.runtime.outboxesIdle();
    // The sweep gave the stalled request's slot back; the other shipment's profile takes it.
    const taken = await profile(other);
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    held.open();
    const late = await stalled;
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, "capacity_exceeded");
    // spec: courier 2.10: a refused profile changes nothing: no profile, no cold sample.
    const record = await t.call("GET", `/business/shipments/${waybill}/lab`, { key });
    assert.equal(record.status, 404, JSON.stringify(record.body));
    const items = await t.call("GET", `/business/network-runs/${run}`, { key });
    assert.deepEqual(
      items.body.data.items.map((i: { load: { cold_slots: number } }) => i.load.cold_slots),
      [0, 1],
    );
  }));

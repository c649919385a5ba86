/**
 * A laboratory sample's handover and what blocks it, one after the other (courier 3.4: a late
 * sample, an out-of-range reading or a broken seal blocks the handover until someone with
 * runs:override records the laboratory's decision): a block recorded while the delivery is being
 * recorded is not missed, and once the laboratory decided, the stop delivers it.
 */
import assert from "node:assert/strict";
import { deliver } from "../../../src/courier/flows/runs/mod.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, flakyRuntime, holdAsk } from "../../helpers/faults.ts";
import { boardRun } from "../../../src/courier/flows/runs/loads.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import { newRun, post, ready, runtimeWithGap, trailOf } from "./runs_fixtures.ts";

Deno.test("runs: an out-of-range reading recorded between the delivery's checks and its record blocks the handover", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, {
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
    });
    const waybill = await bookWaybill(t, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill,
    }, 201)).data.stops[0].id as string;
    await post(t, courier, `/business/shipments/${waybill}/lab/profile`, {
      sample_type: "blood",
      min_temp_c: 2,
      max_temp_c: 8,
    });
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const warm = () =>
      post(t, courier, `/business/shipments/${waybill}/lab/temperature`, {
        value: 12,
        unit: "C",
        source: "logger",
        device: "TL-9",
        time: "2026-11-02T08:00:00Z",
      }, 201);
    const runtime = runtimeWithGap(t, "stop_deliver", warm);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const answer = await deliver({ ...t.env, runtime }, caller, run, stop, {
      lab_handover: true,
    }).then(() => "recorded", (e) => e instanceof Refused ? e.rejection.code : String(e));
    // spec: courier 3.4: blocked until the laboratory's decision, however close the reading.
    assert.equal(answer, "lab_handover_blocked");
    assert.ok(!(await trailOf(t, courier, waybill)).includes("delivered"));
    const now = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(now.stops[0].status, "pending");
    // Once the laboratory decided, the stop hands it over.
    await post(t, courier, `/business/shipments/${waybill}/lab/approve`, {
      decision: "accept",
      note: "lab accepted the sample after review",
    });
    const handed = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
      lab_handover: true,
    });
    assert.equal(handed.data.items[0].state, "lab_handover");
  }));

Deno.test("runs: a shipment boarding a run whose laboratory record is not readable now (busy) is not taken as not cold chain: thrown", () =>
  withTestEnv(async (t) => {
    const [tenant, waybill] = ["biz_cold", "WB0000000002"];
    // spec: courier 3.4: a cold-chain sample needs a cold slot; a full mailbox is no answer
    // that the shipment has no sample.
    const busy = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", "lab_sample"),
      refuse: true,
    });
    await assert.rejects(
      boardRun(busy.runtime, tenant, waybill, "run_1"),
      (e) => e instanceof Refused && e.rejection.code === "actor_busy",
    );
    assert.equal(busy.failed(), 1);
    assert.equal(await boardRun(t.env.runtime, tenant, waybill, "run_1"), false);
  }));

Deno.test("runs: a refused cold profile racing an accepted one leaves the run counting the cold sample's slots", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, {
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
    });
    const waybill = await bookWaybill(t, client);
    await post(
      t,
      courier,
      `/business/network-runs/${run}/stops`,
      { kind: "deliver", waybill },
      201,
    );
    const profile = (min: number) =>
      t.call("POST", `/business/shipments/${waybill}/lab/profile`, {
        key: courier.business.api_key,
        body: { sample_type: "blood", min_temp_c: min, max_temp_c: 8 },
      });
    // The first (two decimals: refused by the sample) reserved the run's cold slot, then waits.
    const held = holdAsk(t.env.runtime, commandKind("profile", "lab_sample"));
    const refusing = profile(2.55);
    await held.reached;
    const accepted = await profile(2);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    held.open();
    const refused = await refusing;
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "invalid_temperature_range");
    // spec: courier 2.10: the sample is cold: its piece takes the run's cold slot still.
    const got = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.equal(got.body.data.items[0].load.cold_slots, 1, JSON.stringify(got.body.data.items));
  }));

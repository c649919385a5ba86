/**
 * A transfer of a shipment operations closed (courier 3.4: an item's end state is what happened
 * to it; a parcel is in one state at a time): refused 409 shipment_closed before anything moves,
 * also when operations close it between the transfer's checks and its record.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import { transfer } from "../../../src/courier/flows/runs/mod.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { deliverStops, newRun, post, ready, runtimeWithGap, trailOf } from "./runs_fixtures.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import type { Courier } from "../../helpers/courier.ts";

async function runOf(t: TestEnv, courier: Courier, run: string) {
  const r = await t.call("GET", `/business/network-runs/${run}`, {
    key: courier.business.api_key,
  });
  return r.body.data;
}

Deno.test("runs: a shipment operations delivered is not transferred", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [from, to] = [await newRun(t, courier), await newRun(t, courier)];
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, from, [a]);
    await post(t, courier, `/business/network-runs/${from}/depart`, {});
    await post(t, courier, `/business/courier/shipments/${a}/scans`, { event: "delivered" }, 201);
    const refused = await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a],
      to_run: to,
    }, 409);
    assert.equal(refused.code, "shipment_closed", JSON.stringify(refused));
    assert.match(refused.message, new RegExp(`${a} is delivered`));
    assert.equal((await runOf(t, courier, from)).items[0].state, "on_board");
    assert.deepEqual((await runOf(t, courier, to)).items, []);
    assert.equal((await trailOf(t, courier, a)).at(-1), "delivered");
  }));

Deno.test("runs: a shipment operations deliver between the transfer's checks and its record is not transferred", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [from, to] = [await newRun(t, courier), await newRun(t, courier)];
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, from, [a]);
    await post(t, courier, `/business/network-runs/${from}/depart`, {});
    const delivered = () =>
      post(t, courier, `/business/courier/shipments/${a}/scans`, { event: "delivered" }, 201);
    const runtime = runtimeWithGap(t, "transfer", delivered);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const answer = await transfer({ ...t.env, runtime }, caller, from, {
      waybills: [a],
      to_run: to,
    }).then(() => "recorded", (e) => e instanceof Refused ? e.rejection.code : String(e));
    // spec: courier 3.4: one state at a time: delivered, it is not moved to another run.
    assert.equal(answer, "shipment_closed");
    assert.equal((await runOf(t, courier, from)).items[0].state, "on_board");
    assert.deepEqual((await runOf(t, courier, to)).items, []);
    const trail = await trailOf(t, courier, a);
    assert.equal(trail.at(-1), "delivered", trail.join());
  }));

/**
 * Runs moving a shipment operations closed (courier 3.4: an item's end state is what happened to
 * it; a parcel is in one state at a time): the run ends the item as the shipment ended from the
 * shipment's own commit (its outbox), so a transfer is refused before anything moves, also when
 * operations close it between the transfer's checks and its record; a departure or an unload
 * that finds it closed ends the item so too.
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
    await t.settle();
    // The run ended its item as the shipment ended (closed_on_runs.ts): it stays as it ended.
    const refused = await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a],
      to_run: to,
    }, 422);
    assert.equal(refused.code, "not_transferable", JSON.stringify(refused));
    assert.match(refused.message, new RegExp(`${a} cannot be transferred: .*delivered`));
    assert.equal((await runOf(t, courier, from)).items[0].state, "delivered");
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
    // spec: courier 3.4: one state at a time: delivered, it is not moved to another run. Refused
    // for the step voided, or for the item the run ended meanwhile (closed_on_runs.ts).
    assert.ok(["shipment_closed", "not_transferable"].includes(answer), answer);
    await t.settle();
    assert.equal((await runOf(t, courier, from)).items[0].state, "delivered");
    assert.deepEqual((await runOf(t, courier, to)).items, []);
    const trail = await trailOf(t, courier, a);
    assert.equal(trail.at(-1), "delivered", trail.join());
  }));

Deno.test("runs: a transfer refused for a closed shipment leaves nothing under way on the others it named", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [from, to] = [await newRun(t, courier), await newRun(t, courier)];
    const [a, b] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    await deliverStops(t, courier, from, [a, b]);
    await post(t, courier, `/business/network-runs/${from}/depart`, {});
    await post(t, courier, `/business/courier/shipments/${b}/scans`, { event: "delivered" }, 201);
    await t.settle();
    const refused = await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a, b],
      to_run: to,
    }, 422);
    assert.equal(refused.code, "not_transferable");
    await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a],
      to_run: to,
    });
    // The refused transfer's reservation of a is not a step the run recorded: a closes.
    await post(t, courier, `/business/courier/shipments/${a}/scans`, { event: "delivered" }, 201);
  }));

Deno.test("runs: a shipment operations delivered before the run departed ends as delivered on the run", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [a]);
    await post(t, courier, `/business/courier/shipments/${a}/scans`, { event: "delivered" }, 201);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    // spec: courier 3.4: run and shipment agree: delivered, not on board.
    assert.equal((await runOf(t, courier, run)).items[0].state, "delivered");
    const trail = await trailOf(t, courier, a);
    assert.deepEqual(trail.slice(-1), ["delivered"], trail.join());
    const closed = await post(t, courier, `/business/network-runs/${run}/close`, {});
    assert.equal(closed.data.status, "closed");
  }));

Deno.test("runs: a shipment operations returned while the run carried it ends as returned on the unload", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [a]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    for (const event of ["returning", "returned"]) {
      await post(t, courier, `/business/courier/shipments/${a}/scans`, { event }, 201);
    }
    await post(t, courier, `/business/network-runs/${run}/unload`, {});
    assert.equal((await runOf(t, courier, run)).items[0].state, "returned");
    assert.equal((await trailOf(t, courier, a)).at(-1), "returned");
  }));

Deno.test("runs: a shipment operations deliver while the run carries it ends as delivered on the run without a later move", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const [a, b] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    await deliverStops(t, courier, run, [a, b]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/courier/shipments/${a}/scans`, { event: "delivered" }, 201);
    await t.settle();
    // spec: courier 3.4: the run learns it from the shipment's own commit, not at its next move.
    const states = (await runOf(t, courier, run)).items.map((i: { state: string }) => i.state);
    assert.deepEqual(states, ["delivered", "on_board"]);
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill: b,
      condition: "missing",
      note: "not found in the van",
    });
    const closed = await post(t, courier, `/business/network-runs/${run}/close`, {});
    assert.equal(closed.data.status, "closed");
  }));

Deno.test("runs: a shipment operations cancel while a run plans it ends as returned to origin on the run, which can close", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [a]);
    await post(t, courier, `/business/courier/shipments/${a}/scans`, {
      event: "cancelled",
      reason: "the sender called it off",
    }, 201);
    await t.settle();
    // spec: courier 3.4: never left its sender: its end state is returned to origin, not pending.
    assert.equal((await runOf(t, courier, run)).items[0].state, "returned");
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    assert.equal((await runOf(t, courier, run)).items[0].state, "returned");
    assert.equal((await trailOf(t, courier, a)).at(-1), "cancelled");
    const closed = await post(t, courier, `/business/network-runs/${run}/close`, {});
    assert.equal(closed.data.status, "closed");
  }));

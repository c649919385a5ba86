/**
 * A shipment that ended (courier 3.2, 3.4): one another run delivered is not delivered again, and
 * the stop that would is left to be reported; one delivered is neither planned on a run again
 * nor collected (nor charged an errand).
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import {
  collectStop,
  deliverStops,
  ledger,
  newRun,
  post,
  ready,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("runs: a shipment another run delivered is not delivered again; that run reports it instead", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [first, second] = [await newRun(t, courier), await newRun(t, courier)];
    const waybill = await bookWaybill(t, client);
    const stopOf = async (run: string) => {
      await deliverStops(t, courier, run, [waybill]);
      return (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
        .stops[0].id as string;
    };
    const [a, b] = [await stopOf(first), await stopOf(second)];
    const deliver = (run: string, stop: string, status: number) =>
      post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
        idempotency_key: `d-${stop}`,
        received_by: "Kagiso",
      }, status);
    const delivered = await deliver(first, a, 200);
    // spec: courier 3.4: an item's end state is what happened to it; the second run did not
    // deliver the shipment, so it does not say so.
    const again = await deliver(second, b, 409);
    assert.equal(again.code, "shipment_closed", JSON.stringify(again));
    assert.match(again.message, /delivered/);
    const run = (await t.call("GET", `/business/network-runs/${second}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(run.stops[0].status, "pending");
    assert.deepEqual(run.items.map((i: { state: string }) => i.state), ["on_board"]);
    // The first run's delivery sent again (lost signal) answers as it did.
    assert.deepEqual(await deliver(first, a, 200), delivered);
    const trail = await trailOf(t, courier, waybill);
    assert.equal(trail.filter((e) => e === "delivered").length, 1, trail.join());
    await post(t, courier, `/business/network-runs/${second}/report`, {
      waybill,
      condition: "missing",
      note: "delivered by another run",
    });
  }));

Deno.test("runs: a delivered shipment is not collected, nor its errand charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const first = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    await deliverStops(t, courier, first, [waybill]);
    const stop = (await post(t, courier, `/business/network-runs/${first}/depart`, {})).data
      .stops[0].id;
    await post(t, courier, `/business/network-runs/${first}/stops/${stop}/deliver`, {});
    const second = await newRun(t, courier);
    const collect = await collectStop(t, courier, second, client, { kg: 5, pieces: 2 });
    const refused = await post(
      t,
      courier,
      `/business/network-runs/${second}/stops/${collect}/collect`,
      { waybill },
      409,
    );
    assert.equal(refused.code, "shipment_closed", JSON.stringify(refused));
    const run = (await t.call("GET", `/business/network-runs/${second}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual(run.items, []);
    assert.equal(run.stops[0].status, "pending");
    // spec: courier 2.6 rule 3: an errand is charged for a collection made; none was.
    const kinds = (await ledger(t, courier, client)).map((e) => e.kind);
    assert.ok(!kinds.includes("errand"), kinds.join());
  }));

Deno.test("runs: a delivered shipment is not planned for delivery on another run", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const first = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const add = { kind: "deliver", waybill, idempotency_key: "plan-1" };
    const planned = await post(t, courier, `/business/network-runs/${first}/stops`, add, 201);
    const stop = (await post(t, courier, `/business/network-runs/${first}/depart`, {})).data
      .stops[0].id;
    await post(t, courier, `/business/network-runs/${first}/stops/${stop}/deliver`, {});
    const second = await newRun(t, courier);
    const refused = await post(t, courier, `/business/network-runs/${second}/stops`, add, 409);
    assert.equal(refused.code, "shipment_closed", JSON.stringify(refused));
    const run = (await t.call("GET", `/business/network-runs/${second}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual([run.stops, run.items], [[], []]);
    // On the run that delivered it, the stop added before, sent again, answers as it did.
    const again = await t.call("POST", `/business/network-runs/${first}/stops`, {
      key: courier.business.api_key,
      body: add,
    });
    assert.ok(again.status < 300, JSON.stringify(again.body));
    assert.deepEqual(
      again.body.data.stops.map((s: { id: string }) => s.id),
      planned.data.stops.map((s: { id: string }) => s.id),
    );
  }));

/**
 * A run takes `capacities` (courier 2.10); `capacity`, the name the service read before, keeps
 * working for integrators already sending it (courier 9.2), and the OpenAPI document shows the
 * spec's word. A shipment on a run is one item, its load counted once.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newCourier } from "../../helpers/courier.ts";
import { collectStop, deliverStops, newRun, post, ready } from "./runs_fixtures.ts";

const RUN = { facility_id: "GBE-HUB", kind: "linehaul", countries: ["BW"] };
const SENT = { kg: 100, m3: 2, pieces: 10, cold_slots: 1 };

Deno.test("runs: a run takes capacities, or capacity as before, never both; the document says capacities", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const create = (body: Record<string, unknown>) =>
      t.call("POST", "/business/network-runs", {
        key: courier.business.api_key,
        body: { ...RUN, ...body },
      });
    const named = await create({ capacities: SENT });
    assert.equal(named.status, 201, JSON.stringify(named.body));
    assert.deepEqual(named.body.data.capacity, SENT);
    const former = await create({ capacity: SENT });
    assert.equal(former.status, 201, JSON.stringify(former.body));
    assert.deepEqual(former.body.data.capacity, SENT);
    const both = await create({ capacities: SENT, capacity: SENT });
    assert.equal(both.status, 422);
    assert.equal(both.body.code, "validation_failed");
    assert.deepEqual(both.body.errors, [{
      path: "capacity",
      message: "capacity is the former name of capacities: send one of them, not both",
    }]);
    const neither = await create({});
    assert.equal(neither.status, 422);
    assert.deepEqual(neither.body.errors.map((e: { path: string }) => e.path), ["capacities"]);
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    const schema = doc.paths["/business/network-runs"].post.requestBody
      .content["application/json"].schema;
    assert.ok("capacities" in schema.properties, JSON.stringify(schema));
    assert.ok(!("capacity" in schema.properties));
    assert.ok(schema.required.includes("capacities"));
  }));

Deno.test("runs: a shipment already on the run is not collected again at another stop; its load counts once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const first = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const second = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const waybill = await bookWaybill(t, client);
    const planned = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [planned]);
    await post(t, courier, `/business/network-runs/${run}/stops/${first}/collect`, { waybill });
    // spec: courier 3.4: one item per shipment on a run, in one state (as a deliver stop added
    // for one already on it is refused).
    for (const [stop, w] of [[second, waybill], [first, planned]] as const) {
      const again = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
        waybill: w,
      }, 409);
      assert.equal(again.code, "already_on_run", JSON.stringify(again));
    }
    const got = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual(
      got.items.map((i: { waybill: string }) => i.waybill).sort(),
      [planned, waybill].sort(),
    );
    assert.equal(got.stops.find((s: { id: string }) => s.id === second).status, "pending");
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(
      ship.body.data.trail.filter((e: { event: string }) => e.event === "collected").length,
      1,
    );
  }));

/**
 * A run takes `capacities` (courier 2.10); `capacity`, the name the service read before, keeps
 * working for integrators already sending it (courier 9.2), and the OpenAPI document shows the
 * spec's word.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { newCourier } from "../../helpers/courier.ts";

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

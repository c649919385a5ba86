/**
 * courier 2.9 leg_trip_ended: "a leg ... its trip ended without telling the shipment". A run's
 * normal order is depart, arrive, then unload (or deliver, report, transfer); the alert is raised
 * only for a shipment still on board once TRIP_ENDED_GRACE_MS after the arrival has passed with
 * nothing telling it where it is, once per shipment, however often the arrival is sent or the
 * check runs, and after a restart as before it.
 */
import assert from "node:assert/strict";
import { TRIP_ENDED_GRACE_MS } from "../../../actors/courier/network_run/mod.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { openTestEnv, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import type { Courier } from "../../helpers/courier.ts";
import { advance } from "../../helpers/receiver.ts";
import { deliveryRun, post, ready } from "./runs_fixtures.ts";

const GRACE_S = TRIP_ENDED_GRACE_MS / 1000;

/** The waybills of the courier's leg_trip_ended alerts, sorted, once the query side caught up. */
async function tripEnded(t: TestEnv, courier: Courier): Promise<string[]> {
  await t.settle();
  const r = await t.call("GET", "/business/courier/alerts?kind=leg_trip_ended", {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.map((a: { waybill: string }) => a.waybill).sort();
}

Deno.test("runs trip ended: a run that departs, arrives and unloads raises no leg_trip_ended", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run } = await deliveryRun(t, courier, client, 3);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.deepEqual(await tripEnded(t, courier), [], "the arrival itself raises none");
    await advance(t, 30 * 60);
    const unloaded = await post(t, courier, `/business/network-runs/${run}/unload`, {});
    assert.equal(unloaded.data.status, "unloaded");
    await advance(t, GRACE_S);
    await advance(t, GRACE_S);
    assert.deepEqual(await tripEnded(t, courier), []);
  }));

Deno.test("runs trip ended: a run left arrived with shipments on board raises one alert per shipment once the grace has passed, once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybills } = await deliveryRun(t, courier, client, 2);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    await advance(t, GRACE_S - 60);
    assert.deepEqual(await tripEnded(t, courier), [], "still within the grace");
    await advance(t, 60);
    assert.deepEqual(await tripEnded(t, courier), [...waybills].sort());
    // The arrival sent again, and more time passing, raise nothing more (2.9: raised once).
    const again = await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.equal(again.data.status, "arrived");
    await advance(t, GRACE_S);
    await advance(t, GRACE_S);
    assert.deepEqual(await tripEnded(t, courier), [...waybills].sort());
  }));

Deno.test("runs trip ended: a partial unload and a report within the grace leave alerts only for the rest", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybills } = await deliveryRun(t, courier, client, 3);
    const [unloaded, reported, forgotten] = waybills as [string, string, string];
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    await post(t, courier, `/business/network-runs/${run}/unload`, { waybills: [unloaded] });
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill: reported,
      condition: "damaged",
      note: "box crushed under a pallet",
    });
    await advance(t, GRACE_S);
    assert.deepEqual(await tripEnded(t, courier), [forgotten]);
    // Unloaded after the alert: the alert stays until a person resolves it (2.9), none is added.
    await post(t, courier, `/business/network-runs/${run}/unload`, { waybills: [forgotten] });
    await advance(t, GRACE_S);
    assert.deepEqual(await tripEnded(t, courier), [forgotten]);
  }));

Deno.test("runs trip ended: the check of a run that arrived before a restart is made after it", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  const dataKey = await importDataKey(new Uint8Array(32).fill(5));
  const first = await openTestEnv({ kvPath, dataKey });
  let made: { courier: Courier; waybill: string; now: number };
  try {
    const [courier, client] = await ready(first);
    const { run, waybill } = await deliveryRun(first, courier, client);
    await post(first, courier, `/business/network-runs/${run}/depart`, {});
    await post(first, courier, `/business/network-runs/${run}/arrive`, {});
    made = { courier, waybill, now: first.clock.now() };
  } finally {
    await first.close();
  }
  const second = await openTestEnv({ kvPath, dataKey });
  try {
    second.clock.advanceBy(made.now - second.clock.now());
    await advance(second, GRACE_S);
    assert.deepEqual(await tripEnded(second, made.courier), [made.waybill]);
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

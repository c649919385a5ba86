/**
 * A run's follow-ups (courier 3.2, 4.5), called without HTTP: the custody move a stop action calls
 * for is recorded for the request that asked the action, and named so on the shipment's change.
 */
import assert from "node:assert/strict";
import { custody } from "../../../actors/courier/network_run/follow_ups.ts";
import { type ActorChange, subjectPattern } from "../../../src/bus/bus.ts";
import { followThrough } from "../../../src/courier/flows/runs/mod.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

Deno.test("run follow-ups flow: a custody move names the request it is done for, and none without one", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client);
    const tenant = courier.business.id;
    const heard: ActorChange[] = [];
    const pattern = subjectPattern(t.env.runtime.busPrefix, tenant, "shipment");
    const sub = t.env.bus.subscribe(pattern, (m) => {
      heard.push(m.payload as ActorChange);
    });
    try {
      const scan = { event: "collected", holder: "run:test", by: "driver:test" } as const;
      await followThrough(t.env.runtime, tenant, "run_test", null, [
        custody(waybill, "collect:1", scan),
      ], "req-collect");
      // Done for no request (the reactor's, for a change of several requests' commands): none.
      await followThrough(t.env.runtime, tenant, "run_test", null, [
        custody(waybill, "depart:1", { ...scan, event: "departed" }),
      ]);
      await t.env.bus.flush();
    } finally {
      sub.unsubscribe();
    }
    const named = heard.filter((c) => c.id === waybill).map((c) => c.request_id ?? null);
    assert.deepEqual(named, ["req-collect", null]);
  }));

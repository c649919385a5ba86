/**
 * Scans operations record that cannot have happened from the shipment's headline (courier 3.2,
 * 2.6 rule 3, 4.4): refused 409 and nothing changes, so no later charge follows them.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { bookWaybill, grantScopes } from "../../helpers/courier.ts";
import { ready, scan } from "./operations_fixtures.ts";
import { CROSS_BORDER, move } from "./customs_fixtures.ts";
import { bookingCrossingIdOf } from "../../../src/courier/flows/customs.ts";
import { recordScan } from "../../../src/courier/flows/scans.ts";
import { moveCrossing } from "../../../src/courier/flows/customs_moves.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import type { TestEnv } from "../../helpers/test_env.ts";

/** The runtime, with `before` run once just before the shipment is asked to record a scan. */
function runtimeWithScanGap(t: TestEnv, before: () => Promise<unknown>): ActorRuntime {
  let done = false;
  return new Proxy(t.env.runtime, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "ask") return value.bind(target);
      return async (...args: unknown[]) => {
        const [def, , , command] = args as [{ type: string }, string, string, { kind: string }];
        if (!done && def.type === "shipment" && command.kind === "record") {
          done = true;
          await before();
        }
        return await value.apply(target, args);
      };
    },
  });
}

Deno.test("operations scans: a delivery attempt on a shipment never out for delivery is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    await scan(t, courier, waybill, { event: "collected" });
    const refused = await scan(t, courier, waybill, { event: "delivery_attempted" }, 409);
    assert.equal(refused.code, "scan_out_of_order");
    assert.match(refused.message, /collected/);
    const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.body.data.status, "collected");
    assert.equal(r.body.data.attempts, 0);
    assert.equal(r.body.data.trail_total, 1);
    // The attempt once out for delivery is recorded, and scanned again it is the same attempt.
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
  }));

Deno.test("operations scans: returned on a shipment the courier never had is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const refused = await scan(t, courier, waybill, { event: "returned" }, 409);
    assert.equal(refused.code, "scan_out_of_order");
    await scan(t, courier, waybill, { event: "collected" });
    await scan(t, courier, waybill, { event: "returning" });
    await scan(t, courier, waybill, { event: "returned" });
  }));

Deno.test("operations scans: a parcel customs holds is not out for delivery, attempted or delivered", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    for (const event of ["collected", "departed_to_border", "presented_to_customs"]) {
      await scan(t, courier, waybill, { event });
    }
    await scan(t, courier, waybill, { event: "customs_hold", reason: "inspection" });
    for (const event of ["out_for_delivery", "delivery_attempted", "delivered"]) {
      const refused = await scan(t, courier, waybill, { event }, 409);
      assert.equal(refused.code, "held_by_customs", event);
      assert.match(refused.message, /held by customs/);
    }
    const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.body.data.status, "customs_hold");
    await grantScopes(t, courier, "customs:approve");
    await scan(t, courier, waybill, { event: "cleared" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
  }));

Deno.test("operations scans: a parcel whose booking crossing customs refused is not delivered", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = bookingCrossingIdOf(courier.business.id, waybill);
    await move(t, courier, id, { action: "refuse", reason: "prohibited goods" });
    await scan(t, courier, waybill, { event: "collected" });
    const refused = await scan(t, courier, waybill, { event: "delivered" }, 409);
    assert.equal(refused.code, "held_by_customs");
    assert.match(refused.message, new RegExp(`crossing ${id} is refused`));
  }));

Deno.test("operations scans: a customs outcome on a shipment with no crossing is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve", "customs:submit-documents");
    const waybill = await bookWaybill(t, client);
    await scan(t, courier, waybill, { event: "collected" });
    for (const event of ["cleared", "released", "documents_supplied"]) {
      const refused = await scan(t, courier, waybill, { event }, 409);
      assert.equal(refused.code, "scan_out_of_order", event);
      assert.match(refused.message, /no customs crossing/);
    }
    // A cross-border shipment has its crossing from booking: customs may clear it early.
    const abroad = await bookWaybill(t, client, CROSS_BORDER);
    await scan(t, courier, abroad, { event: "cleared" });
  }));

/** The runtime, where asking the shipment to record anything fails (a crash at that point). */
function runtimeCrashingAtRecord(t: TestEnv): ActorRuntime {
  return new Proxy(t.env.runtime, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "ask") return value.bind(target);
      return (...args: unknown[]) => {
        const [def, , , command] = args as [{ type: string }, string, string, { kind: string }];
        if (def.type === "shipment" && command.kind === "record") throw new Error("crash");
        return value.apply(target, args);
      };
    },
  });
}

Deno.test("operations scans: a hold customs records between the scan's check and its record keeps the parcel", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const tenant = courier.business.id;
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = bookingCrossingIdOf(tenant, waybill);
    await scan(t, courier, waybill, { event: "collected" });
    const hold = { action: "hold", reason: "x-ray", by: "customs" } as const;
    // The hold lands on the crossing between the scan's check and its record; the shipment
    // hears of it only later (its follow-up crashed and is retried after).
    const held = () => moveCrossing(runtimeCrashingAtRecord(t), tenant, id, hold).catch(() => {});
    const runtime = runtimeWithScanGap(t, held);
    const answer = await recordScan(runtime, tenant, waybill, { event: "delivered", by: "ops" })
      .then(() => "recorded", (e) => e instanceof Refused ? e.rejection.code : String(e));
    // spec: courier 3.4: a parcel customs holds is not delivered.
    assert.equal(answer, "held_by_customs");
    await moveCrossing(t.env.runtime, tenant, id, hold);
    const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.body.data.status, "customs_hold");
    // The crossing is left with nothing under way: released, the parcel goes out.
    await grantScopes(t, courier, "customs:approve");
    await move(t, courier, id, { action: "release", evidence: "release note 88" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
  }));

Deno.test("operations scans: a delivery scan that cannot read the runs the shipment boarded now is answered 503, never recorded past crossings it could not reserve", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    await scan(t, courier, waybill, { event: "collected" });
    // spec: courier 3.4: a crossing of a run's border stop may hold it; a busy read is no answer
    // that there is none.
    const runsRead = (type: string, command: unknown) =>
      type === "shipment_runs" && (command as { kind: string }).kind === "get";
    await whileFlaky(t.env, { fails: runsRead, times: 100, refuse: true }, async () => {
      const busy = await scan(t, courier, waybill, { event: "out_for_delivery" }, 503);
      assert.equal(busy.code, "actor_busy");
    });
    const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.body.data.status, "collected");
    await scan(t, courier, waybill, { event: "out_for_delivery" });
  }));

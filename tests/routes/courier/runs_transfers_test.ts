/**
 * Network runs handing shipments on (courier 2.10, 3.4): a transfer to an open run carries its
 * items on once, even after a crash; the old run and its driver let them go; departing puts what
 * the run delivers out for delivery; an arrival closes the linehaul of what it carried.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { networkRunActor } from "../../../actors/courier/network_run/mod.ts";
import { busyAsks, commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import { claimBack } from "../../../src/courier/flows/runs/planning.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { bookWaybill, newCourier, newDriver } from "../../helpers/courier.ts";
import {
  collectStop,
  deliverStops,
  deliveryRun,
  milestonesOf,
  newRun,
  post,
  ready,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("runs: a transfer needs an open run of the courier and items without an end state; the target carries them on, once, even after a crash between the two runs", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const from = await newRun(t, courier);
    const to = await newRun(t, courier);
    const [a, b] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    for (const waybill of [a, b]) {
      await post(t, courier, `/business/network-runs/${from}/stops`, {
        kind: "deliver",
        waybill,
      }, 201);
    }
    const stops = (await post(t, courier, `/business/network-runs/${from}/depart`, {})).data.stops;
    await post(t, courier, `/business/network-runs/${from}/stops/${stops[1].id}/deliver`, {
      received_by: "Neo",
    });
    const transfer = (body: Record<string, unknown>, status: number) =>
      post(t, courier, `/business/network-runs/${from}/transfer`, body, status);
    const nowhere = await transfer({ waybills: [a], to_run: "run_does_not_exist" }, 404);
    assert.match(nowhere.message, /to_run/);
    const stranger = await newCourier(t);
    const theirs = await t.call("POST", "/business/network-runs", {
      key: stranger.business.api_key,
      body: {
        facility_id: "X",
        kind: "linehaul",
        countries: ["BW"],
        capacity: { kg: 100, m3: 2, pieces: 10 },
      },
    });
    assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
    await transfer({ waybills: [a], to_run: theirs.body.data.id }, 404);
    const closed = await newRun(t, courier);
    await post(t, courier, `/business/network-runs/${closed}/close`, {});
    const shut = await transfer({ waybills: [a], to_run: closed }, 422);
    assert.deepEqual(shut.errors.map((e: { path: string }) => e.path), ["to_run"]);
    const delivered = await transfer({ waybills: [b], to_run: to }, 422);
    assert.equal(delivered.code, "not_transferable");
    assert.match(delivered.message, new RegExp(`${b}.*delivered`));
    const small = await newRun(t, courier, { capacity: { kg: 1, m3: 1, pieces: 10 } });
    const full = await transfer({ waybills: [a], to_run: small }, 422);
    assert.equal(full.code, "capacity_exceeded");
    const read = async (run: string) =>
      (await t.call("GET", `/business/network-runs/${run}`, { key: courier.business.api_key }))
        .body.data;
    assert.equal((await read(from)).items[0].state, "on_board", "nothing changed");
    assert.deepEqual((await read(small)).items, []);
    // The process dies after the target took the item, before this run marked it.
    const env = t.env as { runtime: ActorRuntime };
    const real = env.runtime;
    env.runtime = flakyRuntime(real, {
      // A change sent under a key travels in a `keyed` command.
      fails: (type, command) => {
        const c = command as { kind: string; change?: { kind: string } };
        return type === "network_run" && (c.change ?? c).kind === "transfer";
      },
    }).runtime;
    try {
      const crashed = await t.call("POST", `/business/network-runs/${from}/transfer`, {
        key: courier.business.api_key,
        body: { waybills: [a], to_run: to, idempotency_key: "t1" },
      });
      assert.equal(crashed.status, 500);
    } finally {
      env.runtime = real;
    }
    for (let i = 0; i < 2; i++) {
      const done = await transfer({ waybills: [a], to_run: to, idempotency_key: "t1" }, 200);
      assert.equal(done.data.items[0].state, "transferred");
    }
    // Without the key, the same transfer again changes nothing either.
    await transfer({ waybills: [a], to_run: to }, 200);
    const target = await read(to);
    assert.deepEqual(
      target.items.map((i: { waybill: string; state: string }) => [i.waybill, i.state]),
      [[a, "planned"]],
    );
    const ship = await t.call("GET", `/business/courier/operations/${a}`, {
      key: courier.business.api_key,
    });
    const scans = ship.body.data.trail.filter((e: { note: string | null }) =>
      e.note === `transferred to run ${to}`
    );
    assert.equal(scans.length, 1, JSON.stringify(ship.body.data.trail));
  }));

Deno.test("runs: a shipment transferred on is delivered by its new run, which then closes; the old run cannot deliver it; it may come back and go again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [from, to] = [await newRun(t, courier), await newRun(t, courier)];
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, from, [a]);
    const old = (await post(t, courier, `/business/network-runs/${from}/depart`, {})).data.stops[0];
    await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a],
      to_run: to,
    });
    // The old run's stop no longer delivers it: the new run carries it.
    const stale = await post(t, courier, `/business/network-runs/${from}/stops/${old.id}/deliver`, {
      received_by: "Neo",
    }, 409);
    assert.equal(stale.code, "item_ended");
    // The new run's deliver stop takes the item it carries (no second item), delivers, closes.
    const added = await post(t, courier, `/business/network-runs/${to}/stops`, {
      kind: "deliver",
      waybill: a,
    }, 201);
    assert.equal(added.data.items.length, 1);
    const stop = added.data.stops.at(-1).id;
    assert.equal(added.data.items[0].stop_id, stop);
    await post(t, courier, `/business/network-runs/${to}/depart`, {});
    await post(t, courier, `/business/network-runs/${to}/stops/${stop}/deliver`, {
      received_by: "Neo",
    });
    const closed = await post(t, courier, `/business/network-runs/${to}/close`, {});
    assert.equal(closed.data.status, "closed");

    // There and back and there again, without keys: each transfer moves it.
    const b = await bookWaybill(t, client);
    const [x, y] = [await newRun(t, courier), await newRun(t, courier)];
    await deliverStops(t, courier, x, [b]);
    await post(t, courier, `/business/network-runs/${x}/transfer`, { waybills: [b], to_run: y });
    await post(t, courier, `/business/network-runs/${y}/transfer`, { waybills: [b], to_run: x });
    await post(t, courier, `/business/network-runs/${x}/transfer`, { waybills: [b], to_run: y });
    const read = async (run: string) =>
      (await t.call("GET", `/business/network-runs/${run}`, { key: courier.business.api_key }))
        .body.data.items.map((i: { state: string }) => i.state);
    assert.deepEqual(await read(x), ["transferred", "transferred"]);
    assert.deepEqual(await read(y), ["transferred", "planned"]);
  }));

Deno.test("runs: a transfer whose item ended on its run after the target took it gives the item back", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [from, to] = [await newRun(t, courier), await newRun(t, courier)];
    const a = await bookWaybill(t, client);
    await deliverStops(t, courier, from, [a]);
    const stop =
      (await post(t, courier, `/business/network-runs/${from}/depart`, {})).data.stops[0];
    // A transfer stopped after the target took the item; the item was delivered meanwhile.
    const took = await t.env.runtime.ask(networkRunActor, courier.business.id, to, {
      kind: "transfer_in",
      from_run: from,
      items: [{ waybill: a, load: { grams: 2500, cm3: 6000, pieces: 1, cold_slots: 0 } }],
      by: "test",
    });
    assert.ok(took.ok, JSON.stringify(took));
    await post(t, courier, `/business/network-runs/${from}/stops/${stop.id}/deliver`, {
      received_by: "Neo",
    });
    // Sent again, the transfer is refused and the target gives back what it took.
    const again = await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a],
      to_run: to,
    }, 422);
    assert.equal(again.code, "not_transferable");
    const target = await t.call("GET", `/business/network-runs/${to}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(target.body.data.items, []);
    const close = await post(t, courier, `/business/network-runs/${to}/close`, {});
    assert.equal(close.data.status, "closed");
  }));

Deno.test("runs: after a transfer the old run's driver no longer reaches the shipment; an item with its end state cannot be reported", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [first, second] = [
      await newDriver(t, courier.business.id),
      await newDriver(t, courier.business.id),
    ];
    const capacity = { kg: 100, m3: 2, pieces: 10, cold_slots: 2 };
    const from = await newRun(t, courier, { driver_id: first.id, capacity });
    const to = await newRun(t, courier, { driver_id: second.id, capacity });
    const [a, b] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    const profile = await t.call("POST", `/business/shipments/${a}/lab/profile`, {
      key: courier.business.api_key,
      body: { sample_type: "blood", min_temp_c: 2, max_temp_c: 8, seal_id: "SEAL-1" },
    });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    for (const waybill of [a, b]) {
      await post(t, courier, `/business/network-runs/${from}/stops`, {
        kind: "deliver",
        waybill,
      }, 201);
    }
    const stops = (await post(t, courier, `/business/network-runs/${from}/depart`, {})).data.stops;
    const reading = (driver: { token: string }) =>
      t.call("POST", `/driver/shipments/${a}/lab/temperature`, {
        bearer: driver.token,
        body: {
          value: 5,
          unit: "C",
          source: "logger",
          device: "TL-9",
          time: "2026-11-02T07:00:00Z",
        },
      });
    assert.equal((await reading(first)).status, 201);
    assert.equal((await reading(second)).status, 404);
    await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [a],
      to_run: to,
    });
    assert.equal((await reading(first)).status, 404, "the old run's driver lost the shipment");
    assert.equal((await reading(second)).status, 201, "the new run's driver reaches it");
    const report = (waybill: string) =>
      t.call("POST", `/driver/network-runs/${from}/report`, {
        bearer: first.token,
        body: { waybill, condition: "missing", note: "gone" },
      });
    const transferred = await report(a);
    assert.equal(transferred.status, 422, JSON.stringify(transferred.body));
    assert.equal(transferred.body.code, "not_reportable");
    await post(t, courier, `/business/network-runs/${from}/stops/${stops[1].id}/deliver`, {
      received_by: "Neo",
    });
    const delivered = await report(b);
    assert.equal(delivered.status, 422);
    assert.match(delivered.body.message, new RegExp(`${b}.*delivered`));
    const ship = await t.call("GET", `/business/courier/operations/${a}`, {
      key: courier.business.api_key,
    });
    assert.notEqual(ship.body.data.status, "lost_or_damaged");
    assert.notEqual(ship.body.data.health, "exception");
  }));

Deno.test("runs: a shipment unloaded at a hub and transferred onto a run under way leaves the hub's dwell for linehaul", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [first, next] = [await newRun(t, courier), await newRun(t, courier)];
    const collect = await collectStop(t, courier, first, client, { kg: 5, pieces: 2 });
    const waybill = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${first}/stops/${collect}/collect`, { waybill });
    await post(t, courier, `/business/network-runs/${first}/depart`, {});
    await post(t, courier, `/business/network-runs/${first}/arrive`, {});
    await post(t, courier, `/business/network-runs/${first}/unload`, { facility_id: "FRA-HUB" });
    // spec: courier 3.2: received at the hub, the shipment owes the hub's dwell.
    assert.deepEqual(await milestonesOf(t, courier, waybill), ["depot_dwell", "promise"]);
    // The next leg is already on the road: the shipment is handed onto it at the hub.
    await post(t, courier, `/business/network-runs/${next}/depart`, {});
    const transfer = { waybills: [waybill], to_run: next, idempotency_key: "x1" };
    await post(t, courier, `/business/network-runs/${first}/transfer`, transfer);
    // spec: courier 3.2: depot_dwell closes when loaded, linehaul opens when its run departed: no
    // dwell left open to go overdue while the shipment travels.
    assert.deepEqual(await milestonesOf(t, courier, waybill), ["linehaul", "promise"]);
    // The transfer sent again (lost signal) moves it no second time.
    await post(t, courier, `/business/network-runs/${first}/transfer`, transfer);
    await post(t, courier, `/business/network-runs/${first}/transfer`, {
      ...transfer,
      idempotency_key: undefined,
    });
    const trail = await trailOf(t, courier, waybill);
    assert.equal(trail.filter((e) => e === "departed").length, 2, trail.join(", "));
    await post(t, courier, `/business/network-runs/${next}/arrive`, {});
    await post(t, courier, `/business/network-runs/${next}/unload`, { facility_id: "JNB-HUB" });
    assert.deepEqual(await milestonesOf(t, courier, waybill), ["depot_dwell", "promise"]);
  }));

Deno.test("runs: a deliver stop whose shipment was transferred to another run cannot record a failed attempt on it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [from, to] = [await newRun(t, courier), await newRun(t, courier)];
    const driver = await newDriver(t, courier.business.id);
    await post(t, courier, `/business/network-runs/${from}/driver`, { driver_id: driver.id });
    const waybill = await bookWaybill(t, client);
    await deliverStops(t, courier, from, [waybill]);
    const old = (await post(t, courier, `/business/network-runs/${from}/depart`, {})).data.stops[0];
    await post(t, courier, `/business/network-runs/${from}/transfer`, {
      waybills: [waybill],
      to_run: to,
    });
    // The old run's driver, who no longer carries it, and operations alike.
    const asDriver = await t.call("POST", `/driver/network-runs/${from}/stops/${old.id}/fail`, {
      headers: { Authorization: `Bearer ${driver.token}` },
      body: { reason: "nobody home" },
    });
    assert.equal(asDriver.status, 409, JSON.stringify(asDriver.body));
    assert.equal(asDriver.body.code, "item_ended");
    const refused = await post(t, courier, `/business/network-runs/${from}/stops/${old.id}/fail`, {
      reason: "nobody home",
    }, 409);
    assert.equal(refused.code, "item_ended");
    assert.match(refused.message, new RegExp(waybill));
    const run = (await t.call("GET", `/business/network-runs/${from}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(run.stops[0].status, "pending");
    // spec: courier 3.2: no attempt was made, so no redelivery is owed (nor charged, 2.6).
    assert.deepEqual(await trailOf(t, courier, waybill), ["out_for_delivery", "scan"]);
    assert.deepEqual(await milestonesOf(t, courier, waybill), ["delivery_attempt", "promise"]);
  }));

Deno.test("runs: departing puts the shipments the run delivers out for delivery; what it only carries departs on linehaul", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybills } = await deliveryRun(t, courier, client, 2);
    const [a, b] = waybills as [string, string];
    // A shipment collected before the run leaves rides on to the depot: a trunk leg.
    const collect = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const picked = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops/${collect}/collect`, {
      waybill: picked,
    });
    const stops = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data.stops;
    // A deliver stop added to the run under way goes out for delivery with it.
    const late = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [late]);
    // The departure sent again (lost signal) moves nothing again.
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const read = async (waybill: string) =>
      (await t.call("GET", `/business/courier/operations/${waybill}`, {
        key: courier.business.api_key,
      })).body.data;
    for (const waybill of [a, b, late]) {
      assert.equal((await read(waybill)).status, "out_for_delivery", waybill);
      assert.deepEqual(await trailOf(t, courier, waybill), ["out_for_delivery"], waybill);
      // spec: courier 3.2: delivery_attempt opens on out for delivery; linehaul is not this leg.
      assert.deepEqual(await milestonesOf(t, courier, waybill), ["delivery_attempt", "promise"]);
    }
    assert.equal((await read(picked)).status, "in_transit");
    assert.deepEqual(await trailOf(t, courier, picked), ["collected", "departed"]);
    assert.deepEqual(await milestonesOf(t, courier, picked), ["linehaul", "promise"]);
    // A failed attempt waits on the recipient alone: no linehaul beside the redelivery.
    await post(t, courier, `/business/network-runs/${run}/stops/${stops[1].id}/fail`, {
      reason: "nobody home",
    });
    assert.equal((await read(b)).status, "awaiting_redelivery");
    assert.deepEqual(await milestonesOf(t, courier, b), ["promise", "redelivery"]);
    assert.equal((await read(b)).health, "waiting_customer");
  }));

Deno.test("runs: a run's arrival closes the linehaul of what it carried, once; what it delivers keeps its attempt", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill: delivered } = await deliveryRun(t, courier, client);
    const collect = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const carried = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops/${collect}/collect`, {
      waybill: carried,
    });
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    assert.deepEqual(await milestonesOf(t, courier, carried), ["linehaul", "promise"]);
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    // spec: courier 3.2: linehaul closes when arrived (or received); nothing is left open to go
    // overdue before the unload.
    assert.deepEqual(await milestonesOf(t, courier, carried), ["promise"]);
    assert.deepEqual(await milestonesOf(t, courier, delivered), ["delivery_attempt", "promise"]);
    // The arrival sent again moves nothing again.
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.deepEqual(await trailOf(t, courier, carried), ["collected", "departed", "arrived"]);
    await post(t, courier, `/business/network-runs/${run}/unload`, { waybills: [carried] });
    assert.deepEqual(await milestonesOf(t, courier, carried), ["depot_dwell", "promise"]);
  }));

Deno.test("runs: a refused transfer's claim is not moved back on a busy read (the target run, the shipment's claim) nor lost on a busy ask: thrown, then moved once", () =>
  withTestEnv(async (t) => {
    const [tenant, waybill] = ["biz_claims", "WB0000000001"];
    const at = { from: "run_from", to: "run_to", waybill };
    const planned = await t.env.runtime.ask(shipmentRunsActor, tenant, waybill, {
      kind: "plan",
      run_id: at.to,
    });
    assert.ok(planned.ok);
    const claimOn = async () => {
      const r = await t.env.runtime.read(shipmentRunsActor, tenant, waybill, { kind: "get" });
      return r.ok ? r.reply.planned_on?.run_id : null;
    };
    // spec: courier 3.4: a target run not readable now may have the shipment open: not known
    // to have nothing, so the claim stays where it is and the caller is told "not now".
    for (const type of [networkRunActor.type, shipmentRunsActor.type]) {
      const busy = flakyRuntime(t.env.runtime, { fails: commandKind("get", type), refuse: true });
      await assert.rejects(claimBack(busy.runtime, tenant, at), type);
      assert.equal(await claimOn(), at.to, type);
    }
    busyAsks(t.env.runtime, commandKind("plan", shipmentRunsActor.type), 1);
    await assert.rejects(claimBack(t.env.runtime, tenant, at));
    assert.equal(await claimOn(), at.to);
    await claimBack(t.env.runtime, tenant, at);
    assert.equal(await claimOn(), at.from);
  }));

/**
 * Network runs across borders and with samples (courier 2.10, 2.11, 4.5): a border stop presents
 * to customs, exit before entry; only customs:approve clears; lab readings and cold slots; pieces
 * labelled apart; a shipment delivered past a border goes out once customs cleared it.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { networkRunActor, TRIP_ENDED_GRACE_MS } from "../../../actors/courier/network_run/mod.ts";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import { bookWaybill, newClient, newCourier, newDriver, topUp } from "../../helpers/courier.ts";
import {
  checkpointStop,
  collectStop,
  deliverStops,
  ledger,
  milestonesOf,
  newRun,
  post,
  ready,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("runs: a border stop presents to customs, exit before entry; leg alerts are raised", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const patched = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer", "runs:override", "customs:approve"] },
    });
    assert.equal(patched.status, 200);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const waybill = await bookWaybill(t, client, { to_country: "ZA" });
    await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "checkpoint",
      country: "BW",
      to_country: "ZA",
      border_post: "Tlokweng",
    }, 201);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill,
    }, 201);
    const [checkpoint] = added.data.stops.map((s: { id: string }) => s.id);
    const alerts = async (kind: string) => {
      await t.settle();
      const r = await t.call("GET", `/business/courier/alerts?kind=${kind}`, {
        key: courier.business.api_key,
      });
      return r.body.data as { waybill: string | null }[];
    };
    assert.equal((await alerts("leg_unassigned")).length, 1, "stops and no driver");
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const presented = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${checkpoint}/border`,
      { idempotency_key: "b1" },
    );
    const stop = presented.data.stop;
    assert.equal(stop.status, "presented");
    assert.equal(stop.crossings.length, 1);
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    assert.equal(customs.status, 200, JSON.stringify(customs.body));
    const entry = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${checkpoint}/cross`,
      { side: "entry" },
      422,
    );
    assert.equal(entry.code, "exit_before_entry");
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/cross`, {
      side: "exit",
    });
    const entered = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${checkpoint}/cross`,
      {
        side: "entry",
      },
    );
    assert.equal(entered.data.stop.status, "cleared");
    assert.equal(entered.data.stop.entry_at, new Date(t.clock.now()).toISOString());
    assert.equal(typeof entered.data.run.capacity.kg, "number");
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "customs_processing");
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.deepEqual(await alerts("leg_trip_ended"), [], "the unload follows the arrival");
    // spec: courier 2.9: still on board the grace after the arrival, nothing told it where it is.
    await advance(t, TRIP_ENDED_GRACE_MS / 1000);
    const ended = await alerts("leg_trip_ended");
    assert.deepEqual(ended.map((a) => a.waybill), [waybill]);
  }));

Deno.test("runs: the driver presents at the border; only customs:approve clears the vehicle or refuses it with a reason", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const driver = await newDriver(t, courier.business.id);
    const run = await newRun(t, courier, { countries: ["BW", "ZA"], driver_id: driver.id });
    const waybill = await bookWaybill(t, client, { to_country: "ZA" });
    const stops: string[] = [];
    for (const border_post of ["Tlokweng", "Kopfontein"]) {
      const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
        kind: "checkpoint",
        country: "BW",
        to_country: "ZA",
        border_post,
      }, 201);
      stops.push(added.data.stops.at(-1).id);
    }
    await post(
      t,
      courier,
      `/business/network-runs/${run}/stops`,
      { kind: "deliver", waybill },
      201,
    );
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const asDriver = (stop: string, action: string, body: Record<string, unknown>) =>
      t.call("POST", `/driver/network-runs/${run}/stops/${stop}/${action}`, {
        bearer: driver.token,
        body,
      });
    const presented = await asDriver(stops[0]!, "border", {});
    assert.equal(presented.status, 200, JSON.stringify(presented.body));
    assert.equal(presented.body.data.stop.status, "presented");
    // spec: courier 3.4, 5: clearing or refusing the vehicle is customs:approve's, not the driver's
    // nor a key without it.
    for (const [action, body] of [["cross", { side: "exit" }], ["fail", { reason: "no papers" }]]) {
      const r = await asDriver(stops[0]!, action as string, body as Record<string, unknown>);
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.code, "scope_denied");
      assert.match(r.body.message, /customs:approve/);
      const k = await t.call("POST", `/business/network-runs/${run}/stops/${stops[0]}/${action}`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(k.status, 403, JSON.stringify(k.body));
    }
    await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: ["runs:override", "customs:approve"] },
    });
    await post(t, courier, `/business/network-runs/${run}/stops/${stops[0]}/cross`, {
      side: "exit",
    });
    const cleared = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${stops[0]}/cross`,
      {
        side: "entry",
      },
    );
    assert.equal(cleared.data.stop.status, "cleared");
    // A cleared border stop stays cleared.
    const late = await post(t, courier, `/business/network-runs/${run}/stops/${stops[0]}/fail`, {
      reason: "second thoughts",
    }, 409);
    assert.equal(late.code, "stop_already_done");
    // The other post turns the vehicle back: refused, with its reason; a refusal needs one.
    await asDriver(stops[1]!, "border", {});
    await post(t, courier, `/business/network-runs/${run}/stops/${stops[1]}/fail`, {}, 422);
    const refused = await post(t, courier, `/business/network-runs/${run}/stops/${stops[1]}/fail`, {
      reason: "vehicle papers expired",
    });
    assert.equal(refused.data.stop.status, "refused");
    assert.match(refused.data.history.at(-1).detail, /vehicle papers expired/);
  }));

Deno.test("runs: the run's driver records lab readings; an out-of-range one blocks the handover", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const driver = await newDriver(t, courier.business.id);
    // A cold slot for the sample the profile below makes cold chain.
    const run = await newRun(t, courier, {
      driver_id: driver.id,
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
    });
    const waybill = await bookWaybill(t, client);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill,
    }, 201);
    const stop = added.data.stops[0].id;
    const profile = await t.call("POST", `/business/shipments/${waybill}/lab/profile`, {
      key: courier.business.api_key,
      body: { sample_type: "blood", min_temp_c: 2, max_temp_c: 8, seal_id: "SEAL-1" },
    });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    const reading = await t.call("POST", `/driver/shipments/${waybill}/lab/temperature`, {
      bearer: driver.token,
      body: {
        value: 12,
        unit: "C",
        source: "logger",
        device: "TL-9",
        time: "2026-11-02T08:00:00Z",
      },
    });
    assert.equal(reading.status, 201, JSON.stringify(reading.body));
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const blocked = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
      lab_handover: true,
    }, 422);
    assert.equal(blocked.code, "lab_handover_blocked");
    assert.match(blocked.message, /temperature_out_of_range/);
    // Leaving the flag out delivers it no more: the block is the sample's, not the request's.
    const unflagged = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${stop}/deliver`,
      {
        received_by: "Lab reception",
      },
      422,
    );
    assert.equal(unflagged.code, "lab_handover_blocked");
    const still = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.notEqual(still.body.data.status, "delivered");
    const approved = await t.call("POST", `/business/shipments/${waybill}/lab/approve`, {
      key: courier.business.api_key,
      body: { decision: "accept", note: "lab accepted the sample after review" },
    });
    assert.ok(approved.status < 300, JSON.stringify(approved.body));
    const handed = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
      lab_handover: true,
    });
    assert.equal(handed.data.items[0].state, "lab_handover");
  }));

Deno.test("runs: a cold-chain laboratory sample takes a cold slot per piece; a run without one refuses it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client);
    const profile = await t.call("POST", `/business/shipments/${waybill}/lab/profile`, {
      key: courier.business.api_key,
      body: { sample_type: "blood", min_temp_c: 2, max_temp_c: 8, seal_id: "SEAL-2" },
    });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    const warm = await newRun(t, courier);
    const refused = await post(t, courier, `/business/network-runs/${warm}/stops`, {
      kind: "deliver",
      waybill,
    }, 422);
    assert.equal(refused.code, "capacity_exceeded");
    assert.match(refused.message, /cold_slots/);
    const cold = await newRun(t, courier, {
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 2 },
    });
    const added = await post(t, courier, `/business/network-runs/${cold}/stops`, {
      kind: "deliver",
      waybill,
    }, 201);
    assert.equal(added.data.items[0].load.cold_slots, 1);
  }));

Deno.test("runs: a cold-chain profile set after the shipment boarded takes its cold slots there, or is refused where the run has none", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
    const labProfile = (waybill: string, cold: boolean, status = 200) =>
      t.call("POST", `/business/shipments/${waybill}/lab/profile`, {
        key: courier.business.api_key,
        body: cold
          ? { sample_type: "blood", min_temp_c: 2, max_temp_c: 8 }
          : { sample_type: "blood" },
      }).then((r) => {
        assert.equal(r.status, status, JSON.stringify(r.body));
        return r.body;
      });
    const coldSlots = async (run: string) =>
      (await t.call("GET", `/business/network-runs/${run}`, { key: courier.business.api_key }))
        .body.data.items.map((i: { load: { cold_slots: number } }) => i.load.cold_slots);
    // A run with no cold slot refuses the profile, and nothing changes: no sample, no charge.
    const warm = await newRun(t, courier);
    const first = await bookWaybill(t, client, { parcels: [parcel, parcel] });
    await deliverStops(t, courier, warm, [first]);
    const refused = await labProfile(first, true, 422);
    assert.equal(refused.code, "capacity_exceeded");
    assert.equal(refused.run_id, warm);
    assert.match(refused.message, /cold slots/);
    const sample = await t.call("GET", `/business/shipments/${first}/lab`, {
      key: courier.business.api_key,
    });
    assert.equal(sample.status, 404, JSON.stringify(sample.body));
    assert.deepEqual(await coldSlots(warm), [0]);
    assert.equal(
      (await ledger(t, courier, client)).filter((e) => e.kind === "cold_chain").length,
      0,
    );
    // A run with room counts a slot per piece; a profile without a range gives them back.
    const cold = await newRun(t, courier, {
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 2 },
    });
    const second = await bookWaybill(t, client, { parcels: [parcel, parcel] });
    await deliverStops(t, courier, cold, [second]);
    await labProfile(second, true);
    assert.deepEqual(await coldSlots(cold), [2]);
    await labProfile(second, false);
    assert.deepEqual(await coldSlots(cold), [0]);
    await labProfile(second, true);
    assert.deepEqual(await coldSlots(cold), [2]);
    // Carried on by a run without cold slots: refused there too.
    const on = await post(t, courier, `/business/network-runs/${cold}/transfer`, {
      waybills: [second],
      to_run: warm,
    }, 422);
    assert.equal(on.code, "capacity_exceeded");
    // A boarding under way when the profile came (its load read before it): the run was told,
    // so the stale load is counted cold all the same.
    const late = await newRun(t, courier);
    const third = await bookWaybill(t, client);
    const tenant = courier.business.id;
    await t.env.runtime.ask(shipmentRunsActor, tenant, third, { kind: "board", run_id: late });
    await labProfile(third, true);
    const stale = await t.env.runtime.ask(networkRunActor, tenant, late, {
      kind: "add_stop",
      stop: {
        id: "stop_stale",
        kind: "deliver",
        waybill: third,
        work_order: null,
        country: null,
        to_country: null,
        border_post: null,
        load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
      },
      by: "test",
    });
    assert.equal(stale.ok, false);
    assert.equal(!stale.ok && stale.code, "capacity_exceeded");
  }));

Deno.test("runs: a collect labelled with some pieces moves only those; pieces apart raise pieces_separated", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const driver = await newDriver(t, courier.business.id);
    const run = await newRun(t, courier, { driver_id: driver.id });
    const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
    const waybill = await bookWaybill(t, client, { parcels: [parcel, parcel] });
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${stop}/collect`,
      {
        waybill,
        labels: [`${waybill}-1`],
      },
    );
    // The second piece reaches the hub some other way.
    const scanned = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
      key: courier.business.api_key,
      body: { event: "received_at_depot", facility_id: "GBE-HUB", pieces: [`${waybill}-2`] },
    });
    assert.ok(scanned.status < 300, JSON.stringify(scanned.body));
    const detail = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    const holders = detail.body.data.pieces.map((p: { holder: string | null }) => p.holder);
    assert.equal(holders[0], `driver:${driver.id}`);
    assert.notEqual(holders[1], `driver:${driver.id}`);
    await until(t, async () => {
      await t.settle();
      const r = await t.call("GET", "/business/courier/alerts?kind=pieces_separated", {
        key: courier.business.api_key,
      });
      return r.body.data.some((a: { waybill: string }) => a.waybill === waybill);
    }, "pieces_separated raised");
  }));

Deno.test("runs: an item is reported customs_hold only when customs holds its crossing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const domestic = await bookWaybill(t, client);
    const abroad = await bookWaybill(t, client, { to_country: "ZA" });
    for (const waybill of [domestic, abroad]) {
      await post(t, courier, `/business/network-runs/${run}/stops`, {
        kind: "deliver",
        waybill,
      }, 201);
    }
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const report = (waybill: string, status: number) =>
      post(t, courier, `/business/network-runs/${run}/report`, {
        waybill,
        condition: "customs_hold",
        note: "held",
      }, status);
    const refused = await report(domestic, 422);
    assert.deepEqual(refused.errors.map((e: { path: string }) => e.path), ["condition"]);
    await report(abroad, 422); // its crossing is open, not held
    const customs = await t.call("GET", `/business/shipments/${abroad}/customs`, {
      key: courier.business.api_key,
    });
    const crossing = customs.body.data.crossings[0].id;
    await post(t, courier, `/business/customs/${crossing}/move`, {
      action: "hold",
      reason: "inspection",
    });
    const held = await report(abroad, 200);
    const items = held.data.items.map((i: { waybill: string; state: string }) => [
      i.waybill,
      i.state,
    ]);
    assert.deepEqual(items, [[domestic, "on_board"], [abroad, "customs_hold"]]);
  }));

Deno.test("runs: a shipment the run delivers past a border goes out for delivery once it has entered and customs cleared it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const patched = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer", "runs:override", "customs:approve"] },
    });
    assert.equal(patched.status, 200);
    const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
    // a: cleared before the vehicle enters; b: entered first, cleared afterwards.
    const a = await bookWaybill(t, client, { to_country: "ZA" });
    const b = await bookWaybill(t, client, { to_country: "ZA" });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [a, b]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const crossings = (await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${checkpoint}/border`,
      {},
    )).data.stop.crossings as string[];
    const crossingOf = async (waybill: string) => {
      const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const found = crossings.find((x) => JSON.stringify(r.body.data).includes(x));
      assert.ok(found, JSON.stringify(r.body.data));
      return found;
    };
    const clear = async (waybill: string) =>
      await post(t, courier, `/business/customs/${await crossingOf(waybill)}/move`, {
        action: "clear",
        customs_reference: `SARS-${waybill}`,
      });
    await clear(a);
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/cross`, {
      side: "exit",
    });
    // spec: courier 3.2: delivery_attempt opens when the shipment goes out for delivery; on a
    // delivery run that is once it is across the border and released by customs.
    assert.deepEqual(await milestonesOf(t, courier, b), ["customs_clearance", "promise"]);
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/cross`, {
      side: "entry",
    });
    assert.equal((await trailOf(t, courier, a)).at(-1), "out_for_delivery");
    assert.ok(!(await trailOf(t, courier, b)).includes("out_for_delivery"), "b awaits customs");
    await clear(b);
    // Sent again (lost signal): each goes out once.
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/cross`, {
      side: "entry",
    });
    await clear(b);
    for (const waybill of [a, b]) {
      const trail = await trailOf(t, courier, waybill);
      assert.equal(trail.filter((e) => e === "out_for_delivery").length, 1, trail.join());
      assert.equal(trail.at(-1), "out_for_delivery", trail.join());
      assert.deepEqual(await milestonesOf(t, courier, waybill), ["delivery_attempt", "promise"]);
    }
  }));

/**
 * Network run actions sent again (courier 4.5): an idempotency_key with another request is
 * refused; a replay answers the first answer; departures, arrivals, deliveries and stops that a
 * crash cut short are completed by their retries, each shipment moved once.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { forgetStopAnswers } from "../../../src/courier/flows/runs/mod.ts";
import { flakyRuntime, whileFlaky } from "../../helpers/faults.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { TRIP_ENDED_GRACE_MS } from "../../../actors/courier/network_run/mod.ts";
import { advance } from "../../helpers/receiver.ts";
import { bookWaybill, newClient, newDriver, topUp } from "../../helpers/courier.ts";
import {
  collectStop,
  deliverStops,
  deliveryRun,
  ledger,
  newRun,
  post,
  ready,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("runs: an idempotency_key sent again with another request is refused 409 and changes nothing, through the business or the driver path", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "2000");
    const driver = await newDriver(t, courier.business.id);
    const run = await newRun(t, courier, { driver_id: driver.id });
    const mine = await bookWaybill(t, client);
    const theirs = await bookWaybill(t, other);
    const spare = await bookWaybill(t, client);
    // Collected below: not one of the run's deliveries, which are on it already.
    const picked = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [mine, theirs]);
    const checkpoint = {
      kind: "checkpoint",
      country: "BW",
      to_country: "BW",
      border_post: "Tlokweng",
    };
    const collect = {
      kind: "collect",
      work_order: {
        sender: "Molapo Pharmacy",
        recipient: "Gaborone hub",
        courier_client_id: client.id,
        reserved: { kg: 10, m3: 0.1, pieces: 4 },
      },
    };
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      ...checkpoint,
      idempotency_key: "s1",
    }, 201);
    // The same key naming another stop is another request: refused, no stop added in silence.
    const stopAgain = await t.call("POST", `/business/network-runs/${run}/stops`, {
      key: courier.business.api_key,
      body: { ...collect, idempotency_key: "s1" },
    });
    assert.equal(stopAgain.status, 409, JSON.stringify(stopAgain.body));
    assert.equal(stopAgain.body.code, "idempotency_key_reused");
    const [deliverStop, , border] = added.data.stops.map((s: { id: string }) => s.id);
    const collectStop =
      (await post(t, courier, `/business/network-runs/${run}/stops`, collect, 201))
        .data.stops.at(-1).id;

    // spec: courier 6.1 `run.waiting:{stop}`: one wait per stop. The key of the wait at one stop
    // sent for another stop is not a replay: it neither charges that stop's wait nor leaves it
    // open to a second client's charge.
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: deliverStop,
      minutes: 30,
      idempotency_key: "w1",
    });
    const reused = await t.call("POST", `/business/network-runs/${run}/waiting`, {
      key: courier.business.api_key,
      body: { stop_id: border, minutes: 30, waybill: theirs, idempotency_key: "w1" },
    });
    assert.equal(reused.status, 409, JSON.stringify(reused.body));
    assert.equal(reused.body.code, "idempotency_key_reused");
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: border,
      minutes: 30,
      waybill: mine,
      idempotency_key: "w2",
    });
    const waits = [
      ...(await ledger(t, courier, client)),
      ...(await ledger(t, courier, other)),
    ].filter((e) => e.kind === "waiting").map((e) => `${e.source_event} ${e.shipment}`).sort();
    assert.deepEqual(
      waits,
      [`run.waiting:${border} ${mine}`, `run.waiting:${deliverStop} ${mine}`].sort(),
    );

    // spec: courier 4.5: a replay answers the first; another shipment collected under the key
    // is refused by the driver's path too, and is neither collected nor charged.
    const collected = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${collectStop}/collect`,
      {
        waybill: picked,
        idempotency_key: "c1",
      },
    );
    const driverCollect = (body: unknown) =>
      t.call("POST", `/driver/network-runs/${run}/stops/${collectStop}/collect`, {
        bearer: driver.token,
        body,
      });
    const replay = await driverCollect({ waybill: picked, idempotency_key: "c1" });
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    const labelled = (stop: { collected: { waybill: string; labels: string[] }[] }) =>
      stop.collected.map((x) => `${x.waybill} ${x.labels}`);
    assert.deepEqual(labelled(replay.body.data.stop), labelled(collected.data.stop));
    const swapped = await driverCollect({ waybill: spare, idempotency_key: "c1" });
    assert.equal(swapped.status, 409, JSON.stringify(swapped.body));
    assert.equal(swapped.body.code, "idempotency_key_reused");
    const errands = (await ledger(t, courier, client)).filter((e) => e.kind === "errand");
    assert.deepEqual(errands.map((e) => e.shipment), [picked]);
    const ship = await t.call("GET", `/business/courier/operations/${spare}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "booked");
  }));

Deno.test("runs: a shipment added to a run already under way departs with it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { vehicle: "B 777 GBE" });
    const first = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill: first,
    }, 201);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const late = await bookWaybill(t, client);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill: late,
    }, 201);
    assert.equal(added.data.items.at(-1).state, "on_board");
    const read = async (waybill: string) =>
      (await t.call("GET", `/business/courier/operations/${waybill}`, {
        key: courier.business.api_key,
      })).body.data;
    const [a, b] = [await read(first), await read(late)];
    assert.equal(b.status, a.status, "as the shipment on board at departure");
    assert.deepEqual(b.custody, a.custody);
    // Its own deliver stop is on the run: out for delivery (courier 3.2).
    assert.equal(b.status, "out_for_delivery");
    assert.ok(
      b.obligations.some((o: { milestone: string }) => o.milestone === "delivery_attempt"),
    );
  }));

Deno.test("runs: a stop added to a run under way whose boarding move was lost is finished by a retry under the same key, once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { vehicle: "B 778 GBE" });
    const first = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill: first,
    }, 201);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const late = await bookWaybill(t, client);
    const body = { kind: "deliver", waybill: late, idempotency_key: "late-1" };
    // The process dies after the run took the stop, before the shipment was moved.
    const env = t.env as { runtime: ActorRuntime };
    const real = env.runtime;
    env.runtime = flakyRuntime(real, {
      fails: (type, command) =>
        type === "shipment" && (command as { kind: string }).kind === "record",
    }).runtime;
    try {
      const crashed = await t.call("POST", `/business/network-runs/${run}/stops`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(crashed.status, 500);
    } finally {
      env.runtime = real;
    }
    const read = async (waybill: string) =>
      (await t.call("GET", `/business/courier/operations/${waybill}`, {
        key: courier.business.api_key,
      })).body.data;
    assert.equal((await read(late)).status, "booked", "the move was lost");
    for (let i = 0; i < 2; i++) {
      const again = await post(t, courier, `/business/network-runs/${run}/stops`, body, 201);
      assert.equal(again.data.stops.length, 2, "one stop, however often retried");
    }
    const [a, b] = [await read(first), await read(late)];
    assert.equal(b.status, a.status, "out for delivery, as the shipment on board at departure");
    assert.deepEqual(b.custody, a.custody);
    const departures = b.trail.filter((e: { event: string }) => e.event === "out_for_delivery");
    assert.equal(departures.length, 1, JSON.stringify(b.trail));
  }));

Deno.test("runs: a stop action replayed with its idempotency_key answers the first answer, after later changes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const driver = await newDriver(t, courier.business.id);
    const run = await newRun(t, courier, { driver_id: driver.id });
    const a = await bookWaybill(t, client);
    const b = await bookWaybill(t, client);
    for (const waybill of [a, b]) {
      await post(t, courier, `/business/network-runs/${run}/stops`, {
        kind: "deliver",
        waybill,
      }, 201);
    }
    const [sa, sb] = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops.map((s: { id: string }) => s.id);
    const deliver = { idempotency_key: "d1", received_by: "Neo" };
    const first = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${sa}/deliver`,
      deliver,
    );
    assert.equal(first.data.run.stops_open, 1);
    const asDriver = (path: string, body: unknown) =>
      t.call("POST", path, { bearer: driver.token, body });
    const firstDriver = await asDriver(`/driver/network-runs/${run}/stops/${sb}/fail`, {
      idempotency_key: "f1",
      reason: "closed",
    });
    assert.equal(firstDriver.status, 200, JSON.stringify(firstDriver.body));
    // Later changes: the other stop is delivered after all, and the run arrives.
    await post(t, courier, `/business/network-runs/${run}/stops/${sb}/deliver`, {
      received_by: "Neo",
    });
    const again = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${sa}/deliver`,
      deliver,
    );
    assert.deepEqual(again, first);
    assert.equal(again.data.items[0].state, "delivered");
    const againDriver = await asDriver(`/driver/network-runs/${run}/stops/${sb}/fail`, {
      idempotency_key: "f1",
      reason: "closed",
    });
    assert.deepEqual(againDriver.body, firstDriver.body);
    assert.equal(againDriver.body.data.stop.status, "failed");
    // After a restart (nothing in memory) the answers are rebuilt from the run's log: the same.
    forgetStopAnswers(t.env.runtime);
    const rebuilt = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${sa}/deliver`,
      deliver,
    );
    assert.deepEqual(rebuilt, first);
    forgetStopAnswers(t.env.runtime);
    const rebuiltDriver = await asDriver(`/driver/network-runs/${run}/stops/${sb}/fail`, {
      idempotency_key: "f1",
      reason: "closed",
    });
    assert.deepEqual(rebuiltDriver.body, firstDriver.body);
  }));

Deno.test("runs: a delivery whose shipment move a crash lost is completed by its retry, also after the run closed", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id;
    const deliver = `/business/network-runs/${run}/stops/${stop}/deliver`;
    // The process dies after the run recorded the delivery, before the shipment heard of it.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "shipment" && (command as { kind: string }).kind === "record",
    }, async () => {
      await post(t, courier, deliver, { received_by: "Neo" }, 500);
    });
    // The run has every end state, so it closes before the delivery is sent again.
    await post(t, courier, `/business/network-runs/${run}/close`, {});
    for (let i = 0; i < 2; i++) {
      const again = await post(t, courier, deliver, { received_by: "Neo" });
      assert.equal(again.data.stop.status, "done");
    }
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "delivered", "the delivery was lost");
    assert.equal(
      ship.body.data.trail.filter((e: { event: string }) => e.event === "delivered").length,
      1,
    );
    // The closed run changes nothing else: another stop action is still refused.
    const other = await post(t, courier, `/business/network-runs/${run}/depart`, {}, 409);
    assert.equal(other.code, "run_closed");
  }));

Deno.test("runs: a failed delivery sent again under a new idempotency_key records one attempt", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id;
    // Lost signal, and the app retries with a fresh key: the stop failed once.
    for (const key of ["f-a", "f-b"]) {
      const r = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
        reason: "nobody home",
        idempotency_key: key,
      });
      assert.equal(r.data.stop.status, "failed");
    }
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      reason: "nobody home",
    });
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(
      ship.body.data.trail.filter((e: { event: string }) => e.event === "delivery_attempted")
        .length,
      1,
      JSON.stringify(ship.body.data.trail),
    );
  }));

Deno.test("runs: each shipment unloaded is received once, however the unloads are split or sent again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybills } = await deliveryRun(t, courier, client, 2);
    const [a, b] = waybills as [string, string];
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    await post(t, courier, `/business/network-runs/${run}/unload`, { waybills: [a] });
    await post(t, courier, `/business/network-runs/${run}/unload`, { waybills: [b] });
    // The last unload sent again (lost signal, no idempotency_key).
    await post(t, courier, `/business/network-runs/${run}/unload`, { waybills: [b] });
    for (const waybill of [a, b]) {
      const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
        key: courier.business.api_key,
      });
      const received = ship.body.data.trail.filter((e: { event: string }) =>
        e.event === "received_at_destination"
      );
      assert.equal(received.length, 1, `${waybill}: ${JSON.stringify(ship.body.data.trail)}`);
    }
  }));

Deno.test("runs: a departure a crash cut short is completed by its retry, moving each shipment once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybills } = await deliveryRun(t, courier, client, 2);
    const [a, b] = waybills as [string, string];
    // The process dies after the run departed and the first shipment moved, before the second.
    let records = 0;
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "shipment" && (command as { kind: string }).kind === "record" && ++records === 2,
    }, async () => {
      await post(t, courier, `/business/network-runs/${run}/depart`, {}, 500);
    });
    // Sent again without an idempotency_key, twice; then a shipment reported damaged, twice.
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    for (let i = 0; i < 2; i++) {
      await post(t, courier, `/business/network-runs/${run}/report`, {
        waybill: b,
        condition: "damaged",
        note: "box crushed",
      });
    }
    const trail = async (waybill: string) =>
      (await t.call("GET", `/business/courier/operations/${waybill}`, {
        key: courier.business.api_key,
      })).body.data.trail.map((e: { event: string }) => e.event);
    assert.deepEqual(await trail(a), ["out_for_delivery"]);
    assert.deepEqual(await trail(b), ["out_for_delivery", "exception"]);
  }));

Deno.test("runs: an arrival sent again arms no second look: leg_trip_ended is raised once, the grace after the first", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    await advance(t, TRIP_ENDED_GRACE_MS / 2000);
    // Sent again without an idempotency_key: the arrival recorded answers, its grace unmoved.
    const again = await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.equal(again.data.status, "arrived");
    const ended = async () => {
      await t.settle();
      const r = await t.call("GET", "/business/courier/alerts?kind=leg_trip_ended", {
        key: courier.business.api_key,
      });
      return r.body.data.map((a: { waybill: string }) => a.waybill);
    };
    assert.deepEqual(await ended(), []);
    await advance(t, TRIP_ENDED_GRACE_MS / 2000);
    assert.deepEqual(await ended(), [waybill]);
    await advance(t, TRIP_ENDED_GRACE_MS / 1000);
    assert.deepEqual(await ended(), [waybill]);
    // A run that has not departed still cannot arrive.
    const other = await newRun(t, courier);
    const refused = await post(t, courier, `/business/network-runs/${other}/arrive`, {}, 422);
    assert.equal(refused.code, "run_not_departed");
  }));

Deno.test("runs: a departure sent again never moves a shipment that boarded after it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill: first } = await deliveryRun(t, courier, client);
    const collect = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    // Boarding the run under way: a deliver stop added, a shipment collected.
    const late = await bookWaybill(t, client);
    await deliverStops(t, courier, run, [late]);
    const picked = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops/${collect}/collect`, {
      waybill: picked,
    });
    // The departure sent again without an idempotency_key (lost signal), twice.
    for (let i = 0; i < 2; i++) {
      const again = await post(t, courier, `/business/network-runs/${run}/depart`, {});
      assert.equal(again.data.status, "departed");
    }
    assert.deepEqual(await trailOf(t, courier, first), ["out_for_delivery"]);
    assert.deepEqual(await trailOf(t, courier, picked), ["collected"]);
    assert.deepEqual(await trailOf(t, courier, late), ["out_for_delivery"]);
  }));

Deno.test("runs: a departure or an arrival sent again after the run arrived or unloaded answers the run as it stands", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    // The departure sent again without an idempotency_key (lost signal, delivered late).
    const again = await post(t, courier, `/business/network-runs/${run}/depart`, {});
    assert.equal(again.data.status, "arrived");
    assert.deepEqual(await trailOf(t, courier, waybill), ["out_for_delivery"]);
    await post(t, courier, `/business/network-runs/${run}/unload`, {});
    const late = await post(t, courier, `/business/network-runs/${run}/depart`, {});
    assert.equal(late.data.status, "unloaded");
    // The driver's arrival sent again without an idempotency_key (lost signal, delivered late).
    const lateArrival = await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.equal(lateArrival.data.status, "unloaded");
    assert.deepEqual(await trailOf(t, courier, waybill), [
      "out_for_delivery",
      "received_at_destination",
    ]);
  }));

Deno.test("runs: a departure sent again after its record left the run's history moves no shipment again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const departed = await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const order = departed.data.stops.map((s: { id: string }) => s.id);
    // More changes after the departure than the run's history keeps.
    for (let i = 0; i < 21; i++) {
      await post(t, courier, `/business/network-runs/${run}/reorder`, { order });
    }
    const history = (await post(t, courier, `/business/network-runs/${run}/reorder`, { order }))
      .data.history.map((h: { action: string }) => h.action);
    assert.ok(!history.includes("depart"), JSON.stringify(history));
    for (let i = 0; i < 2; i++) await post(t, courier, `/business/network-runs/${run}/depart`, {});
    assert.deepEqual(await trailOf(t, courier, waybill), ["out_for_delivery"]);
  }));

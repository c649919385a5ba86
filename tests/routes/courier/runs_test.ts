/**
 * Network runs and stops (courier 2.10, 3.4, 4.5): capacity is never exceeded silently; a collect
 * sent again books once; collecting more than reserved needs runs:override and a reason; a run
 * closes only when every item has an end state; drivers reach only their own runs and never see
 * declared values; a waybill read in any case. Expenses and waiting: runs_expenses_test.ts.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { bookWaybill, courierWithScopes, newCourier, newDriver } from "../../helpers/courier.ts";
import { collectStop, deliverStops, ledger, newRun, post, ready } from "./runs_fixtures.ts";

Deno.test("runs: capacity is never exceeded silently; a run closes only with every end state", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { capacity: { kg: 6, m3: 1, pieces: 10 } });
    const a = await bookWaybill(t, client);
    const b = await bookWaybill(t, client);
    const c = await bookWaybill(t, client);
    const stop = async (waybill: string, status = 201) =>
      await post(
        t,
        courier,
        `/business/network-runs/${run}/stops`,
        { kind: "deliver", waybill },
        status,
      );
    await stop(a);
    await stop(b);
    const over = await stop(c, 422); // 3 x 2.5 kg > 6 kg
    assert.equal(over.code, "capacity_exceeded");
    const data = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data;
    const [sa, sb] = data.stops.map((s: { id: string }) => s.id);
    await post(t, courier, `/business/network-runs/${run}/stops/${sa}/deliver`, {
      received_by: "Neo",
    });
    const refused = await post(t, courier, `/business/network-runs/${run}/close`, {}, 422);
    assert.equal(refused.code, "items_without_end_state");
    assert.match(refused.message, new RegExp(b));
    // Damaged needs its exception (the report's note), then the run may close.
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill: b,
      condition: "damaged",
      note: "box crushed under a pallet",
    });
    const closed = await post(t, courier, `/business/network-runs/${run}/close`, {});
    assert.equal(closed.data.status, "closed");
    // The shipments moved through their own actors.
    const shipA = await t.call("GET", `/business/courier/operations/${a}`, {
      key: courier.business.api_key,
    });
    assert.equal(shipA.body.data.status, "delivered");
    const shipB = await t.call("GET", `/business/courier/operations/${b}`, {
      key: courier.business.api_key,
    });
    assert.equal(shipB.body.data.health, "exception");
    void sb;
  }));

Deno.test("runs: the same collect sent three times books one collection and one charge", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(
        await post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
          waybill,
          idempotency_key: "collect-1",
        }),
      );
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    const collected = answers[0]!.data.stop.collected;
    assert.equal(collected.length, 1);
    assert.deepEqual(collected[0].labels, [`${waybill}-1`]);
    const entries = await ledger(t, courier, client);
    const charges = entries.filter((e) => e.kind === "errand");
    assert.equal(charges.length, 1);
    assert.equal(Number(charges[0]!.amount_minor), 2000);
    // spec: courier 6.1 `run.collected:{stop}`: one errand per stop, named by the stop.
    assert.equal(charges[0]!.source_event, `run.collected:${stop}`);
    assert.equal(charges[0]!.reference, `COL-${stop}`);
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "collected");
    assert.equal(
      ship.body.data.trail.filter((e: { event: string }) => e.event === "collected").length,
      1,
    );
  }));

Deno.test("runs: collecting the same waybill again under a new idempotency_key moves custody once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const first = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
      waybill,
      idempotency_key: "collect-a",
    });
    // Lost signal, and the app retries with a fresh key: the stop already holds the waybill.
    const second = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
      waybill,
      idempotency_key: "collect-b",
    });
    assert.equal(second.data.stop.collected.length, 1);
    assert.deepEqual(second.data.stop.collected, first.data.stop.collected);
    await t.settle();
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(
      ship.body.data.trail.filter((e: { event: string }) => e.event === "collected").length,
      1,
      JSON.stringify(ship.body.data.trail),
    );
    const charges = (await ledger(t, courier, client)).filter((e) => e.kind === "errand");
    assert.equal(charges.length, 1);
  }));

Deno.test("runs: collecting more than reserved needs runs:override and a reason", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client); // 2.5 kg
    const stop = await collectStop(t, courier, run, client, { kg: 1, pieces: 1 });
    const over = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
      waybill,
    }, 422);
    assert.equal(over.code, "over_reserved");
    const weak = await courierWithScopes(t, []);
    void weak;
    const ok = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
      waybill,
      reason: "client handed over a heavier box; approved by the supervisor",
    });
    assert.equal(ok.data.stop.collected.length, 1);
    assert.match(ok.data.history.at(-1).detail, /over reserved/);
  }));

Deno.test("runs: a driver reaches only their runs and never sees declared values", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const mine = await newDriver(t, courier.business.id);
    const other = await newDriver(t, courier.business.id);
    const run = await newRun(t, courier, { driver_id: mine.id });
    const waybill = await bookWaybill(t, client, { declared_value: 4321 });
    await post(
      t,
      courier,
      `/business/network-runs/${run}/stops`,
      { kind: "deliver", waybill },
      201,
    );
    const asDriver = (token: string, method: string, path: string, body?: unknown) =>
      t.call(method, path, { bearer: token, ...(body ? { body } : {}) });
    const view = await asDriver(mine.token, "GET", `/driver/network-runs/${run}`);
    assert.equal(view.status, 200, JSON.stringify(view.body));
    const text = JSON.stringify(view.body);
    for (const forbidden of ["4321", "declared", "customs_value", "amount", "total"]) {
      assert.ok(!text.includes(forbidden), `driver view shows ${forbidden}`);
    }
    const stranger = await asDriver(other.token, "GET", `/driver/network-runs/${run}`);
    assert.equal(stranger.status, 404);
    const depart = await asDriver(other.token, "POST", `/driver/network-runs/${run}/depart`, {});
    assert.equal(depart.status, 404);
    const go = await asDriver(mine.token, "POST", `/driver/network-runs/${run}/depart`, {});
    assert.equal(go.status, 200, JSON.stringify(go.body));
    const stop = go.body.data.stops[0].id;
    const done = await asDriver(
      mine.token,
      "POST",
      `/driver/network-runs/${run}/stops/${stop}/deliver`,
      {
        idempotency_key: "k1",
        received_by: "Neo",
      },
    );
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data.items[0].state, "delivered");
    assert.equal(done.body.data.stop.id, stop);
    await t.settle();
    const list = await asDriver(mine.token, "GET", "/driver/network-runs");
    assert.deepEqual(list.body.data.map((r: { id: string }) => r.id), [run]);
    assert.deepEqual(list.body.data[0].items, { delivered: 1 });
    for (const answer of [done, go, list]) {
      const text = JSON.stringify(answer.body);
      for (const forbidden of ["4321", "declared", "customs_value", "amount", "total"]) {
        assert.ok(!text.includes(forbidden), `a driver's answer shows ${forbidden}`);
      }
    }
    const none = await asDriver(other.token, "GET", "/driver/network-runs");
    assert.deepEqual(none.body.data, []);
    // Another courier's key sees nothing of the run.
    const stranger2 = await newCourier(t);
    const hidden = await t.call("GET", `/business/network-runs/${run}`, {
      key: stranger2.business.api_key,
    });
    assert.equal(hidden.status, 404);
  }));

Deno.test("runs: a driver keeps a shipment on one run when another run of theirs carrying it is reassigned", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const mine = await newDriver(t, courier.business.id);
    const other = await newDriver(t, courier.business.id);
    const first = await newRun(t, courier, { driver_id: mine.id });
    const second = await newRun(t, courier, { driver_id: mine.id });
    const waybill = await bookWaybill(t, client);
    // The second run collects it and unloads it at the depot, then the first plans its delivery
    // (courier 3.4: one run carries a shipment out at a time).
    const collect = await collectStop(t, courier, second, client, { kg: 5, pieces: 2 });
    await post(t, courier, `/business/network-runs/${second}/stops/${collect}/collect`, {
      waybill,
    });
    for (const step of ["depart", "arrive", "unload"]) {
      await post(t, courier, `/business/network-runs/${second}/${step}`, {});
    }
    await deliverStops(t, courier, first, [waybill]);
    await post(t, courier, `/business/shipments/${waybill}/lab/profile`, { sample_type: "blood" });
    await post(t, courier, `/business/network-runs/${first}/driver`, { driver_id: other.id });
    await t.settle();
    // spec: courier 4.5: limited to runs assigned to that driver; the second run still is.
    const tick = (token: string) =>
      t.call("POST", `/driver/shipments/${waybill}/lab/tick`, {
        bearer: token,
        body: { item: "label_matches" },
      });
    const kept = await tick(mine.token);
    assert.equal(kept.status, 201, JSON.stringify(kept.body));
    assert.equal((await tick(other.token)).status, 201);
    // Once neither run is theirs, the shipment is none of theirs.
    await post(t, courier, `/business/network-runs/${second}/driver`, { driver_id: null });
    await t.settle();
    const gone = await tick(mine.token);
    assert.equal(gone.status, 404, JSON.stringify(gone.body));
  }));

Deno.test("runs: each time a run with stops is left without a driver raises leg_unassigned once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const driver = await newDriver(t, courier.business.id);
    const run = await newRun(t, courier, { driver_id: driver.id });
    await deliverStops(t, courier, run, [await bookWaybill(t, client)]);
    const unassigned = async () => {
      await t.settle();
      const r = await t.call("GET", "/business/courier/alerts?kind=leg_unassigned", {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.length;
    };
    const assign = (driver_id: string | null) =>
      post(t, courier, `/business/network-runs/${run}/driver`, { driver_id });
    assert.equal(await unassigned(), 0, "a driver is assigned");
    // spec: courier 2.9 leg_unassigned: the leg has no driver, raised once per condition. The
    // process dies after the run lost its driver, before the alert was raised: the retry raises it.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "alert" &&
        (command as { alert?: { kind: string } }).alert?.kind === "leg_unassigned",
    }, async () => {
      await post(t, courier, `/business/network-runs/${run}/driver`, { driver_id: null }, 500);
    });
    assert.equal(await unassigned(), 0);
    await assign(null);
    assert.equal(await unassigned(), 1, "the driver was taken off a run with stops");
    await assign(null); // sent again (lost signal)
    await deliverStops(t, courier, run, [await bookWaybill(t, client)]);
    assert.equal(await unassigned(), 1, "the same condition");
    await assign(driver.id);
    assert.equal(await unassigned(), 1);
    await assign(null);
    assert.equal(await unassigned(), 2, "driverless a second time: a new condition");
  }));

Deno.test("runs: a waybill is read in any case, as typed, in every run and stop request", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const [a, b, c, d] = [
      await bookWaybill(t, client),
      await bookWaybill(t, client),
      await bookWaybill(t, client),
      await bookWaybill(t, client),
    ];
    const lower = (w: string) => w.toLowerCase();
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill: lower(a),
    }, 201);
    assert.equal(added.data.stops[0].waybill, a);
    await deliverStops(t, courier, run, [b, c]);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const collected = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${stop}/collect`,
      {
        waybill: lower(d),
      },
    );
    assert.deepEqual(collected.data.stop.collected.map((x: { waybill: string }) => x.waybill), [d]);
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 10,
      waybill: lower(d),
    });
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill: lower(b),
      condition: "damaged",
      note: "box crushed",
    });
    const other = await newRun(t, courier);
    await post(t, courier, `/business/network-runs/${run}/transfer`, {
      waybills: [lower(c)],
      to_run: other,
    });
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    const unloaded = await post(t, courier, `/business/network-runs/${run}/unload`, {
      waybills: [lower(d)],
    });
    const states = Object.fromEntries(
      unloaded.data.items.map((i: { waybill: string; state: string }) => [i.waybill, i.state]),
    );
    assert.deepEqual(states, {
      [a]: "on_board",
      [b]: "damaged",
      [c]: "transferred",
      [d]: "unloaded",
    });
  }));

Deno.test("runs: collecting more than reserved at one stop never takes the capacity another stop reserved", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { capacity: { kg: 10, m3: 2, pieces: 10 } });
    const first = await collectStop(t, courier, run, client, { kg: 5, pieces: 5 });
    const second = await collectStop(t, courier, run, client, { kg: 5, pieces: 5 });
    const waybills: string[] = [];
    for (let i = 0; i < 5; i++) waybills.push(await bookWaybill(t, client)); // 2.5 kg each
    const collect = (stop: string, waybill: string, body: Record<string, unknown>, status = 200) =>
      post(t, courier, `/business/network-runs/${run}/stops/${stop}/collect`, {
        waybill,
        ...body,
      }, status);
    const approved = { reason: "client handed over more boxes; approved by the supervisor" };
    await collect(first, waybills[0]!, {});
    await collect(first, waybills[1]!, {});
    // 7.5 kg at the first stop would leave 2.5 kg for the 5 kg the second stop reserved.
    const over = await collect(first, waybills[2]!, approved, 422);
    assert.equal(over.code, "capacity_exceeded");
    // What the second stop reserved is there for it.
    await collect(second, waybills[3]!, {});
    const done = await collect(second, waybills[4]!, {});
    assert.equal(done.data.stop.collected.length, 2);
    // The run is full now: an override takes no more than it holds.
    await collect(first, waybills[2]!, approved, 422);
    const run_ = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.equal(run_.body.data.items.length, 4);
  }));

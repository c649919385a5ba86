/**
 * Network runs and stops (courier 2.10, 3.4, 4.5): capacity is never exceeded silently; a stop
 * action replayed after lost signal answers the first and books once; collecting more than
 * reserved needs runs:override and a reason; a run closes only when every item has an end state;
 * drivers reach only their own runs and never see declared or customs values.
 */
import assert from "node:assert/strict";
import { EVIDENCE_FILE_BYTES_MAX } from "../../../src/courier/flows/evidence.ts";
import { TEXT_CHARS_MAX } from "../../../src/courier/rules/ledger.ts";
import { postChunked, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { until } from "../../helpers/receiver.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { networkRunActor } from "../../../actors/courier/network_run/mod.ts";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import { forgetStopAnswers } from "../../../src/courier/flows/runs/mod.ts";
import { flakyRuntime, whileFlaky } from "../../helpers/faults.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  courierWithScopes,
  newClient,
  newCourier,
  newDriver,
  topUp,
} from "../../helpers/courier.ts";
import { collectStop, newRun, post } from "./runs_fixtures.ts";

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t, {
    errand_fee: 20,
    failed_collection_fee: 15,
    waiting_fee: 10,
  });
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

/** A run with a deliver stop for each of `count` new shipments of the client. */
async function deliveryRun(t: TestEnv, courier: Courier, client: Client, count = 1) {
  const run = await newRun(t, courier);
  const waybills: string[] = [];
  for (let i = 0; i < count; i++) waybills.push(await bookWaybill(t, client));
  await deliverStops(t, courier, run, waybills);
  return { run, waybill: waybills[0]!, waybills };
}

/** A deliver stop on the run for each shipment, in order. */
async function deliverStops(t: TestEnv, courier: Courier, run: string, waybills: string[]) {
  for (const waybill of waybills) {
    await post(
      t,
      courier,
      `/business/network-runs/${run}/stops`,
      { kind: "deliver", waybill },
      201,
    );
  }
}

async function ledger(t: TestEnv, courier: Courier, client: Client) {
  await t.settle();
  return await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", courier.business.id)
    .where("client_id", "=", client.id)
    .execute();
}

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
    await deliverStops(t, courier, first, [waybill]);
    await deliverStops(t, courier, second, [waybill]);
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

Deno.test("runs: expenses need a receipt and an idempotency_key; waiting needs billing:administer", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill,
    }, 201);
    const stop = added.data.stops[0].id;
    const form = (withReceipt: boolean, key?: string, currency = "BWP") => {
      const f = new FormData();
      f.set("amount", "150.00");
      f.set("currency", currency);
      if (key) f.set("idempotency_key", key);
      if (withReceipt) {
        f.set("receipt", new File([new TextEncoder().encode("fuel receipt")], "fuel.txt"));
      }
      return f;
    };
    const send = (f: FormData) =>
      t.app.request(`/api/business/network-runs/${run}/expenses`, {
        method: "POST",
        headers: { "X-Business-API-Key": courier.business.api_key },
        body: f,
      });
    assert.equal((await send(form(false, "e1"))).status, 422);
    assert.equal((await send(form(true))).status, 422);
    const fake = await send(form(true, "e1", "XYZ"));
    assert.equal(fake.status, 422);
    const refused = await fake.json();
    assert.equal(refused.code, "validation_failed");
    assert.deepEqual(refused.errors.map((e: { path: string }) => e.path), ["currency"]);
    // Text Postgres cannot keep is refused, naming the field, and no expense is kept.
    const nul = form(true, "e\u00001");
    nul.set("note", "diesel \u0000");
    const unkept = await send(nul);
    assert.equal(unkept.status, 422);
    assert.deepEqual(
      (await unkept.json()).errors.map((e: { path: string }) => e.path),
      ["idempotency_key", "note"],
    );
    // A receipt past the cap is refused 413 also when the body declares no length (chunked).
    const big = form(false, "e2");
    big.set("receipt", new File([new Uint8Array(EVIDENCE_FILE_BYTES_MAX + 1)], "big.bin"));
    const encoded = new Response(big);
    const chunked = await postChunked(t, `/business/network-runs/${run}/expenses`, {
      "X-Business-API-Key": courier.business.api_key,
      "Content-Type": encoded.headers.get("Content-Type")!,
    }, encoded.body!);
    assert.equal(chunked.status, 413, await chunked.clone().text());
    const first = await send(form(true, "e1"));
    assert.equal(first.status, 201, await first.clone().text());
    const again = await send(form(true, "e1"));
    assert.equal(again.status, 201);
    const kept = (await again.json()).data;
    assert.equal(kept.expenses.length, 1);
    // Stated as the rest of the API states them: a decimal amount, ISO times, kg and m3.
    assert.equal(kept.expenses[0].amount, 150);
    assert.equal("amount_minor" in kept.expenses[0], false);
    assert.equal(kept.expenses[0].at, new Date(t.clock.now()).toISOString());
    assert.deepEqual(kept.capacity, { kg: 100, m3: 2, pieces: 10, cold_slots: 0 });
    assert.equal(kept.items[0].load.kg, 2.5);
    assert.equal(kept.created_at, new Date(t.clock.now()).toISOString());
    assert.equal(kept.closed_at, null);
    assert.ok(kept.history.every((h: { at: string }) => typeof h.at === "string"));

    const weak = await courierWithScopes(t, []);
    const denied = await t.call("POST", `/business/network-runs/${run}/waiting`, {
      key: weak.api_key,
      body: { stop_id: stop, minutes: 30 },
    });
    assert.equal(denied.status, 404, "another courier's run is not found");
    await post(t, courier, `/business/network-runs/${run}/waiting`, { stop_id: stop, minutes: 30 });
    await post(t, courier, `/business/network-runs/${run}/waiting`, { stop_id: stop, minutes: 30 });
    const waits = (await ledger(t, courier, client)).filter((e) => e.kind === "waiting");
    assert.equal(waits.length, 1, "the same stop's wait books once");
  }));

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

Deno.test("runs: a stop never charges another client's shipment (failed collection, waiting)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "2000");
    const theirs = await bookWaybill(t, other);
    const run = await newRun(t, courier);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const fail = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill: theirs,
      reason: "sender's shop closed",
    }, 422);
    assert.deepEqual(fail.errors.map((e: { path: string }) => e.path), ["waybill"]);
    const wait = await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill: theirs,
    }, 422);
    assert.deepEqual(wait.errors.map((e: { path: string }) => e.path), ["waybill"]);
    const stranger = await newCourier(t);
    const strangers = await newClient(t, stranger);
    await topUp(t, stranger, strangers, "2000");
    const foreign = await bookWaybill(t, strangers);
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill: foreign,
      reason: "sender's shop closed",
    }, 404);
    assert.deepEqual(
      (await ledger(t, courier, other)).filter((e) => e.kind !== "shipment" && e.kind !== "top_up"),
      [],
    );
    // The work order's own client is charged, once.
    const mine = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill: mine,
      reason: "sender's shop closed",
    });
    const failed = (await ledger(t, courier, client)).filter((e) => e.kind === "failed_collection");
    assert.deepEqual(failed.map((e) => [e.shipment, Number(e.amount_minor), e.source_event]), [
      [mine, 1500, `run.collection_failed:${stop}`],
    ]);
  }));

Deno.test("runs: a note or reason a later charge keeps is refused 422 with a control character, and nothing is charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    // spec: courier 2.6 rule 1: the wait's note and the failure's reason are the charges' reason,
    // carried by their billing events (2.7), where \u0001 takes six bytes, not one character.
    const wait = await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill,
      note: "gate\u0007locked",
    }, 422);
    assert.equal(wait.code, "validation_failed");
    assert.deepEqual(wait.errors.map((e: { path: string }) => e.path), ["note"]);
    const fail = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill,
      reason: "shop\u001bclosed",
    }, 422);
    assert.equal(fail.code, "validation_failed");
    assert.deepEqual(fail.errors.map((e: { path: string }) => e.path), ["reason"]);
    const after = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.equal(after.body.data.stops[0].status, "pending", "the stop is as it was");
    assert.deepEqual(
      (await ledger(t, courier, client)).filter((e) =>
        e.kind === "waiting" || e.kind === "failed_collection"
      ),
      [],
    );
    // Over lines is text still: a tab and a line break (two bytes each in an event body).
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill,
      note: "gate locked,\n\tcalled the sender",
    });
    const [charged] = (await ledger(t, courier, client)).filter((e) => e.kind === "waiting");
    assert.equal(
      charged?.reason,
      `waited 30 minutes at stop ${stop}: gate locked,\n\tcalled the sender`,
    );
  }));

Deno.test("runs: a wait's or failure's longest note books its charge, the reason cut to the ledger's bound, never refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    // spec: courier 2.6 rule 1: each later charge keeps a reason; the note is within its bound.
    const note = "🚚".repeat(250);
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill,
      note,
    });
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill,
      reason: "x".repeat(500),
    });
    const charged = (await ledger(t, courier, client)).filter((e) =>
      e.kind === "waiting" || e.kind === "failed_collection"
    );
    assert.deepEqual(charged.map((e) => e.kind).sort(), ["failed_collection", "waiting"]);
    for (const e of charged) {
      assert.ok(e.reason!.length <= TEXT_CHARS_MAX, e.reason!);
      assert.ok(e.reason!.isWellFormed(), "no half of a character");
      assert.ok(e.reason!.endsWith("…"), "marked as cut");
    }
  }));

Deno.test("runs: a checkpoint stop's wait books once, on one client, however many clients ride", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "2000");
    const run = await newRun(t, courier);
    const mine = await bookWaybill(t, client);
    const theirs = await bookWaybill(t, other);
    await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "checkpoint",
      country: "BW",
      to_country: "BW",
      border_post: "Ramatlabama",
    }, 201);
    await deliverStops(t, courier, run, [mine, theirs]);
    const checkpoint = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data.stops[0].id;
    // Two offices name the wait for different shipments at once: one is charged, for the stop.
    const answers = await Promise.all(
      [mine, theirs].map((waybill) =>
        t.call("POST", `/business/network-runs/${run}/waiting`, {
          key: courier.business.api_key,
          body: { stop_id: checkpoint, minutes: 45, waybill },
        })
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], JSON.stringify(answers));
    const refused = answers.find((a) => a.status === 409)!;
    assert.equal(refused.body.code, "reference_conflict");
    assert.match(refused.body.message, new RegExp(`${checkpoint}.*(${mine}|${theirs})`));
    // spec: courier 6.1 `run.waiting:{stop}`, one per charge, sent once; 2.6 rule 2.
    const waits = [
      ...(await ledger(t, courier, client)),
      ...(await ledger(t, courier, other)),
    ].filter((e) => e.kind === "waiting");
    assert.deepEqual(waits.map((e) => e.source_event), [`run.waiting:${checkpoint}`]);
    // The charged shipment named again is the same wait: answered, not booked again.
    const charged = waits[0]!.shipment!;
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: checkpoint,
      minutes: 45,
      waybill: charged,
    });
    const again = [
      ...(await ledger(t, courier, client)),
      ...(await ledger(t, courier, other)),
    ].filter((e) => e.kind === "waiting");
    assert.equal(again.length, 1);
  }));

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
        waybill: mine,
        idempotency_key: "c1",
      },
    );
    const driverCollect = (body: unknown) =>
      t.call("POST", `/driver/network-runs/${run}/stops/${collectStop}/collect`, {
        bearer: driver.token,
        body,
      });
    const replay = await driverCollect({ waybill: mine, idempotency_key: "c1" });
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    const labelled = (stop: { collected: { waybill: string; labels: string[] }[] }) =>
      stop.collected.map((x) => `${x.waybill} ${x.labels}`);
    assert.deepEqual(labelled(replay.body.data.stop), labelled(collected.data.stop));
    const swapped = await driverCollect({ waybill: spare, idempotency_key: "c1" });
    assert.equal(swapped.status, 409, JSON.stringify(swapped.body));
    assert.equal(swapped.body.code, "idempotency_key_reused");
    const errands = (await ledger(t, courier, client)).filter((e) => e.kind === "errand");
    assert.deepEqual(errands.map((e) => e.shipment), [mine]);
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

Deno.test("runs: a collect stop's work order names a client of this courier, or is refused naming it", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const stranger = await newCourier(t);
    const theirs = await newClient(t, stranger);
    const run = await newRun(t, courier);
    for (const id of ["cli_nobody", theirs.id]) {
      const r = await post(t, courier, `/business/network-runs/${run}/stops`, {
        kind: "collect",
        work_order: {
          sender: "Molapo Pharmacy",
          recipient: "Gaborone hub",
          courier_client_id: id,
          reserved: { kg: 1, pieces: 1, m3: 0.1 },
        },
      }, 422);
      assert.deepEqual(r.errors.map((e: { path: string }) => e.path), [
        "work_order.courier_client_id",
      ]);
    }
    const read = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(read.body.data.stops, [], "nothing added");
  }));

Deno.test("runs: a failed collection that picked nothing up charges the work order's client, once, on its card in force", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    // A new version in force: no shipment froze a card for this work, so today's card prices it.
    // It starts after version 1 (courier 4.2), a second on.
    t.clock.advanceBy(1000);
    await post(t, courier, `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      effective_from: new Date(t.clock.now()).toISOString(),
      failed_collection_fee: 20,
    }, 201);
    t.clock.advanceBy(1000);
    const run = await newRun(t, courier);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const body = { reason: "sender's shop closed", idempotency_key: "fail-1" };
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, body);
    // A replay after lost signal books nothing again.
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, body);
    const failed = (await ledger(t, courier, client)).filter((e) => e.kind === "failed_collection");
    assert.deepEqual(
      failed.map((e) => [e.shipment, Number(e.amount_minor), e.source_event, e.evidence_path]),
      [[null, 2000, `run.collection_failed:${stop}`, `run:${run}/stop:${stop}`]],
    );
    const events = await t.call("GET", "/business/courier/billing/events", {
      key: courier.business.api_key,
    });
    assert.ok(
      events.body.data.some((e: { event_type: string }) =>
        e.event_type === `run.collection_failed:${stop}`
      ),
      JSON.stringify(events.body.data),
    );
  }));

Deno.test("runs: a redelivery after a failed attempt and a return each book their own charge, once", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { redelivery_fee: 25, return_fee: 40 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const again = await bookWaybill(t, client);
    const back = await bookWaybill(t, client);
    // A card version published after booking does not reprice them (courier 2.3, 4.2); it
    // starts after version 1, a second on.
    t.clock.advanceBy(1000);
    await post(t, courier, `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      effective_from: new Date(t.clock.now()).toISOString(),
      redelivery_fee: 99,
      return_fee: 99,
    }, 201);
    const run = await newRun(t, courier);
    await deliverStops(t, courier, run, [again, back]);
    const stops = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data.stops;
    for (const stop of stops) {
      await post(t, courier, `/business/network-runs/${run}/stops/${stop.id}/fail`, {
        reason: "nobody home",
      });
    }
    // Out again (operations' scan), then delivered by a second run: one redelivery.
    const scan = (event: string) =>
      post(t, courier, `/business/courier/shipments/${again}/scans`, { event }, 201);
    await scan("out_for_delivery");
    await scan("out_for_delivery");
    const second = await newRun(t, courier);
    await post(t, courier, `/business/network-runs/${second}/stops`, {
      kind: "deliver",
      waybill: again,
    }, 201);
    const leg = (await post(t, courier, `/business/network-runs/${second}/depart`, {})).data;
    await post(t, courier, `/business/network-runs/${second}/stops/${leg.stops[0].id}/deliver`, {
      received_by: "Neo",
    });
    // The other goes back to the sender, reported twice: one return.
    for (const key of ["r1", "r2"]) {
      await post(t, courier, `/business/network-runs/${run}/report`, {
        waybill: back,
        condition: "returned",
        note: "refused by the recipient",
        idempotency_key: key,
      });
    }
    const charges = (await ledger(t, courier, client))
      .filter((e) => e.kind === "redelivery" || e.kind === "return")
      .map((e) => [e.kind, e.shipment, Number(e.amount_minor), e.currency, e.source_event]);
    assert.deepEqual(charges, [
      ["redelivery", again, 2500, "BWP", `shipment.redelivery:${again}:1`],
      ["return", back, 4000, "BWP", `shipment.return:${back}`],
    ]);
    // Each completion billing event lists the charge its own scan caused (courier 2.7).
    for (
      const [type, waybill, reference] of [
        ["shipment.returned", back, `RET-${back}`],
        ["shipment.delivered", again, `RDL-${again}-1`],
      ] as const
    ) {
      let body: { shipment: { waybill: string; adjustments: { reference: string }[] } } | null =
        null;
      await until(t, async () => {
        const r = await t.call("GET", `/business/courier/billing/events?event_type=${type}`, {
          key: courier.business.api_key,
        });
        const made = r.body.data.find((e: { event_id: string }) => e.event_id);
        if (!made) return false;
        const got = await t.env.runtime.ask(
          outboundEventActor,
          courier.business.id,
          made.event_id,
          {
            kind: "get",
          },
        );
        body = got.ok && got.reply ? JSON.parse(got.reply.raw_body) : null;
        return body?.shipment.waybill === waybill;
      }, type);
      assert.deepEqual(body!.shipment.adjustments.map((a) => a.reference), [reference], type);
    }
  }));

Deno.test("runs: a stop that is done cannot fail afterwards; nothing changes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id;
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
      received_by: "Neo",
    });
    const refused = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      reason: "nobody home",
    }, 409);
    assert.equal(refused.code, "stop_already_done");
    assert.match(refused.message, new RegExp(stop));
    const after = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(after.stops[0].status, "done");
    assert.equal(after.items[0].state, "delivered");
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "delivered");
    assert.ok(
      !ship.body.data.trail.some((e: { event: string }) => e.event === "delivery_attempted"),
      JSON.stringify(ship.body.data.trail),
    );
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
    await post(
      t,
      courier,
      `/business/network-runs/${from}/stops`,
      { kind: "deliver", waybill: a },
      201,
    );
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
    await post(
      t,
      courier,
      `/business/network-runs/${x}/stops`,
      { kind: "deliver", waybill: b },
      201,
    );
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
    await post(
      t,
      courier,
      `/business/network-runs/${from}/stops`,
      { kind: "deliver", waybill: a },
      201,
    );
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

Deno.test("runs: an arrival whose alerts a crash kept from being raised is completed by its retry", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    // The process dies after the run arrived, before leg_trip_ended was raised.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "alert" &&
        (command as { alert?: { kind: string } }).alert?.kind === "leg_trip_ended",
    }, async () => {
      await post(t, courier, `/business/network-runs/${run}/arrive`, {}, 500);
    });
    // Sent again without an idempotency_key: the arrival recorded answers, the alert is raised.
    const again = await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.equal(again.data.status, "arrived");
    await t.settle();
    const r = await t.call("GET", "/business/courier/alerts?kind=leg_trip_ended", {
      key: courier.business.api_key,
    });
    assert.deepEqual(r.body.data.map((a: { waybill: string }) => a.waybill), [waybill]);
    // A run that has not departed still cannot arrive.
    const other = await newRun(t, courier);
    const refused = await post(t, courier, `/business/network-runs/${other}/arrive`, {}, 422);
    assert.equal(refused.code, "run_not_departed");
  }));

/** The events of a shipment's trail, in order. */
async function trailOf(t: TestEnv, courier: Courier, waybill: string): Promise<string[]> {
  const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.trail.map((e: { event: string }) => e.event);
}

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

Deno.test("runs: a departure sent again after the run arrived or unloaded answers the run as it stands", () =>
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

/** The open milestones of a shipment, by name in order. */
async function milestonesOf(t: TestEnv, courier: Courier, waybill: string): Promise<string[]> {
  const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.obligations.map((o: { milestone: string }) => o.milestone).sort();
}

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

Deno.test("runs: an expense's idempotency_key longer than any request's may be is refused 422, keeping nothing", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const run = await newRun(t, courier);
    for (const length of [121, 3000]) {
      const f = new FormData();
      f.set("amount", "150.00");
      f.set("currency", "BWP");
      f.set("idempotency_key", "k".repeat(length));
      f.set("receipt", new File([new TextEncoder().encode("fuel receipt")], "fuel.txt"));
      const r = await t.call("POST", `/business/network-runs/${run}/expenses`, {
        key: courier.business.api_key,
        body: f,
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["idempotency_key"]);
    }
    const kept = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(kept.body.data.expenses, []);
  }));

Deno.test("runs: every expense recorded stays on the run, however many follow it", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const run = await newRun(t, courier);
    const keys = Array.from({ length: 22 }, (_, i) => `fuel-${i + 1}`);
    for (const key of keys) {
      const f = new FormData();
      f.set("amount", "12.50");
      f.set("currency", "BWP");
      f.set("idempotency_key", key);
      f.set("receipt", new File([new TextEncoder().encode(`receipt ${key}`)], "fuel.txt"));
      const r = await t.call("POST", `/business/network-runs/${run}/expenses`, {
        key: courier.business.api_key,
        body: f,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const kept = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(kept.body.data.expenses.map((e: { key: string }) => e.key), keys);
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
    const checkpoint = (await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "checkpoint",
      country: "BW",
      to_country: "ZA",
      border_post: "Tlokweng",
    }, 201)).data.stops.at(-1).id;
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

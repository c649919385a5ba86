/**
 * A transfer (courier 3.4) cut off between its two runs' commits completes without the caller's
 * retry: the run that took the items recorded, in the same commit, that the run they came from
 * must mark them transferred (`transfer_out`), and its follow-ups timer has the run follow-ups
 * reactor do it (as after a restart: the timer is durable), custody moved once; a retry then
 * changes nothing. When the item
 * ended on the first run meanwhile, or customs held it meanwhile, the reactor has the target give
 * it back instead.
 */
import assert from "node:assert/strict";
import { customsCrossingActor } from "../../../actors/courier/customs_crossing/mod.ts";
import { type PlannedOn, shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import {
  deliveryGateOf,
  type NetworkRun,
  networkRunActor,
  RUN_FOLLOW_UP_RETRY_MS,
} from "../../../actors/courier/network_run/mod.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Courier,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { advance, until } from "../../helpers/receiver.ts";

async function post(t: TestEnv, courier: Courier, path: string, body: unknown, status = 200) {
  const r = await t.call("POST", path, { key: courier.business.api_key, body });
  assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

interface Made {
  readonly courier: Courier;
  readonly from: string;
  readonly to: string;
  readonly waybill: string;
  readonly stopId: string;
  readonly now: number;
}

/** Two runs of a courier; the first, under way, carries one shipment to deliver. */
async function twoRuns(t: TestEnv, booking: Record<string, unknown> = {}): Promise<Made> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  const waybill = await bookWaybill(t, client, booking);
  const run = async () =>
    (await post(t, courier, "/business/network-runs", {
      facility_id: "GBE-HUB",
      kind: "linehaul",
      countries: ["BW"],
      capacities: { kg: 100, m3: 2, pieces: 10 },
    }, 201)).data.id as string;
  const [from, to] = [await run(), await run()];
  await post(t, courier, `/business/network-runs/${from}/stops`, { kind: "deliver", waybill }, 201);
  const stops = (await post(t, courier, `/business/network-runs/${from}/depart`, {})).data.stops;
  return { courier, from, to, waybill, stopId: stops[0].id, now: t.clock.now() };
}

async function runOf(t: TestEnv, made: Made, id: string): Promise<NetworkRun> {
  const got = await t.env.runtime.read(networkRunActor, made.courier.business.id, id, {
    kind: "get",
  });
  assert.ok(got.ok, JSON.stringify(got));
  return got.reply as NetworkRun;
}

const states = (run: NetworkRun) => run.items.map((i) => [i.waybill, i.state]);

/** The custody moves the transfer recorded on the shipment. */
async function transferScans(t: TestEnv, made: Made): Promise<number> {
  const r = await t.call("GET", `/business/courier/operations/${made.waybill}`, {
    key: made.courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.trail.filter((e: { note: string | null }) =>
    e.note === `transferred to run ${made.to}`
  ).length;
}

Deno.test("run transfer: a transfer cut off after the target took the items is completed by the target's follow-up without a retry, custody moved once", async () => {
  const t = await openTestEnv();
  try {
    const made = await twoRuns(t);
    const body = { waybills: [made.waybill], to_run: made.to, idempotency_key: "t1" };
    const path = `/business/network-runs/${made.from}/transfer`;
    // The work stops after the target took the item, before the first run marked it.
    await whileFlaky(t.env, {
      fails: (type, command) => {
        const c = command as { kind: string; change?: { kind: string } };
        return type === "network_run" && (c.change ?? c).kind === "transfer";
      },
    }, async () => {
      await post(t, made.courier, path, body, 500);
    });
    assert.deepEqual(states(await runOf(t, made, made.to)), [[made.waybill, "planned"]]);
    assert.deepEqual(states(await runOf(t, made, made.from)), [[made.waybill, "on_board"]]);
    assert.equal(await transferScans(t, made), 0);
    // Nobody sends it again: the target's follow-ups timer does.
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await until(t, async () => {
      const from = await runOf(t, made, made.from);
      return from.items[0]?.state === "transferred";
    }, "the first run marking the item");
    await until(t, async () => await transferScans(t, made) === 1, "the custody move");
    await until(
      t,
      async () => (await runOf(t, made, made.to)).follow_ups_due?.length === 0,
      "the target told its follow-up done",
    );
    // The caller's retry answers as done and moves nothing again, nor does the timer.
    const again = await post(t, made.courier, path, body);
    assert.equal(again.data.items[0].state, "transferred");
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await t.settle();
    assert.equal(await transferScans(t, made), 1);
    assert.deepEqual(states(await runOf(t, made, made.to)), [[made.waybill, "planned"]]);
    assert.deepEqual(states(await runOf(t, made, made.from)), [[made.waybill, "transferred"]]);
  } finally {
    await t.close();
  }
});

Deno.test("run transfer: a transfer cut off after the target took an item that was then delivered on its run is given back by the target's follow-up", async () => {
  const t = await openTestEnv();
  try {
    const made = await twoRuns(t);
    const tenant = made.courier.business.id;
    // Only the first step is committed: the target takes the item.
    const took = await t.env.runtime.ask(networkRunActor, tenant, made.to, {
      kind: "transfer_in",
      from_run: made.from,
      items: [{
        waybill: made.waybill,
        load: { grams: 2500, cm3: 6000, pieces: 1, cold_slots: 0 },
      }],
      by: "test",
    });
    assert.ok(took.ok, JSON.stringify(took));
    assert.ok((await runOf(t, made, made.to)).follow_ups_due?.length === 1, "its follow-up due");
    await post(
      t,
      made.courier,
      `/business/network-runs/${made.from}/stops/${made.stopId}/deliver`,
      {
        received_by: "Neo",
      },
    );
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await until(
      t,
      async () => (await runOf(t, made, made.to)).follow_ups_due?.length === 0,
      "the target's follow-up done",
    );
    assert.deepEqual(states(await runOf(t, made, made.to)), [], "given back");
    assert.deepEqual(states(await runOf(t, made, made.from)), [[made.waybill, "delivered"]]);
    assert.equal(await transferScans(t, made), 0);
  } finally {
    await t.close();
  }
});

Deno.test("run transfer: a transfer cut off after the target took an item customs then held is given back by the target's follow-up", async () => {
  const t = await openTestEnv();
  try {
    const made = await twoRuns(t, { to_country: "ZA" });
    await grantScopes(t, made.courier, "customs:approve");
    const tenant = made.courier.business.id;
    // Only the first steps are committed: the crossing reserved under the first run's gate for
    // the shipment, and the target taking it under that gate (src/courier/flows/runs transfer).
    const gate = deliveryGateOf(await runOf(t, made, made.from), made.waybill);
    const customs = await t.call("GET", `/business/shipments/${made.waybill}/customs`, {
      key: made.courier.business.api_key,
    });
    const crossing = customs.body.data.crossings[0].id as string;
    const delivery = { token: gate, run_id: made.from, waybill: made.waybill };
    const reserved = await t.env.runtime.ask(customsCrossingActor, tenant, crossing, {
      kind: "reserve_delivery",
      delivery,
    });
    assert.ok(reserved.ok, JSON.stringify(reserved));
    // The claim passed to the target first (courier 3.4: planning.ts passClaim).
    const claimed = async () => {
      const r = await t.env.runtime.read(shipmentRunsActor, tenant, made.waybill, { kind: "get" });
      return r.ok ? r.reply.planned_on as PlannedOn : null;
    };
    const passed = await t.env.runtime.ask(shipmentRunsActor, tenant, made.waybill, {
      kind: "plan",
      run_id: made.to,
      replacing: (await claimed())!.claim,
    });
    assert.ok(passed.ok, JSON.stringify(passed));
    const took = await t.env.runtime.ask(networkRunActor, tenant, made.to, {
      kind: "transfer_in",
      from_run: made.from,
      items: [{
        waybill: made.waybill,
        load: { grams: 2500, cm3: 6000, pieces: 1, cold_slots: 0 },
      }],
      gates: { [made.waybill]: gate },
      by: "test",
    });
    assert.ok(took.ok, JSON.stringify(took));
    // spec: courier 3.4: customs holds it before the first run marked it transferred.
    await post(t, made.courier, `/business/customs/${crossing}/move`, {
      action: "hold",
      reason: "x-ray",
    });
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await until(
      t,
      async () => (await runOf(t, made, made.to)).follow_ups_due?.length === 0,
      "the target's follow-up done",
    );
    assert.deepEqual(states(await runOf(t, made, made.to)), [], "given back");
    assert.deepEqual(states(await runOf(t, made, made.from)), [[made.waybill, "on_board"]]);
    assert.equal(await transferScans(t, made), 0);
    // The first run still has it on board: its claim came back, so no other run plans it.
    assert.equal((await claimed())?.run_id, made.from);
  } finally {
    await t.close();
  }
});

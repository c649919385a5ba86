/**
 * What follows a run's change (courier 2.6 rule 3, 3.4) completes after a crash without the
 * driver's retry: the run committed the collection with its follow-ups due, the process stopped
 * before the custody move and the errand charge, and after a restart the run's follow-ups timer
 * makes them due again and the reactor does them, each once; the driver's retry changes nothing.
 */
import assert from "node:assert/strict";
import {
  type NetworkRun,
  networkRunActor,
  RUN_FOLLOW_UP_RETRY_MS,
  type StoredRunEvent,
} from "../../../actors/courier/network_run/mod.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, newDriver, topUp } from "../../helpers/courier.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { advance, until } from "../../helpers/receiver.ts";

interface Made {
  readonly key: string;
  readonly token: string;
  readonly tenant: string;
  readonly clientId: string;
  readonly runId: string;
  readonly waybill: string;
  readonly path: string;
  /** With `stops` collect stops: each one's waybill and action path. */
  readonly waybills: readonly string[];
  readonly paths: readonly string[];
  readonly now: number;
}

/** A courier charging 20 for an errand, its driver's run with collect stops, under way. */
async function collectUnderWay(t: TestEnv, stopCount = 1): Promise<Made> {
  const courier = await newCourier(t, { errand_fee: 20 });
  const client = await newClient(t, courier);
  await topUp(t, courier, client, String(500 * stopCount));
  const driver = await newDriver(t, courier.business.id);
  const waybills: string[] = [];
  for (let i = 0; i < stopCount; i++) waybills.push(await bookWaybill(t, client));
  const key = courier.business.api_key;
  const post = async (path: string, body: unknown, status = 200) => {
    const r = await t.call("POST", path, { key, body });
    assert.equal(r.status, status, JSON.stringify(r.body));
    return r.body.data;
  };
  const run = await post("/business/network-runs", {
    facility_id: "GBE-HUB",
    kind: "collection",
    countries: ["BW"],
    capacities: { kg: 100, m3: 2, pieces: 20 },
    driver_id: driver.id,
  }, 201);
  let stops: { id: string }[] = [];
  for (let i = 0; i < stopCount; i++) {
    stops = (await post(`/business/network-runs/${run.id}/stops`, {
      kind: "collect",
      work_order: {
        sender: "Molapo Pharmacy",
        recipient: "Gaborone hub",
        courier_client_id: client.id,
        reserved: { kg: 5, m3: 0.1, pieces: 2 },
      },
    }, 201)).stops;
  }
  await post(`/business/network-runs/${run.id}/depart`, {});
  const paths = stops.map((s) => `/driver/network-runs/${run.id}/stops/${s.id}/collect`);
  return {
    key,
    token: driver.token,
    tenant: courier.business.id,
    clientId: client.id,
    runId: run.id,
    waybill: waybills[0]!,
    path: paths[0]!,
    waybills,
    paths,
    now: t.clock.now(),
  };
}

async function collected(t: TestEnv, made: Made): Promise<number> {
  const r = await t.call("GET", `/business/courier/operations/${made.waybill}`, { key: made.key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.trail.filter((e: { event: string }) => e.event === "collected").length;
}

async function errands(t: TestEnv, made: Made): Promise<number> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("client_id", "=", made.clientId)
    .where("kind", "=", "errand")
    .execute();
  return rows.length;
}

Deno.test("run follow-ups: a collection a crash cut off after the run's commit is completed after the restart, custody moved and the errand charged once", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  const dataKey = await importDataKey(new Uint8Array(32).fill(3));
  const body = { idempotency_key: "collect-1", waybill: "" };
  let made: Made;
  const first = await openTestEnv({ kvPath, dataKey });
  try {
    made = await collectUnderWay(first);
    body.waybill = made.waybill;
    // The process stops after the run recorded the collection, before the shipment heard of it.
    await whileFlaky(first.env, {
      fails: (type, command) =>
        type === "shipment" && (command as { kind: string }).kind === "record",
    }, async () => {
      const r = await first.call("POST", made.path, { bearer: made.token, body });
      assert.equal(r.status, 500, JSON.stringify(r.body));
    });
    assert.equal(await collected(first, made), 0, "the custody move was cut off");
  } finally {
    await first.close();
  }
  const second = await openTestEnv({ kvPath, dataKey });
  try {
    second.clock.advanceBy(made.now - second.clock.now());
    assert.equal(await collected(second, made), 0);
    // Nobody sends it again: the run's follow-ups timer does.
    await advance(second, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await until(second, async () => await collected(second, made) === 1, "the custody move");
    assert.equal(await errands(second, made), 1, "the errand charge");
    // The driver's retry answers the first answer and moves and books nothing again.
    const again = await second.call("POST", made.path, { bearer: made.token, body });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.stop.status, "done");
    await advance(second, RUN_FOLLOW_UP_RETRY_MS / 1000);
    assert.equal(await collected(second, made), 1);
    assert.equal(await errands(second, made), 1);
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run follow-ups: collections sent at once on one run are each told done, none left due, without the reactor", async () => {
  const t = await openTestEnv();
  try {
    const made = await collectUnderWay(t, 6);
    const answers = await Promise.all(made.paths.map((path, i) =>
      t.call("POST", path, {
        bearer: made.token,
        body: { idempotency_key: `collect-${i}`, waybill: made.waybills[i] },
      })
    ));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    const dueBatches = async () => {
      const got = await t.env.runtime.read(networkRunActor, made.tenant, made.runId, {
        kind: "get",
      });
      assert.ok(got.ok);
      return (got.reply as NetworkRun).follow_ups_due ?? [];
    };
    // The tellings are not awaited by the answers: wait for the run to have heard them all.
    await until(t, async () => (await dueBatches()).length === 0, "every batch told done");
    const due: string[] = [], done: string[] = [];
    for await (const { event } of t.env.runtime.events(networkRunActor, made.runId)) {
      const e = event as StoredRunEvent;
      if (e.kind === "follow_ups_due") due.push(e.batch);
      if (e.kind === "follow_ups_done") done.push(...e.batches);
      assert.notEqual(e.kind, "follow_ups_again", "nothing was left for the timer");
    }
    assert.equal(due.length, 6);
    assert.deepEqual([...done].sort(), [...due].sort(), "each batch told done once");
    for (const waybill of made.waybills) {
      assert.equal(await collected(t, { ...made, waybill }), 1);
    }
  } finally {
    await t.close();
  }
});

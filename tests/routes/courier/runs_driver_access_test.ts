/**
 * Driver access by run (courier 4.5: a driver is limited to the runs assigned to them): each run
 * gives its driver the shipments on it under its own index entry, so two runs of a driver
 * carrying one shipment each keep it theirs, and closing or reassigning one leaves the other's; a
 * closed run is no longer the driver's to read or act on; entries stored under the old key
 * shape (`<driver>|<waybill>`, shared by such runs) are rewritten at start.
 */
import assert from "node:assert/strict";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { openTestEnv, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  newDriver,
  topUp,
} from "../../helpers/courier.ts";
import { DRIVER_WAYBILL_INDEX } from "../../../actors/courier/network_run/mod.ts";
import { writeOldShapeEntries } from "../../helpers/old_run_entries.ts";
import { deliver } from "../../../src/courier/flows/runs/mod.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import {
  collectStop,
  deliverStops,
  newRun,
  post,
  runtimeWithGap,
  trailOf,
} from "./runs_fixtures.ts";

interface Scene {
  readonly courier: Courier;
  readonly client: Client;
  readonly mine: { id: string; token: string };
  readonly other: { id: string; token: string };
  readonly first: string;
  readonly second: string;
  readonly waybill: string;
}

/**
 * Two runs of one driver carrying one shipment (a lab sample): the second collected it and
 * unloaded it at the depot, then the first plans its delivery (courier 3.4: one run carries a
 * shipment out at a time; a trunk's item unloaded at a depot lets another run plan it).
 */
async function twoRunsOneShipment(t: TestEnv): Promise<Scene> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  const mine = await newDriver(t, courier.business.id);
  const other = await newDriver(t, courier.business.id);
  const waybill = await bookWaybill(t, client);
  const runs: string[] = [];
  for (let i = 0; i < 2; i++) {
    runs.push(await newRun(t, courier, { vehicle: `B 12${i} ABC`, driver_id: mine.id }));
  }
  const collect = await collectStop(t, courier, runs[1]!, client, { kg: 5, pieces: 2 });
  await post(t, courier, `/business/network-runs/${runs[1]}/stops/${collect}/collect`, { waybill });
  for (const step of ["depart", "arrive", "unload"]) {
    await post(t, courier, `/business/network-runs/${runs[1]}/${step}`, {});
  }
  await post(t, courier, `/business/network-runs/${runs[0]}/stops`, {
    kind: "deliver",
    waybill,
  }, 201);
  await post(t, courier, `/business/shipments/${waybill}/lab/profile`, { sample_type: "blood" });
  return { courier, client, mine, other, first: runs[0]!, second: runs[1]!, waybill };
}

/** The driver ticks a checklist item of the shipment's sample: a driver-only shipment action. */
function tick(t: TestEnv, s: Scene, token: string) {
  return t.call("POST", `/driver/shipments/${s.waybill}/lab/tick`, {
    bearer: token,
    body: { item: "label_matches" },
  });
}

/** Closes a run: its shipment reported damaged (an end state, with its note), then close. */
async function closeRun(t: TestEnv, s: Scene, run: string) {
  await post(t, s.courier, `/business/network-runs/${run}/report`, {
    waybill: s.waybill,
    condition: "damaged",
    note: "box crushed under a pallet",
  });
  const closed = await post(t, s.courier, `/business/network-runs/${run}/close`, {});
  assert.equal(closed.data.status, "closed");
}

Deno.test("driver access by run: a shipment on two runs of the driver stays theirs through the other when one closes, until that one is reassigned", () =>
  withTestEnv(async (t) => {
    const s = await twoRunsOneShipment(t);
    assert.equal((await tick(t, s, s.mine.token)).status, 201);
    await closeRun(t, s, s.first);
    const kept = await tick(t, s, s.mine.token);
    assert.equal(kept.status, 201, JSON.stringify(kept.body));
    // spec: courier 4.5: once the second run is another driver's, the shipment is theirs.
    await post(t, s.courier, `/business/network-runs/${s.second}/driver`, {
      driver_id: s.other.id,
    });
    const gone = await tick(t, s, s.mine.token);
    assert.equal(gone.status, 404, JSON.stringify(gone.body));
    assert.equal(gone.body.code, "not_found");
    assert.equal((await tick(t, s, s.other.token)).status, 201);
    // Another courier's driver reaches nothing of this courier's.
    const stranger = await newCourier(t);
    const theirs = await newDriver(t, stranger.business.id);
    assert.equal((await tick(t, s, theirs.token)).status, 404);
  }));

Deno.test("driver access by run: a closed run is no longer the driver's to read, list or act on; operations still read it", () =>
  withTestEnv(async (t) => {
    const s = await twoRunsOneShipment(t);
    const asDriver = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { bearer: s.mine.token, ...(body ? { body } : {}) });
    const open = await asDriver("GET", `/driver/network-runs/${s.first}`);
    assert.equal(open.status, 200, JSON.stringify(open.body));
    const stop = open.body.data.stops[0].id as string;
    await closeRun(t, s, s.first);
    await t.settle();
    const read = await asDriver("GET", `/driver/network-runs/${s.first}`);
    assert.equal(read.status, 404, JSON.stringify(read.body));
    assert.equal(read.body.code, "not_found");
    for (const action of ["depart", "arrive", "unload", "report"]) {
      const r = await asDriver("POST", `/driver/network-runs/${s.first}/${action}`, {});
      assert.equal(r.status, 404, `${action}: ${JSON.stringify(r.body)}`);
    }
    const deliver = await asDriver(
      "POST",
      `/driver/network-runs/${s.first}/stops/${stop}/deliver`,
      { idempotency_key: "d1", received_by: "Neo" },
    );
    assert.equal(deliver.status, 404, JSON.stringify(deliver.body));
    const list = await asDriver("GET", "/driver/network-runs");
    assert.deepEqual(list.body.data.map((r: { id: string }) => r.id), [s.second]);
    assert.equal((await asDriver("GET", `/driver/network-runs/${s.second}`)).status, 200);
    const ops = await t.call("GET", `/business/network-runs/${s.first}`, {
      key: s.courier.business.api_key,
    });
    assert.equal(ops.status, 200);
    assert.equal(ops.body.data.status, "closed");
  }));

Deno.test("driver access by run: entries stored under the old shared key are rewritten per run at start, so reassigning one run leaves the other's", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  const dataKey = await importDataKey(new Uint8Array(32).fill(3));
  try {
    const before = await openTestEnv({ kvPath, dataKey });
    let s: Scene;
    try {
      s = await twoRunsOneShipment(before);
    } finally {
      await before.close();
    }
    // As the code before per-run keys left them: one entry for both runs, the second's.
    await writeOldShapeEntries(kvPath, [s.first, s.second]);
    const t = await openTestEnv({ kvPath, dataKey });
    try {
      const prefix = `${s.mine.id}|${s.waybill}|`;
      const found = await t.env.runtime.lookupPrefix(DRIVER_WAYBILL_INDEX, prefix, 10);
      assert.deepEqual(
        found.map((e) => e.key).sort(),
        [prefix + s.first, prefix + s.second].sort(),
      );
      const old = await t.env.runtime.lookup(DRIVER_WAYBILL_INDEX, `${s.mine.id}|${s.waybill}`);
      assert.equal(old, null);
      // The old code's entry was the second run's alone: reassigning that one took it away.
      await post(t, s.courier, `/business/network-runs/${s.second}/driver`, {
        driver_id: s.other.id,
      });
      const kept = await tick(t, s, s.mine.token);
      assert.equal(kept.status, 201, JSON.stringify(kept.body));
      assert.equal((await tick(t, s, s.other.token)).status, 201);
    } finally {
      await t.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("driver access by run: a run reassigned between the driver's read and the step refuses that driver's step (404)", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const [mine, other] = [
      await newDriver(t, courier.business.id),
      await newDriver(t, courier.business.id),
    ];
    const waybill = await bookWaybill(t, client);
    const run = await newRun(t, courier, { driver_id: mine.id });
    await deliverStops(t, courier, run, [waybill]);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id as string;
    const reassign = () =>
      post(t, courier, `/business/network-runs/${run}/driver`, { driver_id: other.id });
    const runtime = runtimeWithGap(t, "stop_deliver", reassign);
    const caller = { tenant: courier.business.id, by: mine.id, scopes: [], driver_id: mine.id };
    const answer = await deliver({ ...t.env, runtime }, caller, run, stop, {}).then(
      () => "recorded",
      (e) => e instanceof Refused ? e.rejection.code : String(e),
    );
    // spec: courier 4.5: a driver is limited to the runs assigned to them, when the step is made.
    assert.equal(answer, "not_found");
    const now = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.equal(now.body.data.stops[0].status, "pending");
    assert.ok(!(await trailOf(t, courier, waybill)).includes("delivered"));
  }));

/**
 * A collect stop of a run stored before errands were one per stop (tests/fixtures/runs_v1: its
 * collection was charged `run.collected:<stop>:<waybill>` then) books no errand more: not when
 * that collection is replayed after a restart (its answer rebuilt from the log), nor when the
 * stop collects another waybill (courier 2.6 rule 2, 6.1 `run.collected:{stop}`, sent once).
 */
import assert from "node:assert/strict";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";
import { DOMESTIC } from "../../helpers/courier.ts";
import { FIXTURE_DATA_KEY } from "../../fixtures/runs_v1/generate.ts";
import type { Kept } from "../../fixtures/runs_v1/scenario.ts";

const FIXTURE = new URL("../../fixtures/runs_v1/", import.meta.url);

/** The errand entries the client's account booked, by source event. */
async function errandsBooked(t: TestEnv, clientId: string): Promise<string[]> {
  const booked: string[] = [];
  for await (const { event } of t.env.runtime.events(courierClientActor, clientId)) {
    const e = event as { kind: string; entry?: { kind: string; source_event: string | null } };
    if (e.kind === "entry_posted" && e.entry?.kind === "errand") {
      booked.push(e.entry.source_event ?? "");
    }
  }
  return booked;
}

Deno.test("runs stored with per-waybill errands: a replayed or further collection at the stop books no errand more", async () => {
  const { made } = JSON.parse(await Deno.readTextFile(new URL("answers.json", FIXTURE))) as Kept;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  await Deno.copyFile(new URL("store.kv", FIXTURE), path);
  const t = await openTestEnv({ kvPath: path, dataKey: await importDataKey(FIXTURE_DATA_KEY) });
  try {
    t.clock.advanceBy(made.now - t.clock.now());
    const key = made.key;
    const stop = made.stops.collect!;
    const run = await t.call("GET", `/business/network-runs/${made.runs.a}`, { key });
    const clientId = run.body.data.stops.find((s: { id: string }) => s.id === stop)
      .work_order.courier_client_id as string;
    const charged = [`run.collected:${stop}:${made.waybills.wb4}`];
    assert.deepEqual(await errandsBooked(t, clientId), charged, "as the stored code charged it");
    const replay = await t.call(
      "POST",
      `/driver/network-runs/${made.runs.a}/stops/${stop}/collect`,
      {
        bearer: made.driver.token,
        body: { idempotency_key: "c4", waybill: made.waybills.wb4 },
      },
    );
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    const booked = await t.call("POST", "/business/shipments", {
      key,
      body: { ...DOMESTIC, courier_client_id: clientId, idempotency_key: "stored-errand-1" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const more = await t.call(
      "POST",
      `/business/network-runs/${made.runs.a}/stops/${stop}/collect`,
      {
        key,
        body: { idempotency_key: "c-more", waybill: booked.body.data.waybill },
      },
    );
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.data.stop.collected.length, 2);
    await t.settle();
    assert.deepEqual(await errandsBooked(t, clientId), charged, "no errand more");
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});

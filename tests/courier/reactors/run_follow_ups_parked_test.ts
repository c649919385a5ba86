/**
 * A run's follow-up refused for good is parked, not tried again every RUN_FOLLOW_UP_RETRY_MS for
 * ever: the run follow-ups reactor does the rest of its batch, keeps the refused one as parked
 * deferred work the operator lists (GET /operator/deferred-work?status=parked) and tells the run
 * the batch is done. A failure (a busy actor, a store error) parks nothing and stays due.
 */
import assert from "node:assert/strict";
import {
  type NetworkRun,
  networkRunActor,
  RUN_FOLLOW_UP_RETRY_MS,
  type RunCommand,
  type StoredRunEvent,
} from "../../../actors/courier/network_run/mod.ts";
import { redoBatches } from "../../../src/courier/flows/runs/mod.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { flakyRuntime } from "../../helpers/faults.ts";
import { advance, until } from "../../helpers/receiver.ts";

const LOAD = { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 };

interface Made {
  readonly tenant: string;
  readonly key: string;
  readonly runId: string;
  readonly waybill: string;
  /** The batch of the departure's custody moves. */
  readonly batch: string;
}

/**
 * A run that departed with a booked shipment (and `other`), asked of the run alone: the departure's
 * custody moves are due, as a crash before the request did them leaves them.
 */
async function departed(t: TestEnv, other: string | null): Promise<Made> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  const waybill = await bookWaybill(t, client);
  const tenant = courier.business.id;
  const runId = `run_${crypto.randomUUID().slice(0, 8)}`;
  const ask = async (command: RunCommand) => {
    const r = await t.env.runtime.ask(networkRunActor, tenant, runId, command);
    assert.ok(r.ok, JSON.stringify(r));
    return r.reply;
  };
  await ask({
    kind: "create",
    run: {
      id: runId,
      courier_id: tenant,
      facility_id: "GBE-HUB",
      kind: "delivery",
      countries: ["BW"],
      capacity: { grams: 100_000, cm3: 1_000_000, pieces: 10, cold_slots: 0 },
      vehicle: "B 123 ABC",
      driver_id: "drv_1",
    },
    by: "ops",
  });
  for (const [n, wb] of [waybill, ...other === null ? [] : [other]].entries()) {
    const stop = {
      id: `s${n}`,
      kind: "deliver" as const,
      waybill: wb,
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: LOAD,
    };
    await ask({ kind: "add_stop", stop, by: "ops" });
  }
  const reply = await ask({ kind: "depart", by: "driver:drv_1" }) as { follow_ups?: string };
  assert.ok(reply.follow_ups, "the departure's custody moves are due");
  return { tenant, key: courier.business.api_key, runId, waybill, batch: reply.follow_ups };
}

async function runOf(t: TestEnv, made: Made): Promise<NetworkRun> {
  const got = await t.env.runtime.read(networkRunActor, made.tenant, made.runId, { kind: "get" });
  assert.ok(got.ok, JSON.stringify(got));
  return got.reply as NetworkRun;
}

async function outForDelivery(t: TestEnv, made: Made): Promise<number> {
  const r = await t.call("GET", `/business/courier/operations/${made.waybill}`, { key: made.key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.trail.filter((e: { event: string }) => e.event === "out_for_delivery").length;
}

async function listed(t: TestEnv, status: "parked" | "waiting") {
  await t.settle();
  const r = await t.call("GET", `/operator/deferred-work?status=${status}`, { operator: true });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.items as {
    worker: string;
    subject: string;
    status: string;
    attempts: number;
    last_error: string | null;
  }[];
}

async function timesDueAgain(t: TestEnv, made: Made): Promise<number> {
  let again = 0;
  for await (const { event } of t.env.runtime.events(networkRunActor, made.runId)) {
    if ((event as StoredRunEvent).kind === "follow_ups_again") again++;
  }
  return again;
}

Deno.test("run follow-ups: one refused for good is parked for the operator and never tried again; the rest of its batch is done", async () => {
  const t = await openTestEnv();
  try {
    // A shipment nobody booked: its custody move is refused (not found), whenever it is tried.
    const made = await departed(t, "WB_NEVER_BOOKED");
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await until(t, async () => (await runOf(t, made)).follow_ups_due?.length === 0, "told done");
    assert.equal(await outForDelivery(t, made), 1, "the booked shipment's move was made");
    const parked = await listed(t, "parked");
    assert.equal(parked.length, 1, JSON.stringify(parked));
    assert.equal(parked[0]!.worker, "run_follow_ups");
    assert.equal(parked[0]!.status, "parked");
    assert.ok(parked[0]!.subject.endsWith(`.network_run.${made.runId}`), parked[0]!.subject);
    assert.match(parked[0]!.last_error ?? "", /^not_found: /);
    assert.deepEqual(await listed(t, "waiting"), []);
    // The run's timer no longer makes it due: nothing is tried again.
    await advance(t, 3 * RUN_FOLLOW_UP_RETRY_MS / 1000);
    await t.settle();
    assert.equal(await timesDueAgain(t, made), 1);
    assert.equal((await listed(t, "parked")).length, 1);
    assert.equal(await outForDelivery(t, made), 1);
  } finally {
    await t.close();
  }
});

Deno.test("run follow-ups: a failure is not parked: the batch stays due and is done when tried again", async () => {
  const t = await openTestEnv();
  try {
    const made = await departed(t, null);
    const isRecord = (type: string, command: unknown) =>
      type === "shipment" && (command as { kind: string }).kind === "record";
    // A busy shipment (actor_busy is a refusal that says "not now") and a store failure.
    for (const refuse of [true, false]) {
      const flaky = flakyRuntime(t.env.runtime, { fails: isRecord, refuse });
      await assert.rejects(redoBatches(flaky.runtime, made.tenant, made.runId, [made.batch]));
      assert.equal(flaky.failed(), 1);
    }
    assert.deepEqual((await runOf(t, made)).follow_ups_due, [made.batch], "still due");
    assert.deepEqual(await listed(t, "parked"), []);
    // The run's timer has the reactor try again: done, each move once.
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 1000);
    await until(t, async () => (await runOf(t, made)).follow_ups_due?.length === 0, "told done");
    assert.equal(await outForDelivery(t, made), 1);
    assert.deepEqual(await listed(t, "parked"), []);
  } finally {
    await t.close();
  }
});

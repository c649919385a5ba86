/**
 * The cold slots a laboratory profile takes on the runs its shipment boarded (courier 2.10: a
 * run's cold slots; 5 runs:override overrides capacity): a profile refused never keeps a slot,
 * however many profiles race for it, and one whose request stopped between taking the slots and
 * the profile is given back by the shipment's sweep.
 */
import assert from "node:assert/strict";
import { COLD_RESERVATION_STALL_MS } from "../../../src/limits.ts";
import { networkRunActor } from "../../../actors/courier/network_run/mod.ts";
import { commandKind, failAsks, holdAsk } from "../../helpers/faults.ts";
import { advance } from "../../helpers/receiver.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Courier } from "../../helpers/courier.ts";
import { deliverStops, newRun, ready } from "./runs_fixtures.ts";

function profile(t: TestEnv, courier: Courier, waybill: string, min: number) {
  return t.call("POST", `/business/shipments/${waybill}/lab/profile`, {
    key: courier.business.api_key,
    body: { sample_type: "blood", min_temp_c: min, max_temp_c: 8 },
  });
}

async function coldSlotsOf(t: TestEnv, courier: Courier, run: string): Promise<number[]> {
  const got = await t.call("GET", `/business/network-runs/${run}`, {
    key: courier.business.api_key,
  });
  assert.equal(got.status, 200, JSON.stringify(got.body));
  return got.body.data.items.map((i: { load: { cold_slots: number } }) => i.load.cold_slots);
}

/** A run with one cold slot, carrying two shipments of one piece each. */
async function oneColdSlot(t: TestEnv) {
  const [courier, client] = await ready(t);
  const run = await newRun(t, courier, {
    capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
  });
  const waybills = [await bookWaybill(t, client), await bookWaybill(t, client)];
  await deliverStops(t, courier, run, waybills);
  return { courier, run, waybills };
}

Deno.test("lab cold slots: two cold profiles racing for the last slot, both refused, leave the slot free", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills: [waybill, other] } = await oneColdSlot(t);
    // The first (two decimals: refused by the sample) took the run's cold slot, then waits.
    const held = holdAsk(t.env.runtime, commandKind("profile", "lab_sample"));
    const first = profile(t, courier, waybill!, 2.55);
    await held.reached;
    const second = await profile(t, courier, waybill!, 2.65);
    held.open();
    for (const r of [second, await first]) {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "invalid_temperature_range");
    }
    // spec: courier 2.10: no sample is cold: the run counts no cold slot, and the other
    // shipment's cold profile takes the slot.
    assert.deepEqual(await coldSlotsOf(t, courier, run), [0, 0]);
    const taken = await profile(t, courier, other!, 2);
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.deepEqual(await coldSlotsOf(t, courier, run), [0, 1]);
  }));

Deno.test("lab cold slots: a profile whose request stopped after taking the slots is given back by the sweep; woken late, it takes them again", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills: [waybill, other] } = await oneColdSlot(t);
    // The request stalls between the slots and the profile, however long the clock moves.
    const held = holdAsk(t.env.runtime, commandKind("profile", "lab_sample"));
    const stalled = profile(t, courier, waybill!, 2);
    await held.reached;
    assert.deepEqual(await coldSlotsOf(t, courier, run), [1, 0]);
    await advance(t, COLD_RESERVATION_STALL_MS / 1000 + 1);
    await t.env.runtime.outboxesIdle();
    // spec: courier 2.10: a slot held by no cold sample is given back.
    assert.deepEqual(await coldSlotsOf(t, courier, run), [0, 0]);
    // Woken after the sweep, the profile is set and its sample kept cold: it takes the slot again.
    held.open();
    const late = await stalled;
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.deepEqual(await coldSlotsOf(t, courier, run), [1, 0]);
    const refused = await profile(t, courier, other!, 2);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "capacity_exceeded");
  }));

Deno.test("lab cold slots: a release a crash cut short before the runs heard it is completed by the sweep", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills: [waybill] } = await oneColdSlot(t);
    assert.equal((await profile(t, courier, waybill!, 2)).status, 200);
    assert.deepEqual(await coldSlotsOf(t, courier, run), [1, 0]);
    // The process dies after the index released the slots, before any run heard it.
    const stop = failAsks(t.env.runtime, (type, command) => {
      const c = command as { kind?: string; cold?: boolean };
      return type === networkRunActor.type && c.kind === "cold_chain" && c.cold === false;
    });
    const warm = await t.call("POST", `/business/shipments/${waybill}/lab/profile`, {
      key: courier.business.api_key,
      body: { sample_type: "blood", min_temp_c: null, max_temp_c: null },
    });
    stop();
    assert.equal(warm.status, 500, JSON.stringify(warm.body));
    assert.deepEqual(await coldSlotsOf(t, courier, run), [1, 0]);
    await advance(t, COLD_RESERVATION_STALL_MS / 1000 + 1);
    await t.env.runtime.outboxesIdle();
    // spec: courier 2.10: the sample is not cold: its slot is given back.
    assert.deepEqual(await coldSlotsOf(t, courier, run), [0, 0]);
  }));

Deno.test("lab cold slots: a shipment boarding while its cold profile is refused gets its slot back from the sweep", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, {
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 1 },
    });
    const waybill = await bookWaybill(t, client);
    // The profile (refused by the sample) has reserved, then waits; the stop boarding the
    // shipment meanwhile sees the reservation and brings the piece aboard cold, then waits.
    const profiling = holdAsk(t.env.runtime, commandKind("profile", "lab_sample"));
    const refusing = profile(t, courier, waybill, 2.55);
    await profiling.reached;
    const boarding = holdAsk(t.env.runtime, commandKind("add_stop", networkRunActor.type));
    const stop = t.call("POST", `/business/network-runs/${run}/stops`, {
      key: courier.business.api_key,
      body: { kind: "deliver", waybill },
    });
    await boarding.reached;
    // The refusal gives the slots back before the run has the item.
    profiling.open();
    assert.equal((await refusing).status, 422);
    boarding.open();
    assert.equal((await stop).status, 201);
    // Until the sweep tells the run of the release again, it counts the piece's slot.
    assert.deepEqual(await coldSlotsOf(t, courier, run), [1]);
    await advance(t, COLD_RESERVATION_STALL_MS / 1000 + 1);
    await t.env.runtime.outboxesIdle();
    // spec: courier 2.10: no sample is cold: the run counts no cold slot.
    assert.deepEqual(await coldSlotsOf(t, courier, run), [0]);
  }));

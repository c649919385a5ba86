/**
 * The cold-chain charge of a laboratory sample (courier 2.6 rules 2, 3; 2.10): booked from the
 * sample's own committed profile, so none is lost when the request that set a cold-chain profile
 * dies before its charge (here: the profile is recorded on the sample's actor directly, as if the
 * request stopped right after the commit), and a booking that fails is made again at the sample's
 * retry, once.
 */
import assert from "node:assert/strict";
import { type LabSample, labSampleActor } from "../../../actors/courier/lab_sample/mod.ts";
import { bookColdChain } from "../../../src/courier/flows/lab.ts";
import { LabCharges } from "../../../src/courier/reactors/lab_charges.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Courier, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";

interface Booked {
  readonly courier: Courier;
  readonly waybill: string;
}

/** A courier charging 45 BWP for the cold chain and one booked shipment. */
async function booked(t: TestEnv): Promise<Booked> {
  const courier = await newCourier(t, { cold_chain_fee: 45 });
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return { courier, waybill: await bookWaybill(t, client) };
}

/** Sets a cold-chain profile on the sample's actor alone: committed, with no request to book. */
async function profileOnly(t: TestEnv, b: Booked): Promise<void> {
  const r = await t.env.runtime.ask(labSampleActor, b.courier.business.id, b.waybill, {
    kind: "profile",
    waybill: b.waybill,
    courier_id: b.courier.business.id,
    profile: {
      sample_type: "blood",
      laboratory: null,
      min_temp_c: 2,
      max_temp_c: 8,
      deadline_at: null,
      seal_id: null,
      checklist: null,
    },
    by: "ops@example.com",
  });
  assert.ok(r.ok, JSON.stringify(r));
}

async function chargesOf(t: TestEnv, b: Booked): Promise<[string, number, string | null][]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", b.courier.business.id)
    .where("kind", "=", "cold_chain")
    .orderBy("seq")
    .execute();
  return rows.map((r) => [r.reference, Number(r.amount_minor), r.source_event]);
}

async function chargesDueOf(t: TestEnv, b: Booked): Promise<string[]> {
  const r = await t.env.runtime.ask(labSampleActor, b.courier.business.id, b.waybill, {
    kind: "get",
  });
  assert.ok(r.ok);
  return ((r.reply as LabSample).charges_due ?? []).map((c) => c.source_event);
}

function charge(b: Booked): [string, number, string] {
  return [`COLD-${b.waybill}`, 4500, `sample.cold_chain:${b.waybill}`];
}

Deno.test("lab charges: a cold-chain profile whose request died before its charge is booked once", () =>
  withTestEnv(async (t) => {
    const b = await booked(t);
    await profileOnly(t, b);
    await until(
      t,
      async () => (await chargesOf(t, b)).length === 1 && (await chargesDueOf(t, b)).length === 0,
      "the cold-chain charge booked and confirmed",
    );
    assert.deepEqual(await chargesOf(t, b), [charge(b)]);
    // Nothing is due any more: the retry books nothing again.
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    assert.deepEqual(await chargesOf(t, b), [charge(b)]);
  }));

Deno.test("lab charges: a cold-chain booking that fails stays due and is booked at the sample's retry", () =>
  withTestEnv(async (t) => {
    const b = await booked(t);
    await t.env.reactors["lab_charges"]!.close();
    let failures = 1;
    const errors: string[] = [];
    const flaky = new LabCharges({
      runtime: t.env.runtime,
      bus: t.env.bus,
      book: (...args) =>
        failures-- > 0 ? Promise.reject(new Error("ledger unreachable")) : bookColdChain(...args),
      onError: (e, where) => errors.push(`${where}: ${(e as Error).message}`),
    });
    try {
      await profileOnly(t, b);
      await t.env.bus.flush();
      assert.deepEqual(errors, [`charge sample.cold_chain:${b.waybill}: ledger unreachable`]);
      assert.deepEqual(await chargesOf(t, b), []);
      assert.deepEqual(await chargesDueOf(t, b), [`sample.cold_chain:${b.waybill}`]);
      await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
      await until(t, async () => (await chargesDueOf(t, b)).length === 0, "the charge confirmed");
      assert.deepEqual(await chargesOf(t, b), [charge(b)]);
      assert.equal(errors.length, 1);
      await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
      assert.deepEqual(await chargesOf(t, b), [charge(b)]);
    } finally {
      await flaky.close();
    }
  }));

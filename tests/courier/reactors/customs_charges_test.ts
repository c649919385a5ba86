/**
 * Customs-administration charges (courier 2.6 rules 2, 3): a clearance's fee is booked from the
 * crossing's own committed events, so none is lost when the request that recorded the clearance
 * dies before its fee (here: the clearance is recorded on the crossing actor directly, as if the
 * request stopped right after the commit), and a booking that fails is made again at the
 * crossing's retry, once.
 */
import assert from "node:assert/strict";
import {
  type Crossing,
  customsCrossingActor,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { openCrossing } from "../../../src/courier/flows/customs.ts";
import { bookCrossingCharge } from "../../../src/courier/flows/customs_charges.ts";
import { CustomsCharges } from "../../../src/courier/reactors/customs_charges.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";

interface Presented {
  readonly courier: Courier;
  readonly crossing: string;
}

/** A courier charging 75 BWP a clearance and one cross-border shipment presented at the border. */
async function presented(t: TestEnv): Promise<Presented> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  const waybill = await bookWaybill(t, client, { ...DOMESTIC, to_country: "ZA" });
  const crossing = await openCrossing(t.env.runtime, courier.business.id, {
    waybill,
    country: "BW",
    to_country: "ZA",
    border_post: "Tlokweng",
    run_id: "run_test",
    stop_id: "stop_tlokweng",
    by: "driver:test",
  });
  return { courier, crossing };
}

/** Clears the crossing on its actor alone: committed, with no request to book the fee. */
async function clearOnly(t: TestEnv, p: Presented): Promise<void> {
  const r = await t.env.runtime.ask(customsCrossingActor, p.courier.business.id, p.crossing, {
    kind: "move",
    move: { action: "clear", customs_reference: "SARS-1", by: "customs@example.com" },
  });
  assert.ok(r.ok, JSON.stringify(r));
}

async function feesOf(t: TestEnv, p: Presented): Promise<[string, number, string | null][]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", p.courier.business.id)
    .where("kind", "=", "customs_admin")
    .orderBy("seq")
    .execute();
  return rows.map((r) => [r.reference, Number(r.amount_minor), r.source_event]);
}

async function chargesDueOf(t: TestEnv, p: Presented): Promise<string[]> {
  const r = await t.env.runtime.ask(customsCrossingActor, p.courier.business.id, p.crossing, {
    kind: "get",
  });
  assert.ok(r.ok && r.reply.kind === "crossing");
  return ((r.reply.crossing as Crossing).charges_due ?? []).map((c) => c.source_event);
}

function fee(p: Presented): [string, number, string] {
  return [`CUS-${p.crossing}`, 7500, `customs.cleared:${p.crossing}`];
}

Deno.test("customs charges: a clearance whose request died before its fee is booked once", () =>
  withTestEnv(async (t) => {
    const p = await presented(t);
    await clearOnly(t, p);
    await until(
      t,
      async () => (await feesOf(t, p)).length === 1 && (await chargesDueOf(t, p)).length === 0,
      "the clearance fee booked and confirmed",
    );
    assert.deepEqual(await feesOf(t, p), [fee(p)]);
    // Nothing is due any more: the retry books nothing again.
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    assert.deepEqual(await feesOf(t, p), [fee(p)]);
  }));

Deno.test("customs charges: a booking that fails stays due and is booked at the crossing's retry", () =>
  withTestEnv(async (t) => {
    const p = await presented(t);
    // This process's booker fails its first booking (the ledger unreachable for a moment).
    await t.env.reactors["customs_charges"]!.close();
    let failures = 1;
    const errors: string[] = [];
    const flaky = new CustomsCharges({
      runtime: t.env.runtime,
      bus: t.env.bus,
      book: (...args) =>
        failures-- > 0
          ? Promise.reject(new Error("ledger unreachable"))
          : bookCrossingCharge(...args),
      onError: (e, where) => errors.push(`${where}: ${(e as Error).message}`),
    });
    try {
      await clearOnly(t, p);
      await t.env.bus.flush();
      assert.deepEqual(errors, [`charge customs.cleared:${p.crossing}: ledger unreachable`]);
      assert.deepEqual(await feesOf(t, p), []);
      assert.deepEqual(await chargesDueOf(t, p), [`customs.cleared:${p.crossing}`]);
      // Still due one retry later: booked, once, and confirmed.
      await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
      await until(
        t,
        async () => (await chargesDueOf(t, p)).length === 0,
        "the clearance fee confirmed",
      );
      assert.deepEqual(await feesOf(t, p), [fee(p)]);
      assert.equal(errors.length, 1);
      await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
      assert.deepEqual(await feesOf(t, p), [fee(p)]);
    } finally {
      await flaky.close();
    }
  }));

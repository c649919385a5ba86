/**
 * The customs flows (courier 2.6 rule 3, 2.9, 3.2, 4.5), called without HTTP: what a customs move
 * does to the shipment and the client's account, once however often it is sent, and the
 * crossings a shipment lists.
 */
import assert from "node:assert/strict";
import { asShipment, type Shipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import {
  bookingCrossingIdOf,
  crossingsOfShipment,
  openCrossing,
} from "../../../src/courier/flows/customs.ts";
import { moveCrossing } from "../../../src/courier/flows/customs_moves.ts";
import { type ActorChange, subjectPattern } from "../../../src/bus/bus.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

const CROSS_BORDER = { ...DOMESTIC, to_country: "ZA", recipient_address: "12 Long St, Rustenburg" };

/** A courier charging 75 BWP a clearance, one cross-border shipment presented at the border. */
async function presented(
  t: TestEnv,
): Promise<{ courier: Courier; tenant: string; waybill: string; crossing: string }> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  const waybill = await bookWaybill(t, client, CROSS_BORDER);
  const tenant = courier.business.id;
  const crossing = await openCrossing(t.env.runtime, tenant, {
    waybill,
    country: "BW",
    to_country: "ZA",
    border_post: "Tlokweng",
    run_id: "run_test",
    stop_id: "stop_tlokweng",
    by: "driver:test",
  });
  return { courier, tenant, waybill, crossing };
}

async function shipmentOf(t: TestEnv, tenant: string, waybill: string): Promise<Shipment> {
  const r = await t.env.runtime.read(shipmentActor, tenant, waybill, { kind: "get" });
  assert.ok(r.ok);
  return asShipment(r.reply);
}

async function entriesOf(t: TestEnv, tenant: string, kind: string): Promise<[string, number][]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", tenant)
    .where("kind", "=", kind)
    .orderBy("seq")
    .execute();
  return rows.map((r) => [r.reference, Number(r.amount_minor)]);
}

Deno.test("customs moves flow: a hold answered again after the clearance puts nothing back on hold", () =>
  withTestEnv(async (t) => {
    const { tenant, waybill, crossing } = await presented(t);
    const runtime = t.env.runtime;
    const hold = { action: "hold", reason: "inspection", by: "customs" } as const;
    const held = await moveCrossing(runtime, tenant, crossing, hold);
    assert.equal(held.replayed, false);
    await moveCrossing(runtime, tenant, crossing, {
      action: "clear",
      customs_reference: "SARS-1",
      by: "customs",
    });
    const again = await moveCrossing(runtime, tenant, crossing, hold);
    assert.equal(again.replayed, true);
    assert.equal(again.move.n, held.move.n);
    assert.equal(again.charge_reference, null);
    const s = await shipmentOf(t, tenant, waybill);
    const events = s.trail.map((e) => e.event);
    assert.equal(events.filter((e) => e === "customs_hold").length, 1);
    assert.equal(events.at(-1), "cleared");
  }));

Deno.test("customs moves flow: a move's changes name the request it was asked for, the shipment's too", () =>
  withTestEnv(async (t) => {
    const { tenant, waybill, crossing } = await presented(t);
    const heard: ActorChange[] = [];
    const sub = t.env.bus.subscribe(subjectPattern(t.env.runtime.busPrefix, tenant, "*"), (m) => {
      heard.push(m.payload as ActorChange);
    });
    try {
      const hold = { action: "hold", reason: "inspection", by: "customs" } as const;
      await moveCrossing(t.env.runtime, tenant, crossing, hold, "req-hold");
      await t.env.bus.flush();
    } finally {
      sub.unsubscribe();
    }
    const named = (id: string) => heard.filter((c) => c.id === id).map((c) => c.request_id);
    assert.deepEqual(named(crossing), ["req-hold"]);
    assert.deepEqual(named(waybill), ["req-hold"]);
  }));

Deno.test("customs moves flow: a clearance sent twice books its fee once and names it both times", () =>
  withTestEnv(async (t) => {
    const { tenant, crossing } = await presented(t);
    const clear = { action: "clear", customs_reference: "SARS-1", by: "customs" } as const;
    const first = await moveCrossing(t.env.runtime, tenant, crossing, clear);
    const again = await moveCrossing(t.env.runtime, tenant, crossing, clear);
    assert.equal(first.charge_reference, `CUS-${crossing}`);
    assert.equal(again.charge_reference, `CUS-${crossing}`);
    assert.equal(again.replayed, true);
    assert.deepEqual(await entriesOf(t, tenant, "customs_admin"), [[`CUS-${crossing}`, 7500]]);
  }));

Deno.test("customs moves flow: duties another payer settles are kept on the crossing, not charged to the client", () =>
  withTestEnv(async (t) => {
    const { tenant, crossing } = await presented(t);
    const r = await moveCrossing(t.env.runtime, tenant, crossing, {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "recipient",
      evidence: "SARS receipt 77",
      by: "customs",
    });
    assert.equal(r.charge_reference, null);
    assert.deepEqual(r.crossing.duties.map((d) => [d.amount_minor, d.payer]), [[
      12550,
      "recipient",
    ]]);
    assert.deepEqual(await entriesOf(t, tenant, "duties"), []);
  }));

Deno.test("customs flow: a cross-border shipment lists its booking crossing before the query side has it", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const tenant = courier.business.id;
    const abroad = await shipmentOf(t, tenant, await bookWaybill(t, client, CROSS_BORDER));
    const listed = await crossingsOfShipment(t.env.runtime, tenant, abroad, []);
    assert.deepEqual(listed.map((c) => c.id), [bookingCrossingIdOf(tenant, abroad.waybill)]);
    const home = await shipmentOf(t, tenant, await bookWaybill(t, client));
    assert.deepEqual(await crossingsOfShipment(t.env.runtime, tenant, home, []), []);
  }));

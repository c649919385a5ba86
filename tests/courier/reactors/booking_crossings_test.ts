/**
 * The crossing of a cross-border booking (CONTRACT customs: one crossing at booking) is opened
 * from the shipment's own `shipment_booked` event too: a booking whose process stopped between
 * its shipment and its crossing still gets it, once, before any border stop; a try that comes
 * after a border stop opened a crossing of its own (deferred for hours) opens no second one.
 */
import assert from "node:assert/strict";
import { customsCrossingActor } from "../../../actors/courier/customs_crossing/mod.ts";
import { type Shipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { bookingCrossingIdOf, openCrossing } from "../../../src/courier/flows/customs.ts";
import { BookingCrossings } from "../../../src/courier/reactors/booking_crossings.ts";
import { type BusMessage, subjectPattern } from "../../../src/bus/bus.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, DOMESTIC, newClient, newCourier, topUp } from "../../helpers/courier.ts";

const CROSS_BORDER = { ...DOMESTIC, to_country: "ZA", recipient_address: "12 Long St, Rustenburg" };

/** A cross-border booking made through the API, and its shipment as stored. */
async function crossBorderBooking(t: TestEnv) {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "1000");
  const tenant = courier.business.id;
  const made = await bookWaybill(t, client, CROSS_BORDER);
  const got = await t.env.runtime.ask(shipmentActor, tenant, made, { kind: "get" });
  assert.ok(got.ok);
  return { courier, tenant, made, booking: got.reply as Shipment };
}

Deno.test("booking crossings: a shipment whose request stopped before its crossing gets it from its booking event, once", () =>
  withTestEnv(async (t) => {
    const { courier, tenant, made, booking } = await crossBorderBooking(t);
    // The same booking under other waybills, as the shipment's commit alone leaves it: the
    // request (or the stalled-booking sweep) that made it stopped before opening the crossing.
    const bookAlone = async (waybill: string, to_country: string) => {
      const r = await t.env.runtime.ask(shipmentActor, tenant, waybill, {
        kind: "book",
        shipment: { ...booking, waybill, to_country, tracking_token_hash: `hash-${waybill}` },
      });
      assert.ok(r.ok, JSON.stringify(r));
    };
    await bookAlone(`${made}-B`, "ZA");
    await bookAlone(`${made}-D`, "BW");
    await t.settle();

    const crossing = async (waybill: string) =>
      await t.env.runtime.ask(
        customsCrossingActor,
        tenant,
        bookingCrossingIdOf(tenant, waybill),
        { kind: "get" },
      );
    const opened = await crossing(`${made}-B`);
    assert.ok(opened.ok, JSON.stringify(opened));
    const listed = await t.call("GET", `/business/shipments/${made}-B/customs`, {
      key: courier.business.api_key,
    });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.data.crossings.map((c: { id: string; country: string; to_country: string }) => [
        c.id,
        c.country,
        c.to_country,
      ]),
      [[bookingCrossingIdOf(tenant, `${made}-B`), "BW", "ZA"]],
      "one crossing, from booking",
    );
    assert.equal((await crossing(`${made}-D`)).ok, false, "a domestic shipment crosses nothing");
  }));

Deno.test("booking crossings: a late try after a border stop opened a crossing opens no second one", () =>
  withTestEnv(async (t) => {
    const { courier, tenant, made, booking } = await crossBorderBooking(t);
    // The environment's own opener is down: the booking's crossing waits (a deferred try).
    await t.env.reactors["booking_crossings"]!.close();
    const booked: BusMessage[] = [];
    const sub = t.env.bus.subscribe(
      subjectPattern(t.env.runtime.busPrefix, "*", shipmentActor.type),
      (m) => void booked.push(m),
    );
    const waybill = `${made}-LATE`;
    const r = await t.env.runtime.ask(shipmentActor, tenant, waybill, {
      kind: "book",
      shipment: { ...booking, waybill, tracking_token_hash: "hash-late" },
    });
    assert.ok(r.ok);
    await t.env.bus.flush();
    sub.unsubscribe();
    // The first border stop comes first: a crossing of its own.
    const atStop = await openCrossing(t.env.runtime, tenant, {
      waybill,
      country: "BW",
      to_country: "ZA",
      border_post: "Tlokweng",
      run_id: "run_test",
      stop_id: "stop_tlokweng",
      by: "driver:test",
    });
    // Then the booking's crossing is tried at last.
    const late = new BookingCrossings({ runtime: t.env.runtime, bus: t.env.bus });
    try {
      const message = booked.find((m) => m.subject.endsWith(waybill))!;
      await t.env.bus.publish(message.subject, message.payload);
      await t.settle();
    } finally {
      await late.close();
    }
    const listed = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(
      listed.body.data.crossings.map((c: { id: string }) => c.id),
      [atStop],
      "one crossing: the border stop's",
    );
  }));

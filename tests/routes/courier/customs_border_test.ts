/**
 * A crossing from booking to the border (courier 2.9, 2.10, 3.2): one crossing from booking that
 * the first border stop presents, a clearance before the border stop leaving nothing open, the
 * release after the vehicle left awaiting collection, entry only after exit.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, grantScopes } from "../../helpers/courier.ts";
import { until } from "../../helpers/receiver.ts";
import { recordCrossing, vehicleLeft } from "../../../src/courier/flows/customs.ts";
import { asApiError } from "../../../src/http/errors.ts";
import {
  alerts,
  billingEvent,
  CROSS_BORDER,
  crossings,
  ledger,
  move,
  present,
  presented,
  ready,
  shipment,
  supply,
} from "./customs_fixtures.ts";

Deno.test("customs: a release after the vehicle left awaits collection; entry only after exit", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill, id } = await presented(t, { customs: true });
    const tenant = courier.business.id;

    await assert.rejects(
      () => recordCrossing(t.env.runtime, tenant, id, "entry", "driver:test"),
      (e: unknown) => asApiError(e)?.code === "entry_before_exit" && asApiError(e)?.status === 422,
    );
    await recordCrossing(t.env.runtime, tenant, id, "exit", "driver:test");
    const crossed = await recordCrossing(t.env.runtime, tenant, id, "entry", "driver:test");
    assert.ok(crossed.exit_at !== null && crossed.entry_at !== null);
    assert.ok(crossed.exit_at <= crossed.entry_at);

    await move(t, courier, id, { action: "hold", reason: "inspection" });
    const left = await vehicleLeft(t.env.runtime, tenant, id, "driver:test");
    assert.notEqual(left.vehicle_left_at, null);
    const released = await move(t, courier, id, { action: "release", evidence: "release RN-5" });
    assert.equal(released.data.status, "released");
    assert.equal(released.data.released_after_departure, true);
    await until(
      t,
      async () => (await alerts(t, courier, "released_awaiting_collection")).length === 1,
      "released awaiting collection",
    );
    const [alert] = await alerts(t, courier, "released_awaiting_collection");
    assert.equal(alert!.waybill, waybill);
    assert.equal(alert!.owner, "courier");
    assert.equal((await shipment(t, courier, waybill)).status, "cleared");
    // Its detail states the release time as every answer does (ISO 8601), as the crossing does.
    const [crossing] = await crossings(t, courier, waybill);
    assert.match(alert!.detail.released_at ?? "", /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(alert!.detail.released_at, crossing!.released_at);
    // A release repeated raises nothing new; clearance may still follow a release.
    await move(t, courier, id, { action: "release", evidence: "release RN-5" });
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-5" });
    await billingEvent(t, courier, `customs.cleared:${id}`);

    // Released before the vehicle left: nothing awaits collection.
    const second = await bookWaybill(t, client, CROSS_BORDER);
    const other = await present(t, courier, second);
    await move(t, courier, other, { action: "release", evidence: "release RN-6" });
    await vehicleLeft(t.env.runtime, tenant, other, "driver:test");
    await t.settle();
    assert.equal((await alerts(t, courier, "released_awaiting_collection")).length, 1);

    const [c] = await crossings(t, courier, waybill);
    assert.notEqual(c!.exit_at, null);
    assert.notEqual(c!.entry_at, null);
    assert.notEqual(c!.vehicle_left_at, null);

    // Cleared while the vehicle had gone on, then released to be collected: the release follows
    // the clearance too; once both happened only duties do.
    const third = await bookWaybill(t, client, CROSS_BORDER);
    const xing = await present(t, courier, third);
    await vehicleLeft(t.env.runtime, tenant, xing, "driver:test");
    await move(t, courier, xing, { action: "clear", customs_reference: "SARS-7" });
    const out = await move(t, courier, xing, { action: "release", evidence: "release RN-7" });
    assert.equal(out.data.status, "released");
    await until(
      t,
      async () => (await alerts(t, courier, "released_awaiting_collection")).length === 2,
      "the cleared one released awaits collection too",
    );
    const again = await move(
      t,
      courier,
      xing,
      { action: "clear", customs_reference: "SARS-8" },
      422,
    );
    assert.equal(again.code, "crossing_closed");
    await move(t, courier, xing, {
      action: "duties",
      amount: "10.00",
      currency: "BWP",
      payer: "client",
      evidence: "receipt 7",
    });
  }));

Deno.test("customs: a cross-border shipment has one crossing from booking, worked before any run; the first border stop presents that crossing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    // Listed as soon as the booking answered, before the projection writes it.
    const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [booked, ...none] = r.body.data.crossings;
    assert.deepEqual(none, []);
    assert.match(booked.id, /^xing_[0-9a-f]{24}$/);
    assert.equal(booked.status, "presented");
    assert.equal(booked.country, "BW");
    assert.equal(booked.to_country, "ZA");
    // Nothing happened at a border yet: the shipment is not with customs.
    assert.equal((await shipment(t, courier, waybill)).status, "booked");
    assert.equal((await crossings(t, courier, waybill)).length, 1, "projected once");

    // Papers can be worked from booking on.
    await supply(t, courier, booked.id, ["commercial_invoice"]);
    // The first border stop presents the same crossing: no second one, no second clearance.
    assert.equal(await present(t, courier, waybill), booked.id);
    assert.equal(await present(t, courier, waybill), booked.id, "the same stop again");
    const [atStop, ...noMore] = await crossings(t, courier, waybill);
    assert.deepEqual(noMore, []);
    assert.equal(atStop!.border_post, "Tlokweng");
    assert.deepEqual([atStop!.country, atStop!.to_country], ["BW", "ZA"]);
    assert.deepEqual(atStop!.documents.map((d) => d.name), ["commercial_invoice"]);
    await move(t, courier, booked.id, { action: "clear", customs_reference: "ZA-CUS-1" });
    await move(t, courier, booked.id, { action: "clear", customs_reference: "ZA-CUS-1" });
    assert.deepEqual(
      (await ledger(t, courier, "customs_admin")).map((e) => e.source_event),
      [`customs.cleared:${booked.id}`],
    );
    // Another border later on is a crossing of its own.
    const onward = await present(t, courier, waybill, "stop_ramatlabama");
    assert.notEqual(onward, booked.id);
    assert.equal((await crossings(t, courier, waybill)).length, 2);

    // Bound for Mozambique through South Africa: the first border stop's crossing is BW to ZA.
    const transit = await bookWaybill(t, client, { ...CROSS_BORDER, to_country: "MZ" });
    const [toMz] = await crossings(t, courier, transit);
    assert.deepEqual([toMz!.country, toMz!.to_country], ["BW", "MZ"]);
    assert.equal(await present(t, courier, transit), toMz!.id);
    const [atBorder] = await crossings(t, courier, transit);
    assert.deepEqual([atBorder!.country, atBorder!.to_country], ["BW", "ZA"]);

    // A domestic shipment crosses nothing.
    const domestic = await bookWaybill(t, client);
    assert.deepEqual(await crossings(t, courier, domestic), []);
  }));

Deno.test("customs: a crossing cleared before the border stop presents it leaves nothing open with customs", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const customsObligations = async (waybill: string) =>
      (await shipment(t, courier, waybill)).obligations.filter((o) =>
        o.milestone.startsWith("customs")
      );
    // Customs clears (or releases) the shipment on its booking crossing before it reaches the
    // border: pre-arrival processing.
    for (
      const body of [
        { action: "clear", customs_reference: "PRE-1" },
        { action: "release", evidence: "pre-arrival release PRE-2" },
      ]
    ) {
      const waybill = await bookWaybill(t, client, CROSS_BORDER);
      const [booked] = await crossings(t, courier, waybill);
      await move(t, courier, booked!.id, body);
      assert.equal((await shipment(t, courier, waybill)).status, "cleared");
      // The border stop presents it: custody moves to the and customs owes nothing more
      // (courier 3.2: customs_clearance closes when cleared or released).
      assert.equal(await present(t, courier, waybill), booked!.id);
      const s = await shipment(t, courier, waybill);
      assert.deepEqual(await customsObligations(waybill), [], JSON.stringify(body));
      assert.notEqual(s.health, "waiting_customs", JSON.stringify(body));
      assert.equal(s.status, "cleared", JSON.stringify(body));
      assert.equal(s.trail.filter((e) => e.event === "presented_to_customs").length, 1);
      // Presented again (a retry): nothing more.
      await present(t, courier, waybill);
      assert.deepEqual(await customsObligations(waybill), []);
      assert.equal(
        (await shipment(t, courier, waybill)).trail.length,
        s.trail.length,
        "a retry records nothing",
      );
    }
  }));

Deno.test("customs: a crossing refused before the border stop presents it leaves nothing waiting on customs", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const [booked] = await crossings(t, courier, waybill);
    await move(t, courier, booked!.id, { action: "refuse", reason: "prohibited goods" });
    // The border stop presents it all the same: customs' answer stands (courier 3.2, 2.9: no
    // customs_clearance open for a refusal, so no customs wait runs over).
    assert.equal(await present(t, courier, waybill), booked!.id);
    const s = await shipment(t, courier, waybill);
    assert.deepEqual(s.obligations.filter((o) => o.milestone.startsWith("customs")), []);
    assert.equal(s.exception?.reason, "customs refused: prohibited goods");
    await present(t, courier, waybill);
    assert.equal((await shipment(t, courier, waybill)).trail.length, s.trail.length);
  }));

Deno.test("customs: a crossing customs holds before the border stop presents it reads held once presented", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    for (
      const body of [
        { action: "hold", reason: "x-ray inspection" },
        { action: "request_documents", reason: "commercial invoice missing" },
      ]
    ) {
      const waybill = await bookWaybill(t, client, CROSS_BORDER);
      const [booked] = await crossings(t, courier, waybill);
      await move(t, courier, booked!.id, body);
      // spec: courier 3.2, 3.4: presented, it is still held by customs: its headline says so.
      assert.equal(await present(t, courier, waybill), booked!.id);
      const s = await shipment(t, courier, waybill);
      assert.equal(s.status, "customs_hold", JSON.stringify(body));
      assert.ok(s.obligations.some((o) => o.milestone === "customs_clearance"));
      await present(t, courier, waybill);
      assert.equal((await shipment(t, courier, waybill)).trail.length, s.trail.length);
    }
  }));

/**
 * Later charges caused by scans (courier 2.6 rules 2, 3): a redelivery or a return is booked
 * from the shipment's own committed events, so none is lost when the request that recorded the
 * scan dies before its charge (here: the scan is recorded on the actor directly, as if the
 * request stopped right after the commit); it books once alongside the request's own booking,
 * and a booking that fails is made again at the shipment's retry.
 */
import assert from "node:assert/strict";
import {
  type Shipment,
  shipmentActor,
  type ShipmentEvent,
} from "../../../actors/courier/shipment/mod.ts";
import { bookScanCharge } from "../../../src/courier/flows/later_charges.ts";
import { ScanCharges } from "../../../src/courier/reactors/scan_charges.ts";
import type { ScanEvent } from "../../../src/courier/rules/lifecycle.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";

interface Booked {
  readonly courier: Courier;
  readonly client: Client;
  readonly waybill: string;
}

/** A courier charging 25 BWP a redelivery and 40 a return, and one booked shipment. */
async function ready(t: TestEnv): Promise<Booked> {
  const courier = await newCourier(t, { redelivery_fee: 25, return_fee: 40 });
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return { courier, client, waybill: await bookWaybill(t, client) };
}

/** Records scans on the shipment actor alone: committed, with no request to book a charge. */
async function recordOnly(t: TestEnv, b: Booked, events: readonly ScanEvent[]): Promise<void> {
  for (const event of events) {
    const r = await t.env.runtime.ask(shipmentActor, b.courier.business.id, b.waybill, {
      kind: "record",
      scan: { event, by: "ops@example.com" },
    });
    assert.ok(r.ok, JSON.stringify(r));
  }
}

/** Records scans through the operations API, which books each charge before answering. */
async function scanned(t: TestEnv, b: Booked, events: readonly ScanEvent[]): Promise<void> {
  for (const event of events) {
    const r = await t.call("POST", `/business/courier/shipments/${b.waybill}/scans`, {
      key: b.courier.business.api_key,
      body: { event },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
}

/** The client's redelivery and return entries: reference, amount, source event. */
async function scanChargesOf(t: TestEnv, b: Booked): Promise<[string, number, string | null][]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", b.courier.business.id)
    .where("client_id", "=", b.client.id)
    .where("kind", "in", ["redelivery", "return"])
    .orderBy("seq")
    .execute();
  return rows.map((r) => [r.reference, Number(r.amount_minor), r.source_event]);
}

async function chargesDueOf(t: TestEnv, b: Booked): Promise<string[]> {
  const r = await t.env.runtime.ask(shipmentActor, b.courier.business.id, b.waybill, {
    kind: "get",
  });
  assert.ok(r.ok);
  return ((r.reply as Shipment).charges_due ?? []).map((c) => c.source_event);
}

/** Waits until the background path has booked `references` and the shipment owes nothing more. */
async function booked(t: TestEnv, b: Booked, references: readonly string[]): Promise<void> {
  await until(t, async () => {
    const refs = (await scanChargesOf(t, b)).map(([reference]) => reference);
    return references.every((r) => refs.includes(r)) && (await chargesDueOf(t, b)).length === 0;
  }, `${references.join(", ")} booked and confirmed`);
}

function redelivery(waybill: string, attempt: number): [string, number, string] {
  return [`RDL-${waybill}-${attempt}`, 2500, `shipment.redelivery:${waybill}:${attempt}`];
}

Deno.test("scan charges: a redelivery whose request died after the scan is booked once", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    await recordOnly(t, b, ["out_for_delivery", "delivery_attempted", "out_for_delivery"]);
    await booked(t, b, [`RDL-${b.waybill}-1`]);
    assert.deepEqual(await scanChargesOf(t, b), [redelivery(b.waybill, 1)]);
    // Nothing is due any more: the retry books nothing again.
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    assert.deepEqual(await scanChargesOf(t, b), [redelivery(b.waybill, 1)]);
  }));

Deno.test("scan charges: a return whose request died after the scan is booked once, without its completion event", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    // The completion event, which also books the return, fails here: the charge does not hang on it.
    await t.env.reactors["billing_events"]!.close();
    await recordOnly(t, b, ["out_for_delivery", "delivery_attempted", "returning", "returned"]);
    await booked(t, b, [`RET-${b.waybill}`]);
    assert.deepEqual(await scanChargesOf(t, b), [
      [`RET-${b.waybill}`, 4000, `shipment.return:${b.waybill}`],
    ]);
  }));

Deno.test("scan charges: each redelivery of fail, out, fail, out, delivered is booked once with no request booking", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    await recordOnly(t, b, [
      "out_for_delivery",
      "delivery_attempted",
      "out_for_delivery", // redelivery 1
      "delivery_attempted",
      "out_for_delivery", // redelivery 2
      "delivered", // still redelivery 2
    ]);
    await booked(t, b, [`RDL-${b.waybill}-1`, `RDL-${b.waybill}-2`]);
    assert.deepEqual(await scanChargesOf(t, b), [
      redelivery(b.waybill, 1),
      redelivery(b.waybill, 2),
    ]);
  }));

Deno.test("scan charges: the request's booking and the shipment's own book each charge once", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    await scanned(t, b, [
      "out_for_delivery",
      "delivery_attempted",
      "out_for_delivery",
      "out_for_delivery", // the same redelivery scanned again
      "delivery_attempted",
      "out_for_delivery",
      "delivered",
    ]);
    // Booked by each request before it answered.
    assert.deepEqual(await scanChargesOf(t, b), [
      redelivery(b.waybill, 1),
      redelivery(b.waybill, 2),
    ]);
    // The shipment's own events booked them too (found booked) and confirmed them.
    await booked(t, b, [`RDL-${b.waybill}-1`, `RDL-${b.waybill}-2`]);
    const confirmed = new Set<string>();
    for await (const { event } of t.env.runtime.events(shipmentActor, b.waybill)) {
      const e = event as ShipmentEvent;
      if (e.kind === "charges_confirmed") e.source_events.forEach((s) => confirmed.add(s));
    }
    assert.deepEqual([...confirmed].sort(), [
      `shipment.redelivery:${b.waybill}:1`,
      `shipment.redelivery:${b.waybill}:2`,
    ]);
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    assert.deepEqual(await chargesDueOf(t, b), []);
    assert.deepEqual(await scanChargesOf(t, b), [
      redelivery(b.waybill, 1),
      redelivery(b.waybill, 2),
    ]);
  }));

Deno.test("scan charges: a booking that fails stays due and is booked at the shipment's retry", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    // This process's booker fails its first booking (the ledger unreachable for a moment).
    await t.env.reactors["scan_charges"]!.close();
    let failures = 1;
    const errors: string[] = [];
    const flaky = new ScanCharges({
      runtime: t.env.runtime,
      bus: t.env.bus,
      book: (...args) =>
        failures-- > 0 ? Promise.reject(new Error("ledger unreachable")) : bookScanCharge(...args),
      onError: (e, where) => errors.push(`${where}: ${(e as Error).message}`),
    });
    try {
      await recordOnly(t, b, ["out_for_delivery", "delivery_attempted", "out_for_delivery"]);
      await t.env.bus.flush();
      assert.deepEqual(errors, [
        `charge shipment.redelivery:${b.waybill}:1: ledger unreachable`,
      ]);
      assert.deepEqual(await scanChargesOf(t, b), []);
      assert.deepEqual(await chargesDueOf(t, b), [`shipment.redelivery:${b.waybill}:1`]);
      // Still due one retry later: booked, once, and confirmed.
      await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
      await booked(t, b, [`RDL-${b.waybill}-1`]);
      assert.deepEqual(await scanChargesOf(t, b), [redelivery(b.waybill, 1)]);
      assert.equal(errors.length, 1);
      await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
      assert.deepEqual(await scanChargesOf(t, b), [redelivery(b.waybill, 1)]);
    } finally {
      await flaky.close();
    }
  }));

/**
 * A collect stop's errand (courier 2.6 rules 2, 3; 6.1 `run.collected:{stop}`: one event type per
 * charge, each sent once): one errand per collect stop, charged to its work order's client with
 * the stop's first collection, reported as `run.collected:<stop id>`; later collections at the
 * stop, and collections sent again, book none.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { until } from "../../helpers/receiver.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { collectStop, newRun, post } from "./runs_fixtures.ts";

/** A linehaul run with a collect stop of the client's work order: the run and the stop. */
async function runWithCollectStop(t: TestEnv, courier: Courier, client: Client) {
  const run = await newRun(t, courier);
  return { run, stop: await collectStop(t, courier, run, client, { kg: 10, pieces: 4 }) };
}

/** The types of the billing events whose type starts with `run.collected`. */
async function collectedEvents(t: TestEnv, courier: Courier): Promise<string[]> {
  const r = await t.call("GET", "/business/courier/billing/events", {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data
    .map((e: { event_type: string }) => e.event_type)
    .filter((type: string) => type.startsWith("run.collected"));
}

async function errands(t: TestEnv, courier: Courier, client: Client) {
  await t.settle();
  return await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", courier.business.id)
    .where("client_id", "=", client.id)
    .where("kind", "=", "errand")
    .execute();
}

async function prepaid(t: TestEnv, courier: Courier, client: Client): Promise<number> {
  const r = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.balances.prepaid;
}

Deno.test("runs: a collect stop books one errand, run.collected:<stop>, however many waybills it collects", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { errand_fee: 20 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const { run, stop } = await runWithCollectStop(t, courier, client);
    const [first, second] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    await t.settle();
    const before = await prepaid(t, courier, client);
    const collect = `/business/network-runs/${run}/stops/${stop}/collect`;
    await post(t, courier, collect, { waybill: first, idempotency_key: "collect-1" });
    await until(t, async () => (await collectedEvents(t, courier)).length > 0, "errand event");
    assert.deepEqual(await collectedEvents(t, courier), [`run.collected:${stop}`]);
    // A second waybill at the same stop, and both collections sent again (the same key, then a
    // new one after lost signal): no second errand.
    await post(t, courier, collect, { waybill: second, idempotency_key: "collect-2" });
    await post(t, courier, collect, { waybill: first, idempotency_key: "collect-1" });
    await post(t, courier, collect, { waybill: first, idempotency_key: "collect-3" });
    await post(t, courier, collect, { waybill: second, idempotency_key: "collect-4" });
    const booked = await errands(t, courier, client);
    assert.equal(booked.length, 1, JSON.stringify(booked));
    assert.equal(booked[0]!.reference, `COL-${stop}`);
    assert.equal(booked[0]!.source_event, `run.collected:${stop}`);
    assert.equal(Number(booked[0]!.amount_minor), 2000);
    // spec: courier 2.6, 2.7: the entry names the shipment it was booked with (the first).
    assert.equal(booked[0]!.shipment, first);
    assert.deepEqual(await collectedEvents(t, courier), [`run.collected:${stop}`]);
    assert.equal(before - (await prepaid(t, courier, client)), 20, "one errand fee charged");
  }));

Deno.test("runs: a collect whose labels name a piece the shipment does not have is refused before anything is collected or charged", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { errand_fee: 20 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { run, stop } = await runWithCollectStop(t, courier, client);
    const waybill = await bookWaybill(t, client);
    const at = `/business/network-runs/${run}/stops/${stop}/collect`;
    const body = { waybill, labels: [`${waybill}-9`], idempotency_key: "c-1" };
    for (let n = 0; n < 2; n++) {
      const refused = await post(t, courier, at, body, 422);
      assert.equal(refused.code, "unknown_piece", JSON.stringify(refused));
      assert.match(refused.message, new RegExp(`${waybill}-9`));
    }
    // spec: courier 2.10 (each piece labelled), 7: bad input changes nothing.
    const now = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual([now.items, now.stops[0].collected], [[], []]);
    assert.deepEqual(await errands(t, courier, client), []);
    // Labelled with its own piece, it is collected.
    await post(t, courier, at, { ...body, labels: [`${waybill}-1`], idempotency_key: "c-2" });
  }));

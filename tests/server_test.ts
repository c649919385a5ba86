/**
 * One environment per deployment on a shared bus (ARCHITECTURE "Environments": a bus subject
 * prefix of its own): two deployments on one NATS (staging beside production, tests beside a
 * running server) never hear each other's changes, nor write them into their own query side.
 */
import assert from "node:assert/strict";
import { openTestEnv } from "./helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "./helpers/courier.ts";

Deno.test("server: a deployment sharing the bus with another neither projects nor acts on its changes", async () => {
  const a = await openTestEnv();
  const b = await openTestEnv({ bus: a.env.bus });
  try {
    assert.notEqual(a.env.runtime.busPrefix, b.env.runtime.busPrefix);
    assert.match(a.env.runtime.busPrefix, /^live_/);
    const courier = await newCourier(a);
    const client = await newClient(a, courier);
    await topUp(a, courier, client, "500");
    const waybill = await bookWaybill(a, client);
    await a.settle();
    await b.settle();
    const rows = async (t: typeof a) =>
      (await t.env.db.selectFrom("snapshots").select(["type", "id"])
        .where("tenant", "=", courier.business.id).execute()).length;
    assert.ok(await rows(a) > 0, "A projects its own changes");
    assert.equal(await rows(b), 0, "B's query side holds nothing of A's");
    const ledger = await b.env.db.selectFrom("ledger_entries").select("reference")
      .where("tenant", "=", courier.business.id).execute();
    assert.deepEqual(ledger, []);
    const shipment = await a.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(shipment.status, 200, "A reads its own shipment from its query side");
  } finally {
    await b.close();
    await a.close();
  }
});

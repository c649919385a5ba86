/** A server on the embedded defaults: its PGlite in a worker, lists read what bookings wrote. */
import assert from "node:assert/strict";
import { bookShipment, newClient, newCourier, topUp } from "../helpers/courier.ts";
import { openTestEnv, OPERATOR_TOKEN } from "../helpers/test_env.ts";

function gauge(text: string, line: string): number {
  const found = text.split("\n").find((l) => l.startsWith(`${line} `));
  assert.ok(found, `${line} is not in the metrics`);
  return Number(found.split(" ")[1]);
}

Deno.test("server with PGlite in a worker: a booking is listed, and the lag is back to 0", async () => {
  const pgliteDir = await Deno.makeTempDir({ prefix: "pglite_server_" });
  const t = await openTestEnv({ pgliteDir });
  try {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const { waybill } = await bookShipment(t, client);
    await t.settle();
    const listed = await t.call("GET", `/business/courier/shipments?q=${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.data.map((s: { waybill: string }) => s.waybill), [waybill]);
    const res = await t.app.request("/api/metrics", {
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    const metrics = await res.text();
    assert.equal(gauge(metrics, 'projection_lag_changes{projection="read_tables"}'), 0);
    assert.equal(gauge(metrics, 'projection_lag_seconds{projection="read_tables"}'), 0);
  } finally {
    await t.close();
    await Deno.remove(pgliteDir, { recursive: true });
  }
});

/** A server on the embedded defaults: its PGlite in a worker, lists read what bookings wrote. */
import assert from "node:assert/strict";
import { sql } from "kysely";
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

/** Whether `p` settles within `turns` short macrotasks (false: it waits on something held). */
async function settlesWithin(p: Promise<unknown>, turns: number): Promise<boolean> {
  let done = false;
  p.then(() => done = true, () => done = true);
  for (let i = 0; i < turns && !done; i++) await new Promise((r) => setTimeout(r, 10));
  return done;
}

// Issue 36 item 1: a booking's answer never waits on the query side; what the projections have
// not yet written is their lag (the projection_lag gauges), and written once the query side is free.
Deno.test("server with PGlite in a worker: a booking is answered while the query side is held, its lag shown", async () => {
  const pgliteDir = await Deno.makeTempDir({ prefix: "pglite_server_" });
  const t = await openTestEnv({ pgliteDir });
  try {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    await t.settle();
    const taken = Promise.withResolvers<void>();
    const held = Promise.withResolvers<void>();
    const hold = t.env.db.transaction().execute(async (trx) => {
      await sql`lock table snapshots in exclusive mode`.execute(trx);
      taken.resolve();
      await held.promise;
    });
    let booked: { waybill: string };
    try {
      await taken.promise;
      const booking = bookShipment(t, client);
      assert.ok(await settlesWithin(booking, 500), "the booking waited on the query side");
      booked = await booking;
      // What the projection_lag_changes gauge reads (the scrape itself asks the query side).
      assert.ok(t.projector.backlog().changes > 0, "the lag is shown");
    } finally {
      held.resolve();
      await hold;
    }
    await t.settle();
    const listed = await t.call("GET", `/business/courier/shipments?q=${booked.waybill}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(listed.body.data.map((s: { waybill: string }) => s.waybill), [
      booked.waybill,
    ]);
  } finally {
    await t.close();
    await Deno.remove(pgliteDir, { recursive: true });
  }
});

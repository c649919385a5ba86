/**
 * Courier 1.1: an integrator cannot see another's data, nor learn that it exists. Another
 * courier's identifiers answer 404 word for word as identifiers nobody holds (waybills and price
 * references follow one sequence, so any difference would let a courier count a rival's
 * bookings); partner keys hold only their own scopes, with what each implies (courier 5).
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookShipment, newClient, newCourier, topUp } from "../../helpers/courier.ts";

/** The 404 as a caller sees it, the identifier asked for written as `<id>`. */
async function notFoundAnswer(t: TestEnv, key: string, path: string, id: string) {
  const r = await t.call("GET", path.replace("<id>", id), { key });
  assert.equal(r.status, 404, `${path}: ${JSON.stringify(r.body)}`);
  return { code: r.body.code, message: String(r.body.message).replaceAll(id, "<id>") };
}

Deno.test("tenant isolation: another courier's waybill, card, client, run and event answer as ids nobody holds", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const b = await newCourier(t);
    const client = await newClient(t, a);
    await topUp(t, a, client, "500");
    const shipment = await bookShipment(t, client);
    const run = await t.call("POST", "/business/network-runs", {
      key: a.business.api_key,
      body: {
        facility_id: "GBE-HUB",
        kind: "linehaul",
        countries: ["BW"],
        capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
      },
    });
    assert.equal(run.status, 201, JSON.stringify(run.body));
    await t.settle();
    const events = await t.call("GET", "/business/courier/billing/events", {
      key: a.business.api_key,
    });
    const eventId = events.body.data[0]?.event_id ?? events.body.data[0]?.id;
    assert.ok(eventId, JSON.stringify(events.body));
    const cases: [string, string, string][] = [
      ["/business/shipments/<id>/customs", shipment.waybill, "WB9999999999999"],
      ["/business/shipments/<id>/packing-slip", shipment.waybill, "WB9999999999999"],
      ["/business/shipments/<id>/lab", shipment.waybill, "WB9999999999999"],
      ["/business/courier/rate-cards/<id>", a.rateCardId, "rc_nobody0000000000000000"],
      ["/business/courier/clients/<id>", client.id, "cli_nobody000000000000000"],
      ["/business/courier/clients/<id>/billing", client.id, "cli_nobody000000000000000"],
      ["/business/network-runs/<id>", run.body.data.id, "run_nobody000000000000000"],
      ["/business/courier/billing/events/<id>", eventId, "evt_nobody000000000000000"],
    ];
    for (const [path, theirs, nobodys] of cases) {
      assert.deepEqual(
        await notFoundAnswer(t, b.business.api_key, path, theirs),
        await notFoundAnswer(t, b.business.api_key, path, nobodys),
        `${path}: the answer tells that courier A holds the id`,
      );
    }
  }));

Deno.test("tenant isolation: a partner key holds its own scopes and what they imply: administering billing reads it", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const issued = await t.call(
      "POST",
      `/operator/businesses/${courier.business.id}/partner-keys`,
      {
        operator: true,
        body: { partner: "Ledger sync", scopes: ["billing:administer"] },
      },
    );
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const key = issued.body.data.api_key ?? issued.body.data.key;
    assert.ok(key, JSON.stringify(issued.body));
    const list = await t.call("GET", "/business/courier/billing/events", { key });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    // What it was never given stays refused, naming the scope.
    const board = await t.call("GET", "/business/courier/operations", { key });
    assert.equal(board.status, 403);
    assert.equal(board.body.code, "scope_denied");
    assert.match(board.body.message, /shipments:view-own/);
  }));

/**
 * The shipment is written once per commit (issue 36): its events carry what changed, never the
 * record again, and the log and the bus keep `shipment_booked` without the record that the
 * commit's state and the change's snapshot already hold. Events of earlier versions still apply.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { lifecycleOf } from "../../../actors/courier/shipment/lifecycle.ts";
import {
  loggedEvent,
  type Shipment,
  shipmentActor,
  type ShipmentEvent,
} from "../../../actors/courier/shipment/mod.ts";
import { newId } from "../../../src/runtime/ids.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { applied, booked, HOUR } from "./shipment_fixtures.ts";

/** A shipment with `customs_check_at` as a whole lifecycle states it (absent: null). */
function normal(s: Shipment | null) {
  assert.ok(s);
  return { ...s, customs_check_at: s.customs_check_at ?? null };
}

function scannedOf(events: readonly ShipmentEvent[]) {
  const e = events.find((e) => e.kind === "scanned");
  assert.ok(e && e.kind === "scanned" && "changed" in e, JSON.stringify(events));
  return e;
}

Deno.test("shipment: a scan's event carries its line and the fields it changed, not the trail or the booking", async () => {
  const s = await booked();
  const first = applied(
    s,
    { kind: "record", scan: { event: "collected", by: "drv_1" } },
    s.booked_at + HOUR,
  );
  const second = applied(
    first.next,
    { kind: "record", scan: { event: "received_at_depot", facility_id: "fac_1", by: "ops_1" } },
    s.booked_at + 2 * HOUR,
  );
  const e = scannedOf(second.d.events);

  assert.ok(!("trail" in e.changed) && !("trail_total" in e.changed));
  // Unchanged by a depot scan: the attempts, the delivery, the proof of delivery.
  assert.ok(!("attempts" in e.changed) && !("delivered_at" in e.changed) && !("pod" in e.changed));
  assert.ok(!("pricing" in e.changed) && !("sender" in e.changed));
  assert.equal(e.changed.status, second.next.status);
  assert.deepEqual(second.next.trail.map((t) => t.event), ["collected", "received_at_depot"]);
  assert.equal(second.next.trail_total, 2);
  assert.ok(JSON.stringify(e).length < JSON.stringify(second.next).length / 2);
});

Deno.test("shipment: a scan or check stored by an earlier version, its lifecycle whole, applies the same", async () => {
  const s = await booked();
  const scan = applied(
    s,
    { kind: "record", scan: { event: "collected", by: "drv_1" } },
    s.booked_at + HOUR,
  );
  const e = scannedOf(scan.d.events);
  const old: ShipmentEvent = { kind: "scanned", entry: e.entry, lifecycle: lifecycleOf(scan.next) };
  assert.deepEqual(normal(shipmentActor.evolve(s, old)), normal(shipmentActor.evolve(s, e)));

  const collection = s.milestones.find((m) => m.name === "collection")!;
  const now = collection.due_at + HOUR;
  const d = shipmentActor.decide(s, { kind: "timer", name: "check", payload: undefined }, {
    now,
    newId,
  });
  assert.ok(d.ok);
  const checked = d.events.find((e) => e.kind === "checked");
  assert.ok(checked && checked.kind === "checked" && "changed" in checked);
  const after = shipmentActor.evolve(s, checked) as Shipment;
  const oldChecked: ShipmentEvent = { kind: "checked", at: now, lifecycle: lifecycleOf(after) };
  assert.deepEqual(normal(shipmentActor.evolve(s, oldChecked)), normal(after));
  assert.notEqual(after.health_reason, s.health_reason);
});

Deno.test("shipment: the log keeps shipment_booked without the record, which the state holds", async () => {
  const s = await booked();
  const d = shipmentActor.decide(null, { kind: "book", shipment: s }, { now: s.booked_at, newId });
  assert.ok(d.ok);
  const [e] = d.events;
  assert.ok(e);
  // The whole record evolves the state (tests and the runtime apply the decided event)...
  assert.equal((shipmentActor.evolve(null, e) as Shipment).waybill, s.waybill);
  // ...and the log and the bus keep the booking's instant and standing only.
  assert.deepEqual(shipmentActor.logged!(e), {
    kind: "shipment_booked",
    waybill: s.waybill,
    booked_at: s.booked_at,
    status: "booked",
    health: s.health,
  });
  assert.deepEqual(loggedEvent(e), shipmentActor.logged!(e));
});

Deno.test("shipment: a booking's change and query side hold the record once, as the snapshot", async () => {
  await withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const waybill = await bookWaybill(t, client);
    await t.settle();
    // The event of record is in the actor store; the query side keeps only the snapshot.
    const events = [];
    for await (const e of t.env.runtime.events(shipmentActor, waybill)) events.push(e.event);
    assert.equal(events.length, 1);
    const [event] = events as { kind: string }[];
    assert.equal(event!.kind, "shipment_booked");
    assert.ok(!JSON.stringify(event).includes("prices_reference"));
    const rows = await sql<{ data: Record<string, unknown> }>`
      select data from snapshots where type = 'shipment' and id = ${waybill}`.execute(t.env.db);
    assert.equal(rows.rows.length, 1);
    const [row] = rows.rows;
    assert.equal(row!.data.waybill, waybill);
    assert.ok(JSON.stringify(row!.data).includes("prices_reference"));
  });
});

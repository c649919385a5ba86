import assert from "node:assert/strict";
import { type Shipment, shipmentActor } from "../../actors/shipment.ts";
import type { TimerOp } from "../../src/runtime/actor.ts";
import { newId } from "../../src/runtime/ids.ts";
import { withTestEnv } from "../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../helpers/courier.ts";

const HOUR = 3_600_000;

/** A booked shipment's state, as the actor holds it. */
async function booked(): Promise<Shipment> {
  let shipment: Shipment | null = null;
  await withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const waybill = await bookWaybill(t, client);
    const r = await t.env.runtime.ask(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(r.ok);
    shipment = r.reply as Shipment;
  });
  return shipment!;
}

function timerFired(state: Shipment, name: string, now: number) {
  const d = shipmentActor.decide(state, { kind: "timer", name, payload: undefined }, {
    now,
    newId,
  });
  assert.ok(d.ok);
  return d;
}

function checkAt(timers: readonly TimerOp[] | undefined): number | null {
  assert.ok(timers && timers.length === 1, JSON.stringify(timers));
  const [t] = timers;
  assert.equal(t!.name, "check");
  return t!.op === "set" ? t!.at : null;
}

Deno.test("shipment: a booking sets one timer, at its earliest deadline", async () => {
  const s = await booked();
  const d = shipmentActor.decide(null, { kind: "book", shipment: s }, { now: s.booked_at, newId });
  assert.ok(d.ok);
  const earliest = Math.min(...s.milestones.flatMap((m) => [m.at_risk_at, m.due_at]));
  assert.equal(checkAt(d.timers), earliest);
});

Deno.test("shipment: a check does every check due by then and arms the next", async () => {
  const s = await booked();
  const collection = s.milestones.find((m) => m.name === "collection")!;
  // Fired late, past collection's at-risk point and deadline: both alerts, in that order.
  const now = collection.due_at + HOUR;
  const d = timerFired(s, "check", now);
  const alerts = d.events
    .filter((e) => e.kind === "alert_due")
    .map((e) => (e as { alert: { kind: string } }).alert.kind);
  assert.deepEqual(alerts.slice(0, 2), ["milestone_at_risk", "milestone_overdue"]);
  let next = s;
  for (const e of d.events) next = shipmentActor.evolve(next, e) as Shipment;
  const at = checkAt(d.timers);
  assert.ok(at !== null && at > now, "the next check is after this one");
  // A check that fires early changes nothing and is armed again.
  const early = timerFired(next, "check", at - 1);
  assert.equal(early.events.length, 0);
  assert.equal(checkAt(early.timers), at);
});

Deno.test("shipment: a timer named per check, set before the single timer, checks the same", async () => {
  const s = await booked();
  const collection = s.milestones.find((m) => m.name === "collection")!;
  const now = collection.due_at + HOUR;
  const legacy = timerFired(s, "due:collection", now);
  const current = timerFired(s, "check", now);
  assert.deepEqual(legacy.events, current.events);
  assert.deepEqual(legacy.timers, current.timers);
});

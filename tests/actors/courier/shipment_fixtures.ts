/** Fixtures shared by shipment_test.ts and shipment_milestones_test.ts. */
import assert from "node:assert/strict";
import {
  type Shipment,
  shipmentActor,
  type ShipmentCommand,
  type ShipmentEvent,
} from "../../../actors/courier/shipment/mod.ts";
import type { TimerOp } from "../../../src/runtime/actor.ts";
import { newId } from "../../../src/runtime/ids.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";

export const HOUR = 3_600_000;

/** A booked shipment's state, as the actor holds it; `extra` over the price request. */
export async function booked(extra: Record<string, unknown> = {}): Promise<Shipment> {
  let shipment: Shipment | null = null;
  await withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const waybill = await bookWaybill(t, client, extra);
    const r = await t.env.runtime.ask(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(r.ok);
    shipment = r.reply as Shipment;
  });
  return shipment!;
}

export function timerFired(state: Shipment, name: string, now: number) {
  const d = shipmentActor.decide(state, { kind: "timer", name, payload: undefined }, {
    now,
    newId,
  });
  assert.ok(d.ok);
  return d;
}

export function checkAt(timers: readonly TimerOp[] | undefined): number | null {
  assert.ok(timers && timers.length === 1, JSON.stringify(timers));
  const [t] = timers;
  assert.equal(t!.name, "check");
  return t!.op === "set" ? t!.at : null;
}

/** Decides and applies one command on `state`, answering the decision and the state after it. */
export function applied(state: Shipment, command: ShipmentCommand, now: number) {
  const d = shipmentActor.decide(state, command, { now, newId });
  assert.ok(d.ok, JSON.stringify(d));
  let next = state;
  for (const e of d.events) next = shipmentActor.evolve(next, e) as Shipment;
  return { d, next };
}

export function chargesDue(d: { events: readonly ShipmentEvent[] }) {
  return d.events.flatMap((e) => e.kind === "charge_due" ? [e.charge] : []);
}

export function evolveAll(state: Shipment, events: readonly ShipmentEvent[]): Shipment {
  return events.reduce((next, e) => shipmentActor.evolve(next, e) as Shipment, state);
}

export function estimateMoves(events: readonly ShipmentEvent[]): [string, string][] {
  return events.flatMap((e) => e.kind === "estimate_changed" ? [[e.from, e.to]] : []);
}

/** The end of a day in Gaborone (UTC+2, no daylight saving): its estimate is then over. */
export const dayOver = (day: string) => Date.parse(`${day}T22:00:00Z`);

/**
 * customs_wait_exceeded across two borders (courier 2.9, 3.2): each border's customs_clearance
 * counts its own working days over, so an earlier border's clearance opened again raises each of
 * its days over once, none skipped for the days the later border's counted.
 */
import assert from "node:assert/strict";
import type { Shipment, ShipmentEvent } from "../../../actors/courier/shipment/mod.ts";
import { applied, booked, evolveAll, timerFired } from "./shipment_fixtures.ts";

const presentedAt = (crossing_id: string, stop_id: string) => ({
  kind: "record" as const,
  scan: { event: "presented_to_customs" as const, facility_id: stop_id, by: "test" },
  presentation: { crossing_id, run_id: "run_1", stop_id },
});

/** The customs_wait_exceeded condition keys the events raise. */
function waits(events: readonly ShipmentEvent[]): string[] {
  return events.flatMap((e) =>
    e.kind === "alert_due" && e.alert.kind === "customs_wait_exceeded"
      ? [e.alert.condition_key]
      : []
  );
}

function checked(s: Shipment, at: string, raised: string[]): Shipment {
  const d = timerFired(s, "check", Date.parse(at));
  raised.push(...waits(d.events));
  return evolveAll(s, d.events);
}

Deno.test("shipment: an earlier border's customs_clearance opened again raises each of its working days over once (courier 2.9)", async () => {
  let s = await booked();
  const raised: string[] = [];
  // Monday 09:00 in Gaborone at the first border: its 16 working hours end Tuesday 01:00.
  s = applied(s, presentedAt("xing_a", "stop_1"), Date.parse("2026-11-09T07:00:00Z")).next;
  const first = s.milestones.find((m) => m.name === "customs_clearance")!;
  s = checked(s, "2026-11-11T10:00:00Z", raised); // Wednesday: days 1 and 2 over
  // Wednesday 13:00 at the second border, the first unsettled: its wait ends Thursday 05:00.
  s = applied(s, presentedAt("xing_b", "stop_2"), Date.parse("2026-11-11T11:00:00Z")).next;
  const second = s.milestones.find((m) => m.name === "customs_clearance")!;
  assert.notEqual(second.opened_at, first.opened_at);
  s = checked(s, "2026-11-16T10:00:00Z", raised); // Monday: the second's days 1 to 3 over
  // The second border cleared: the first's clearance is open again, with customs.
  s = applied(s, {
    kind: "record",
    scan: { event: "cleared", facility_id: "BORDER", by: "test" },
    settles: "xing_b",
  }, Date.parse("2026-11-16T11:00:00Z")).next;
  assert.equal(
    s.milestones.find((m) => m.name === "customs_clearance")?.opened_at,
    first.opened_at,
  );
  s = checked(s, "2026-11-17T10:00:00Z", raised); // Tuesday: the first's day 6 over
  s = checked(s, "2026-11-18T10:00:00Z", raised); // Wednesday: its day 7
  const of = (m: { opened_at: number }) =>
    raised.filter((k) => k.includes(`:customs:${m.opened_at}:`)).map((k) =>
      Number(k.split(":").at(-1))
    );
  assert.deepEqual(of(second), [1, 2, 3]);
  // spec: courier 2.9: raised once per working day over: each of the first's days, none skipped.
  assert.deepEqual(of(first).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7]);
});

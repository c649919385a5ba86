import assert from "node:assert/strict";
import {
  type ScanInput,
  type Shipment,
  shipmentActor,
  type ShipmentEvent,
} from "../../../actors/courier/shipment/mod.ts";
import type { ScanEvent } from "../../../src/courier/rules/lifecycle.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { newId } from "../../../src/runtime/ids.ts";
import { operationsRow } from "../../../src/courier/queries/operations_row.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";
import {
  applied,
  booked,
  chargesDue,
  checkAt,
  dayOver,
  estimateMoves,
  evolveAll,
  HOUR,
  timerFired,
} from "./shipment_fixtures.ts";

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

Deno.test("shipment: a redelivery is due from its scan's commit, due again at each retry, gone once confirmed", async () => {
  let s = await booked();
  let now = s.booked_at + HOUR;
  const scan = (event: ScanEvent) => {
    const { d, next } = applied(s, { kind: "record", scan: { event, by: "ops" } }, now);
    s = next;
    return d;
  };
  for (const event of ["out_for_delivery", "delivery_attempted"] as const) {
    assert.deepEqual(chargesDue(scan(event)), []);
  }
  const out = scan("out_for_delivery");
  const source = `shipment.redelivery:${s.waybill}:1`;
  assert.deepEqual(chargesDue(out), [
    { source_event: source, scan: "out_for_delivery", attempts: 1, by: "ops" },
  ]);
  const retryAt = now + SCAN_CHARGE_RETRY_MS;
  assert.deepEqual(out.timers?.filter((t) => t.name === "charge"), [
    { op: "set", name: "charge", at: retryAt },
  ]);
  // The same redelivery scanned again: still one due, its retry already armed.
  const again = scan("out_for_delivery");
  assert.equal(chargesDue(again).length, 1);
  assert.equal(again.timers?.some((t) => t.name === "charge"), false);
  assert.deepEqual(s.charges_due?.map((c) => c.source_event), [source]);
  // Not confirmed by the retry: due again, and armed again.
  now = retryAt;
  const retry = timerFired(s, "charge", now);
  assert.deepEqual(chargesDue(retry).map((c) => c.source_event), [source]);
  assert.deepEqual(retry.timers, [{ op: "set", name: "charge", at: now + SCAN_CHARGE_RETRY_MS }]);
  // Confirmed: nothing is due and the retry is cancelled; a repeated confirmation changes nothing.
  const confirmed = applied(s, { kind: "confirm_charges", source_events: [source] }, now);
  assert.deepEqual(confirmed.d.timers, [{ op: "cancel", name: "charge" }]);
  s = confirmed.next;
  assert.deepEqual(s.charges_due, []);
  assert.deepEqual(
    applied(s, { kind: "confirm_charges", source_events: [source] }, now).d.events,
    [],
  );
  assert.deepEqual(timerFired(s, "charge", now).events, []);
});

Deno.test("shipment: a return stays due after the shipment closes", async () => {
  const s = await booked();
  const now = s.booked_at + HOUR;
  const { d, next } = applied(s, { kind: "record", scan: { event: "returned", by: "ops" } }, now);
  assert.equal(next.status, "returned");
  assert.deepEqual(chargesDue(d).map((c) => c.source_event), [`shipment.return:${s.waybill}`]);
  // Milestones stop at the close; the charge retry does not.
  const retry = timerFired(next, "charge", now + SCAN_CHARGE_RETRY_MS);
  assert.equal(chargesDue(retry).length, 1);
});

Deno.test("shipment: a piece received at a facility is held there, no longer by whoever brought it (courier 2.3, 2.9)", async () => {
  const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
  let s = await booked({ parcels: [parcel, parcel] });
  const [one, two] = s.pieces.map((p) => p.id) as [string, string];
  let now = s.booked_at + HOUR;
  const scan = (input: Omit<ScanInput, "by">) => {
    const { d, next } = applied(s, { kind: "record", scan: { ...input, by: "ops" } }, now);
    s = next;
    now += HOUR;
    return d;
  };
  const separations = (d: { events: readonly ShipmentEvent[] }) =>
    d.events.filter((e) => e.kind === "alert_due" && e.alert.kind === "pieces_separated").length;
  // Two drivers collect a piece each: the pieces are in two places from the first collection
  // (the other still with the sender), one separation.
  assert.equal(separations(scan({ event: "collected", holder: "driver:A", pieces: [one] })), 1);
  assert.equal(separations(scan({ event: "collected", holder: "driver:B", pieces: [two] })), 0);
  assert.notEqual(s.separated_since, null);
  // Both received at the hub: the hub holds them, together again.
  scan({ event: "received_at_depot", facility_id: "GBE-HUB" });
  assert.deepEqual(
    s.pieces.map((p) => [p.id, p.holder, p.facility_id]),
    [[one, null, "GBE-HUB"], [two, null, "GBE-HUB"]],
  );
  assert.equal(s.separated_since, null, "pieces together at one facility are not separated");
  // A driver takes them on: the facility no longer holds them (as before).
  scan({ event: "out_for_delivery", holder: "driver:C" });
  assert.deepEqual(
    s.pieces.map((p) => [p.holder, p.facility_id]),
    [["driver:C", null], ["driver:C", null]],
  );
});

// spec: courier 2.9 pieces_separated, 4.4 (pieces: count, number of places): a piece no scan has
// moved is still where it was booked from; one collected without it is in another place.
Deno.test("shipment: a piece collected while another stays with the sender raises pieces_separated once, as the board counts two places", async () => {
  const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
  let s = await booked({ parcels: [parcel, parcel] });
  const [one, two] = s.pieces.map((p) => p.id) as [string, string];
  let now = s.booked_at + HOUR;
  const scan = (input: Omit<ScanInput, "by">) => {
    const { d, next } = applied(s, { kind: "record", scan: { ...input, by: "ops" } }, now);
    s = next;
    now += HOUR;
    return d.events.filter((e) => e.kind === "alert_due" && e.alert.kind === "pieces_separated");
  };
  assert.equal(scan({ event: "collected", holder: "driver:A", pieces: [one] }).length, 1);
  assert.equal(operationsRow(s, now, null).pieces.places, 2);
  assert.notEqual(s.separated_since, null);
  // The piece left behind collected by another driver: the same separation, not raised again.
  assert.equal(scan({ event: "collected", holder: "driver:B", pieces: [two] }).length, 0);
  scan({ event: "received_at_depot", facility_id: "GBE-HUB" });
  assert.equal(s.separated_since, null, "together again at the hub");
});

Deno.test("shipment: an estimated day over undelivered moves the estimate to the next working day, once", async () => {
  const b = await booked();
  // Only the promise open: no overdue milestone of the courier's moves the estimate here.
  const s: Shipment = { ...b, milestones: b.milestones.filter((m) => m.name === "promise") };
  assert.equal(s.estimated_delivery_on, "2026-11-03");
  const early = timerFired(s, "check", dayOver("2026-11-03") - 1);
  assert.deepEqual(estimateMoves(early.events), []);
  assert.equal(checkAt(early.timers), dayOver("2026-11-03"), "armed at the end of the day");
  const d = timerFired(evolveAll(s, early.events), "check", dayOver("2026-11-03"));
  assert.deepEqual(estimateMoves(d.events), [["2026-11-03", "2026-11-04"]]);
  const moved = evolveAll(s, [...early.events, ...d.events]);
  assert.equal(moved.estimated_delivery_on, "2026-11-04");
  assert.deepEqual(moved.pricing.promise, s.pricing.promise, "the frozen promise never moves");
  // A stale timer at the same instant moves nothing twice.
  assert.deepEqual(estimateMoves(timerFired(moved, "check", dayOver("2026-11-03")).events), []);
  // Friday over: past the weekend to Monday.
  // Below, with no milestone open: the promise's own overdue setback stays out of it.
  const friday: Shipment = { ...moved, milestones: [], estimated_delivery_on: "2026-11-06" };
  const weekend = timerFired(friday, "check", dayOver("2026-11-06"));
  assert.deepEqual(estimateMoves(weekend.events), [["2026-11-06", "2026-11-09"]]);
  // Christmas Eve over: the courier's calendar keeps 25 and 26 December as holidays.
  // (Booked that week: a shipment's estimate follows the days within its open time only.)
  const eve: Shipment = {
    ...friday,
    booked_at: Date.parse("2026-12-21T08:00:00Z"),
    estimated_delivery_on: "2026-12-24",
  };
  const holidays = timerFired(eve, "check", dayOver("2026-12-24"));
  assert.deepEqual(estimateMoves(holidays.events), [["2026-12-24", "2026-12-28"]]);
});

Deno.test("shipment: a delivered shipment's estimate never moves", async () => {
  const s = await booked();
  const d = shipmentActor.decide(s, {
    kind: "record",
    scan: { event: "delivered", received_by: "Neo Kgosi", by: "test" },
  }, { now: s.booked_at + HOUR, newId });
  assert.ok(d.ok);
  assert.deepEqual(d.timers, [{ op: "cancel", name: "check" }]);
  const delivered = evolveAll(s, d.events);
  const later = timerFired(delivered, "check", dayOver("2026-11-20"));
  assert.deepEqual(later.events, []);
  assert.equal(delivered.estimated_delivery_on, "2026-11-03");
});

Deno.test("shipment: the estimate timer survives a restart and fires on the reopened store", async () => {
  const s = await booked();
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const definitions = [shipmentActor];
  const get = async (rt: Awaited<ReturnType<typeof openTestRuntime>>) => {
    const r = await rt.runtime.ask(shipmentActor, s.courier_id, s.waybill, { kind: "get" });
    assert.ok(r.ok);
    return r.reply as Shipment;
  };
  const first = await openTestRuntime(path, { definitions });
  try {
    const r = await first.runtime.ask(shipmentActor, s.courier_id, s.waybill, {
      kind: "book",
      shipment: s,
    });
    assert.ok(r.ok);
    // Collection overdue on Monday evening: a setback to the next working day, Tuesday, which
    // is the estimate already.
    const collection = s.milestones.find((m) => m.name === "collection")!;
    first.clock.advanceBy(collection.due_at - first.clock.now());
    await first.runtime.fireDueTimers();
    // Every check due before Tuesday is over (no scan, the promise at risk) has fired: what is
    // left pending is the end of the estimated day.
    first.clock.advanceBy(dayOver("2026-11-03") - first.clock.now() - 1);
    await first.runtime.fireDueTimers();
    assert.equal((await get(first)).estimated_delivery_on, "2026-11-03");
  } finally {
    await first.close();
  }
  const second = await openTestRuntime(path, { clock: first.clock, definitions });
  try {
    second.clock.advanceBy(1);
    assert.equal(await second.runtime.fireDueTimers(), 1);
    const after = await get(second);
    assert.equal(after.estimated_delivery_on, "2026-11-04");
    assert.deepEqual(after.pricing.promise, s.pricing.promise);
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("shipment: a plain customs hold raises no documents_missing; a request for papers does", async () => {
  const s = await booked();
  const at = s.booked_at + HOUR;
  const recorded = (state: Shipment, event: "customs_hold" | "documents_requested") => {
    const d = shipmentActor.decide(state, {
      kind: "record",
      scan: { event, reason: "commercial invoice missing", by: "test" },
    }, { now: at, newId });
    assert.ok(d.ok);
    return { next: evolveAll(state, d.events), events: d.events };
  };
  const alertsOf = (events: readonly ShipmentEvent[]) =>
    events.flatMap((e) => e.kind === "alert_due" ? [e.alert.kind] : []);
  const held = recorded(s, "customs_hold");
  assert.deepEqual(alertsOf(held.events), []);
  assert.equal(held.next.status, "customs_hold");
  assert.equal(held.next.health, "waiting_customs");
  assert.ok(!held.next.milestones.some((m) => m.name === "customs_documents"));
  const asked = recorded(held.next, "documents_requested");
  assert.deepEqual(alertsOf(asked.events), ["documents_missing"]);
  assert.equal(asked.next.health, "waiting_courier");
  assert.equal(asked.next.milestones.find((m) => m.name === "customs_documents")?.owner, "courier");
});

Deno.test("shipment: with only the estimate left to check, a command arms the check timer again", async () => {
  const b = await booked();
  // As a shipment stored before the estimate check held it: every alert raised, no timer left.
  const s: Shipment = {
    ...b,
    milestones: b.milestones.map((m) => ({ ...m, at_risk_raised: true, overdue_raised: true })),
    no_scan_raised_for: b.booked_at,
  };
  const d = shipmentActor.decide(s, {
    kind: "record",
    scan: { event: "exception", reason: "address unclear", by: "test" },
  }, { now: b.booked_at + HOUR, newId });
  assert.ok(d.ok);
  assert.equal(checkAt(d.timers), dayOver("2026-11-03"));
});

Deno.test("shipment: an estimate follows the days within the shipment's open time, then its timer rests", async () => {
  let s = await booked();
  const DAY = 24 * HOUR;
  const booking = shipmentActor.decide(null, { kind: "book", shipment: s }, {
    now: s.booked_at,
    newId,
  });
  assert.ok(booking.ok);
  // Booked and never handed over, never cancelled: every check the shipment asks for, in turn.
  let at: number | null = checkAt(booking.timers);
  const moves: number[] = [];
  let fired = 0;
  while (at !== null && at < s.booked_at + 90 * DAY) {
    const d = timerFired(s, "check", at);
    fired++;
    s = evolveAll(s, d.events);
    for (const e of d.events) if (e.kind === "estimate_changed") moves.push(e.at);
    const set = d.timers?.find((t) => t.name === "check" && t.op === "set");
    at = set && set.op === "set" ? set.at : null;
  }
  // spec: courier 1.4, 8: a shipment is open 1 to 14 days. Past that, moving its estimate every
  // working day would send its client shipment.estimate_changed daily for as long as nobody
  // closes it, and wake every such shipment each night, without end.
  assert.ok(moves.length > 0, "the estimate follows the days while the shipment is young");
  assert.ok(
    moves.every((m) => m <= s.booked_at + 15 * DAY),
    `moves after the open time: ${moves.map((m) => new Date(m).toISOString())}`,
  );
  assert.equal(at, null, "no timer left once every check is done");
  assert.ok(fired < 40, `checks fired: ${fired}`);
});

Deno.test("shipment: some pieces collected and the others left with the sender are separated (courier 2.9)", async () => {
  const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
  let s = await booked({ parcels: [parcel, parcel] });
  const [one, two] = s.pieces.map((p) => p.id) as [string, string];
  const now = s.booked_at + HOUR;
  const separations = (d: { events: readonly ShipmentEvent[] }) =>
    d.events.filter((e) => e.kind === "alert_due" && e.alert.kind === "pieces_separated").length;
  // A scan at no place moves no piece anywhere: nothing is apart.
  const noPlace = applied(
    s,
    { kind: "record", scan: { event: "scan", pieces: [one], by: "ops" } },
    now,
  );
  assert.equal(separations(noPlace.d), 0);
  const { d, next } = applied(s, {
    kind: "record",
    scan: { event: "collected", holder: "driver:A", pieces: [one], by: "ops" },
  }, now);
  assert.equal(separations(d), 1, "the second piece is still with the sender");
  assert.notEqual(next.separated_since, null);
  // The second piece collected by the same driver: together again.
  s = applied(next, {
    kind: "record",
    scan: { event: "collected", holder: "driver:A", pieces: [two], by: "ops" },
  }, now + HOUR).next;
  assert.equal(s.separated_since, null);
});

Deno.test("shipment: reported lost or damaged, its estimate stops moving; found again, it moves on (courier 2.3, 2.11)", async () => {
  let s = await booked();
  const now = s.booked_at + HOUR;
  s = applied(s, {
    kind: "record",
    scan: { event: "lost_or_damaged", reason: "not found at the hub", by: "test" },
  }, now).next;
  const estimate = s.estimated_delivery_on;
  // Days on, past every estimated day: no new estimate told to the client for a lost parcel.
  for (const day of ["2026-11-03", "2026-11-04", "2026-11-05"]) {
    const d = timerFired(s, "check", dayOver(day));
    assert.deepEqual(estimateMoves(d.events), [], day);
    s = evolveAll(s, d.events);
    assert.equal(s.estimated_delivery_on, estimate);
  }
  // Found and received at a depot: the estimate moves again, to a day not yet over.
  s = applied(s, {
    kind: "record",
    scan: { event: "received_at_depot", facility_id: "GBE-HUB", by: "test" },
  }, dayOver("2026-11-05") + HOUR).next;
  const d = timerFired(s, "check", dayOver("2026-11-06"));
  assert.deepEqual(estimateMoves(d.events), [[estimate, "2026-11-09"]]);
});

Deno.test("shipment: customs' wait used up at the end of a Friday raises customs_wait_exceeded once per working day over, from Monday (courier 2.9)", async () => {
  let s = await booked();
  // Friday 08:00 in Gaborone: 16 working hours of customs' wait end at Friday's end.
  const presented = Date.parse("2026-11-06T06:00:00Z");
  assert.ok(presented > s.booked_at);
  const scan = { event: "presented_to_customs" as const, facility_id: "BORDER", by: "test" };
  s = applied(s, { kind: "record", scan }, presented).next;
  const customs = s.milestones.find((m) => m.name === "customs_clearance")!;
  assert.equal(customs.due_at, dayOver("2026-11-06"));
  // Every check the timer asks for, up to Tuesday noon: which day over each raised, and when.
  const raised: string[] = [];
  let at = s.customs_check_at ?? customs.at_risk_at;
  for (let n = 0; n < 50 && at <= Date.parse("2026-11-10T10:00:00Z"); n++) {
    const d = timerFired(s, "check", at);
    for (const e of d.events) {
      if (e.kind === "alert_due" && e.alert.kind === "customs_wait_exceeded") {
        raised.push(`${e.alert.detail["days_over"]} ${new Date(at).toISOString()}`);
      }
    }
    s = evolveAll(s, d.events);
    const next = checkAt(d.timers);
    if (next === null) break;
    at = next;
  }
  // Saturday and Sunday are no working days: none is over before Monday begins.
  assert.deepEqual(raised, [
    "1 2026-11-08T22:00:00.001Z",
    "2 2026-11-09T22:00:00.001Z",
  ]);
});

Deno.test("shipment: a check first fired days past customs' wait raises every working day over at once (courier 2.9)", async () => {
  let s = await booked();
  // Monday 09:00 in Gaborone: 16 working hours of customs' wait end Tuesday 01:00.
  const presented = Date.parse("2026-11-09T07:00:00Z");
  const scan = { event: "presented_to_customs" as const, facility_id: "BORDER", by: "test" };
  s = applied(s, { kind: "record", scan }, presented).next;
  // The service was down: the check fires first on Thursday noon, three working days over.
  const d = timerFired(s, "check", Date.parse("2026-11-12T10:00:00Z"));
  const days = d.events.flatMap((e) =>
    e.kind === "alert_due" && e.alert.kind === "customs_wait_exceeded"
      ? [e.alert.detail["days_over"]]
      : []
  );
  assert.deepEqual(days, [1, 2, 3]);
});

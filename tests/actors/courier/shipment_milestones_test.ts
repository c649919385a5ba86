/** The shipment actor's milestones, alerts and cancelling (courier 3.2, 2.9), and a property of random scans against the milestone table; its timers, custody and estimates are in shipment_test.ts. */
import assert from "node:assert/strict";
import {
  type ScanInput,
  type Shipment,
  shipmentActor,
} from "../../../actors/courier/shipment/mod.ts";
import type { ScanEvent } from "../../../src/courier/rules/lifecycle.ts";
import { newId } from "../../../src/runtime/ids.ts";
import {
  applied,
  booked,
  chargesDue,
  estimateMoves,
  evolveAll,
  HOUR,
  timerFired,
} from "./shipment_fixtures.ts";

Deno.test("shipment: before the first scan, no_scan counts from when collection is owed, and is raised once", async () => {
  const b = await booked();
  // As if booked after the cut-off: collection (and so a scan) is owed from Tuesday 00:00 local.
  const s: Shipment = {
    ...b,
    pricing: { ...b.pricing, promise: { ...b.pricing.promise, collection_on: "2026-11-03" } },
    milestones: b.milestones.map((m) => ({ ...m, at_risk_raised: true, overdue_raised: true })),
  };
  const later = Date.parse("2026-11-10T12:00:00Z");
  const raised = timerFired(s, "check", later).events.flatMap((e) =>
    e.kind === "alert_due" && e.alert.kind === "no_scan" ? [e.alert] : []
  );
  assert.equal(raised.length, 1);
  assert.match(JSON.stringify(raised[0]), /2026-11-02T22:00:00\.000Z/);
  // Stored before it counted from collection, the alert was raised for the booking's instant:
  // the same silence is not raised again.
  const stored: Shipment = { ...s, no_scan_raised_for: b.booked_at };
  const again = timerFired(stored, "check", later).events.filter((e) =>
    e.kind === "alert_due" && e.alert.kind === "no_scan"
  );
  assert.deepEqual(again, []);
});

Deno.test("shipment: papers supplied, customs_documents raises no at-risk or overdue alert of the courier's", async () => {
  let s = await booked();
  const at = s.booked_at + HOUR;
  for (const event of ["presented_to_customs", "documents_requested"] as const) {
    s = applied(s, { kind: "record", scan: { event, reason: "invoice missing", by: "test" } }, at)
      .next;
  }
  s = applied(s, { kind: "record", scan: { event: "documents_supplied", by: "test" } }, at + HOUR)
    .next;
  const papers = s.milestones.find((m) => m.name === "customs_documents")!;
  assert.notEqual(papers.supplied_at, null);
  // spec: courier 2.9: each condition is owned by whoever must act; the courier has supplied the
  // papers (3.2), so only customs' clearance runs late past the wait.
  const d = timerFired(s, "check", papers.due_at + HOUR);
  const raised = d.events.flatMap((e) =>
    e.kind === "alert_due"
      ? [`${e.alert.kind} ${e.alert.owner} ${e.alert.detail["milestone"] ?? ""}`]
      : []
  );
  assert.deepEqual(raised.filter((a) => a.includes("customs_documents")), []);
  assert.ok(raised.includes("milestone_overdue customs customs_clearance"), raised.join("; "));
});

Deno.test("shipment: received at a depot after departure closes linehaul (courier 3.2: arrived or received)", async () => {
  let s = await booked();
  const at = s.booked_at + HOUR;
  for (const event of ["collected", "departed", "received_at_depot"] as const) {
    s = applied(s, { kind: "record", scan: { event, facility_id: "GBE-HUB", by: "test" } }, at)
      .next;
    if (event === "departed") {
      assert.ok(s.milestones.some((m) => m.name === "linehaul"), "departed opens linehaul");
    }
  }
  assert.deepEqual(s.milestones.filter((m) => m.name === "linehaul"), []);
  assert.ok(s.milestones.some((m) => m.name === "depot_dwell"), "the depot's dwell opens");
});

Deno.test("shipment: a repeated scan keeps the open milestone's deadline; late stays late (courier 3.2, 2.9)", async () => {
  let s = await booked();
  const record = (event: ScanEvent, now: number, extra: Partial<ScanInput> = {}) => {
    s = applied(s, { kind: "record", scan: { event, by: "test", ...extra } }, now).next;
  };
  const open = (name: string) => s.milestones.find((m) => m.name === name)!;
  let now = s.booked_at + HOUR;
  record("collected", now, { holder: "Thabo" });
  record("received_at_depot", now + HOUR, { facility_id: "GBE-HUB" });
  const dwell = open("depot_dwell");
  // Past the dwell's deadline: its alerts raised, the shipment is late.
  now = dwell.due_at + HOUR;
  const d = timerFired(s, "check", now);
  for (const e of d.events) s = shipmentActor.evolve(s, e) as Shipment;
  assert.equal(s.health, "late");
  const alerted = open("depot_dwell");
  // The same depot scans it in again: the dwell it owes is the one it owed, still late, and no
  // second alert is raised for it (2.9: each condition once).
  record("received_at_depot", now, { facility_id: "GBE-HUB" });
  assert.deepEqual(open("depot_dwell"), alerted);
  assert.equal(s.health, "late");
  assert.equal(s.next_due_at, dwell.due_at);
  const later = timerFired(s, "check", now + 48 * HOUR).events.flatMap((e) =>
    e.kind === "alert_due" ? [String(e.alert.detail["milestone"])] : []
  );
  assert.equal(later.includes("depot_dwell"), false, later.join(", "));
  // Out for delivery twice: one delivery attempt owed, from the first.
  record("out_for_delivery", now + HOUR, { holder: "Thabo" });
  const attempt = open("delivery_attempt");
  record("out_for_delivery", now + 3 * HOUR, { holder: "Thabo" });
  assert.deepEqual(open("delivery_attempt"), attempt);
});

Deno.test("shipment: a milestone opens afresh when its opening is new: another depot, papers asked again", async () => {
  let s = await booked();
  const record = (event: ScanEvent, now: number, extra: Partial<ScanInput> = {}) => {
    s = applied(s, { kind: "record", scan: { event, by: "test", ...extra } }, now).next;
  };
  const open = (name: string) => s.milestones.find((m) => m.name === name)!;
  const now = s.booked_at + HOUR;
  record("received_at_depot", now, { facility_id: "GBE-HUB" });
  record("received_at_destination", now + 2 * HOUR, { facility_id: "JNB-HUB" });
  assert.equal(open("depot_dwell").opened_at, now + 2 * HOUR, "received at another depot");
  record("received_at_depot", now + 2 * HOUR, { facility_id: "GBE-HUB" });
  record("received_at_destination", now + 3 * HOUR);
  assert.equal(open("depot_dwell").opened_at, now + 3 * HOUR, "received at the destination");
  record("presented_to_customs", now + 3 * HOUR);
  record("documents_requested", now + 3 * HOUR, { reason: "invoice missing" });
  record("documents_requested", now + 4 * HOUR, { reason: "invoice missing" });
  assert.equal(open("customs_documents").opened_at, now + 3 * HOUR, "the same request again");
  record("documents_supplied", now + 4 * HOUR);
  record("documents_requested", now + 5 * HOUR, { reason: "permit missing" });
  assert.equal(open("customs_documents").opened_at, now + 5 * HOUR);
  assert.equal(open("customs_documents").supplied_at, null, "papers owed again");
  assert.equal(s.health, "waiting_courier");
});

Deno.test("shipment: a failed delivery attempt scanned again is one attempt, one redelivery (courier 3.2, 2.6 rule 3)", async () => {
  let s = await booked();
  const record = (event: ScanEvent, now: number) => {
    const { d, next } = applied(s, { kind: "record", scan: { event, by: "test" } }, now);
    s = next;
    return d;
  };
  const day = 24 * HOUR;
  const now = s.booked_at + HOUR;
  record("out_for_delivery", now);
  record("delivery_attempted", now + HOUR);
  const estimate = s.estimated_delivery_on;
  // The driver's failed attempt sent again, the next day: still the one attempt it was.
  const again = record("delivery_attempted", now + day);
  assert.equal(s.attempts, 1);
  assert.equal(s.estimated_delivery_on, estimate);
  assert.deepEqual(again.events.filter((e) => e.kind === "estimate_changed"), []);
  const out = record("out_for_delivery", now + day + HOUR);
  assert.deepEqual(chargesDue(out).map((c) => c.source_event), [
    `shipment.redelivery:${s.waybill}:1`,
  ]);
  // Out again and failed again: a second attempt.
  record("delivery_attempted", now + day + 2 * HOUR);
  assert.equal(s.attempts, 2);
});

Deno.test("shipment: going back to the sender owes the recipient nothing: no redelivery, no promise, no estimate move", async () => {
  let s = await booked();
  const record = (event: ScanEvent, now: number) => {
    s = applied(s, { kind: "record", scan: { event, by: "test" } }, now).next;
  };
  const now = s.booked_at + HOUR;
  record("collected", now);
  record("out_for_delivery", now + HOUR);
  record("delivery_attempted", now + 2 * HOUR);
  assert.equal(s.health, "waiting_customer");
  const estimate = s.estimated_delivery_on;
  record("returning", now + 3 * HOUR);
  // Decision (3.2 is silent on returning): the recipient's redelivery, the delivery attempt and
  // the delivery promise close; the courier owns the way back.
  const open = s.milestones.map((m) => m.name);
  for (const m of ["delivery_attempt", "redelivery", "promise"]) {
    assert.ok(!open.includes(m as never), `${m} open while returning: ${open.join(", ")}`);
  }
  assert.equal(s.health, "on_schedule");
  assert.equal(s.health_reason, "returning to the sender");
  assert.equal(s.next_owner, "courier");
  // Days on, past every estimated day and the promise: no estimate_changed, not late, not waiting
  // on the customer.
  for (const day of [1, 2, 3, 5, 8, 12]) {
    const d = timerFired(s, "check", now + day * 24 * HOUR);
    assert.deepEqual(estimateMoves(d.events), [], `day ${day}`);
    s = evolveAll(s, d.events);
    assert.equal(s.estimated_delivery_on, estimate);
    assert.ok(!["late", "waiting_customer"].includes(s.health), `${s.health}: ${s.health_reason}`);
  }
  record("returned", now + 13 * 24 * HOUR);
  assert.deepEqual(s.milestones, []);
  assert.equal(s.health, "closed");
});

Deno.test("shipment: one stored returning under the old rule loads owing the recipient nothing", async () => {
  let s = await booked();
  const now = s.booked_at + HOUR;
  for (
    const [i, event] of (["collected", "out_for_delivery", "delivery_attempted"] as const).entries()
  ) {
    s = applied(s, { kind: "record", scan: { event, by: "test" } }, now + i * HOUR).next;
  }
  // What a returning scan stored before: the headline moved, the recipient's milestones kept.
  const stored: Shipment = {
    ...s,
    status: "returning",
    trail: [...s.trail, { ...s.trail.at(-1)!, event: "returning", at: now + 3 * HOUR }],
  };
  const loaded = shipmentActor.load!(structuredClone(stored), 2)!;
  assert.deepEqual(loaded.milestones.map((m) => m.name), []);
  assert.equal(loaded.health, "on_schedule");
  assert.equal(loaded.next_owner, "courier");
  const d = timerFired(loaded, "check", now + 5 * 24 * HOUR);
  assert.deepEqual(estimateMoves(d.events), []);
  // Restated (old data, issue 42 item 9): one check event states the lifecycle load arrived at,
  // so the old record with it applied is today's, and the snapshot the board reads says so.
  const restated = applied(loaded, { kind: "restate" }, now + 4 * HOUR);
  assert.deepEqual(restated.d.events.map((e) => e.kind), ["checked"]);
  // (A lifecycle states customs_check_at even where an older record had none.)
  assert.deepEqual(evolveAll(structuredClone(stored), restated.d.events), {
    customs_check_at: null,
    ...loaded,
  });
});

Deno.test("shipment: cancelling is refused once a physical scan was recorded, the headline still booked", async () => {
  const s = await booked();
  const now = s.booked_at + HOUR;
  const cancel = (state: Shipment) =>
    shipmentActor.decide(state, {
      kind: "record",
      scan: { event: "cancelled", reason: "client asked", by: "test" },
    }, { now: now + HOUR, newId });
  for (const event of ["scan"] as const) {
    const scanned = applied(s, { kind: "record", scan: { event, by: "test" } }, now).next;
    const d = cancel(scanned);
    assert.ok(!d.ok && d.code === "not_cancellable", `after ${event}: ${JSON.stringify(d)}`);
  }
  // A state built by old events: booked, with a physical scan recorded.
  const old: Shipment = {
    ...s,
    last_scan: { event: "scan", at: now, facility_id: null, note: null },
  };
  const d = cancel(shipmentActor.load!(structuredClone(old), 2)!);
  assert.ok(!d.ok && d.code === "not_cancellable", JSON.stringify(d));
  // An exception is no scan: the parcel is not in the courier's hands for it.
  const excepted = applied(s, {
    kind: "record",
    scan: { event: "exception", reason: "address unclear", by: "test" },
  }, now).next;
  assert.ok(cancel(excepted).ok);
  assert.ok(cancel(s).ok);
});

Deno.test("shipment: delivered or returned naming some of its pieces is refused; the shipment stays open (courier 2.3, 2.9)", async () => {
  const parcel = { weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 };
  let s = await booked({ parcels: [parcel, parcel] });
  const now = s.booked_at + HOUR;
  s = applied(s, {
    kind: "record",
    scan: { event: "collected", holder: "driver 7", by: "test" },
  }, now).next;
  const [first, second] = s.pieces.map((p) => p.id);
  for (const event of ["delivered", "returned"] as const) {
    const d = shipmentActor.decide(s, {
      kind: "record",
      scan: { event, pieces: [first!], by: "test" },
    }, { now: now + HOUR, newId });
    assert.ok(!d.ok && d.code === "pieces_incomplete", `${event}: ${JSON.stringify(d)}`);
    assert.match(d.message, new RegExp(second!));
  }
  // Every piece named, or none, closes it as before.
  const all = applied(s, {
    kind: "record",
    scan: { event: "delivered", pieces: [second!, first!], by: "test" },
  }, now + HOUR).next;
  assert.equal(all.status, "delivered");
  const back = applied(s, { kind: "record", scan: { event: "returned", by: "test" } }, now).next;
  assert.equal(back.status, "returned");
});

// ---- Property: random scan sequences against the milestone table of courier 3.2.

/** spec: courier 3.2 milestone table, "Opens" column, read event by event. */
const TABLE_OPENS: Partial<Record<ScanEvent, readonly string[]>> = {
  received_at_depot: ["depot_dwell"],
  received_at_destination: ["depot_dwell"],
  departed: ["linehaul"],
  departed_to_border: ["linehaul", "border_presentation"],
  presented_to_customs: ["customs_clearance"],
  documents_requested: ["customs_documents"],
  out_for_delivery: ["delivery_attempt"],
  delivery_attempted: ["redelivery"],
};

/**
 * spec: courier 3.2 "Closes" column; the events that imply a closing one (leaving a depot is
 * being loaded and collected, presenting at the crossing is having arrived) close it too.
 */
const TABLE_CLOSES: Partial<Record<ScanEvent, readonly string[]>> = {
  collected: ["collection"],
  received_at_depot: ["collection", "linehaul"],
  received_at_destination: ["collection", "linehaul"],
  loaded: ["depot_dwell"],
  departed: ["collection", "depot_dwell"],
  departed_to_border: ["collection", "depot_dwell"],
  arrived: ["linehaul"],
  arrived_at_border: ["linehaul"],
  presented_to_customs: ["border_presentation", "linehaul"],
  cleared: ["customs_clearance", "customs_documents"],
  released: ["customs_clearance", "customs_documents"],
  out_for_delivery: ["collection", "depot_dwell", "redelivery"],
  delivery_attempted: ["delivery_attempt"],
  // Decided (3.2 silent): going back to the sender closes what is owed towards the recipient.
  returning: ["delivery_attempt", "redelivery", "promise"],
};

/** Events that put the parcel in the courier's hands (a scan, custody), written apart. */
const NOT_PHYSICAL: ReadonlySet<string> = new Set([
  "customs_hold",
  "documents_requested",
  "documents_supplied",
  "cleared",
  "released",
  "cancelled",
  "exception",
  "exception_cleared",
  "lost_or_damaged",
]);

const CLOSING: ReadonlySet<string> = new Set(["delivered", "returned", "cancelled"]);

/** spec: courier 3.2 health order, written apart from the code under test. */
function expectedHealth(s: Shipment, now: number): string {
  if (s.status === "delivered") return "delivered";
  if (CLOSING.has(s.status)) return "closed";
  if (s.exception !== null || s.status === "lost_or_damaged") return "exception";
  const open = s.milestones;
  const owes = (m: (typeof open)[number]) => m.owner === "courier" && m.supplied_at === null;
  if (open.some((m) => owes(m) && m.due_at <= now)) return "late";
  if (open.some((m) => m.name === "customs_documents" && m.supplied_at === null)) {
    return "waiting_courier";
  }
  if (
    s.status === "customs_hold" ||
    open.some((m) => m.name === "customs_clearance" || m.name === "customs_documents")
  ) return "waiting_customs";
  if (open.some((m) => m.name === "redelivery")) return "waiting_customer";
  if (open.some((m) => m.at_risk_at <= now)) return "at_risk";
  return "on_schedule";
}

Deno.test("shipment property: random scans keep milestones, health, closing and estimate_changed as courier 3.2 says", async () => {
  const fc = (await import("fast-check")).default;
  const start = await booked();
  const events = Object.keys(TABLE_OPENS).concat(
    Object.keys(TABLE_CLOSES),
    ["scan", "customs_hold", "documents_supplied", "delivered", "returning", "returned"],
    ["cancelled", "exception", "exception_cleared", "lost_or_damaged"],
  ) as ScanEvent[];
  const step = fc.oneof(
    fc.record({
      scan: fc.constantFrom(...new Set(events)),
      hours: fc.integer({ min: 0, max: 30 }),
    }),
    fc.record({ timer: fc.constant(true), hours: fc.integer({ min: 1, max: 72 }) }),
  );
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
      let s = start;
      let now = s.booked_at;
      let scanned = false;
      let wentBack = false;
      for (const st of steps) {
        now += st.hours * HOUR;
        const d = "scan" in st
          ? shipmentActor.decide(s, {
            kind: "record",
            scan: { event: st.scan, reason: "a reason", by: "prop" },
          }, { now, newId })
          : shipmentActor.decide(s, { kind: "timer", name: "check", payload: undefined }, {
            now,
            newId,
          });
        const event = "scan" in st ? st.scan : null;
        if (event !== null && CLOSING.has(s.status)) {
          assert.ok(!d.ok && d.code === "shipment_closed", `${s.status} took ${event}`);
          assert.match(d.message, new RegExp(s.status));
          continue;
        }
        // Cancelling only before the courier has the parcel: headline and no physical scan.
        const cancellable = ["booked", "awaiting_collection"].includes(s.status) && !scanned;
        if (!d.ok) {
          assert.equal(event, "cancelled", JSON.stringify(d));
          assert.equal(d.code, "not_cancellable");
          assert.ok(!cancellable, `a cancellable shipment refused: ${JSON.stringify(d)}`);
          continue;
        }
        if (event === "cancelled") assert.ok(cancellable, `cancelled after a physical scan`);
        if (event !== null && !NOT_PHYSICAL.has(event)) scanned = true;
        if (event === "returning") wentBack = true;
        let next = s;
        for (const e of d.events) next = shipmentActor.evolve(next, e) as Shipment;
        const names = (x: Shipment) => new Set(x.milestones.map((m) => m.name as string));
        const open = names(next);
        const trace = `${steps.map((x) => "scan" in x ? x.scan : "timer").join(",")}`;
        if (CLOSING.has(next.status)) {
          assert.deepEqual([...open], [], `nothing open once ${next.status}: ${trace}`);
        } else if (!wentBack) {
          assert.ok(open.has("promise"), `promise open until delivered: ${trace}`);
        } else {
          assert.ok(!open.has("promise"), `the promise closed once going back: ${trace}`);
        }
        if (next.status === "returning") {
          assert.ok(
            !open.has("redelivery") && !open.has("delivery_attempt"),
            `the recipient owed nothing while returning: ${trace}`,
          );
          if (open.size === 0) assert.equal(next.next_owner, "courier", trace);
        }
        if (event !== null && !CLOSING.has(next.status)) {
          for (const m of TABLE_CLOSES[event] ?? []) {
            assert.ok(!open.has(m), `${event} closes ${m}: ${trace}`);
          }
          for (const m of TABLE_OPENS[event] ?? []) {
            assert.ok(open.has(m), `${event} opens ${m}: ${trace}`);
          }
          // Nothing else opens or closes.
          const was = names(s);
          for (const m of open) {
            assert.ok(was.has(m) || TABLE_OPENS[event]?.includes(m), `${event} opened ${m}`);
          }
          for (const m of was) {
            assert.ok(open.has(m) || TABLE_CLOSES[event]?.includes(m), `${event} closed ${m}`);
          }
        }
        if (event === null) {
          assert.deepEqual(names(s), open, "a timer opens and closes nothing");
        }
        assert.equal(next.health, expectedHealth(next, now), `health at ${trace}`);
        const moves = d.events.filter((e) => e.kind === "estimate_changed");
        if (["returning", "lost_or_damaged"].includes(s.status) && next.status === s.status) {
          assert.deepEqual(moves, [], `estimate_changed while ${s.status}: ${trace}`);
        }
        if (next.estimated_delivery_on === s.estimated_delivery_on) {
          assert.deepEqual(moves, [], `estimate_changed with no move: ${trace}`);
        } else {
          assert.deepEqual(
            moves.map((e) => [e.from, e.to]),
            [[s.estimated_delivery_on, next.estimated_delivery_on]],
          );
        }
        s = next;
      }
    }),
    { numRuns: 300 },
  );
});

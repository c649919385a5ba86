/** The customs crossing's fee and duties, its bounds, exit and entry at the border, the summary and a property of its moves (courier 2.10, 3.4); opening and moving a crossing are in customs_crossing_test.ts. */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  clearanceSourceEvent,
  CROSSING_DOCUMENTS_MAX,
  CROSSING_DUTIES_MAX,
  CROSSING_MOVES_MAX,
  crossingSummary,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  customsCrossingActor,
  type CustomsMove,
  dutySourceEvent,
  SUPPLY_DOCUMENTS_MAX,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { CHARGE_TIMER } from "../../../src/courier/rules/charges_due.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { kinds } from "../../helpers/actor.ts";
import {
  CLEAR,
  DUTIES,
  HOLD,
  move,
  moved,
  opened,
  OPENING,
  RELEASE,
  supply,
  T0,
} from "./customs_crossing_fixtures.ts";

Deno.test("customs crossing: a clearance makes its fee due and arms the charge timer until the ledger confirms", () => {
  const h = opened();
  h.now = T0 + 1_000;
  const step = h.must(CLEAR);
  assert.deepEqual(step.events.slice(1), [{
    kind: "charge_due",
    charge: { source_event: clearanceSourceEvent("xing_1"), move: 1 },
  }]);
  assert.deepEqual(step.timers, [{
    op: "set",
    name: CHARGE_TIMER,
    at: T0 + 1_000 + SCAN_CHARGE_RETRY_MS,
  }]);
  assert.equal(clearanceSourceEvent("xing_1"), "customs.cleared:xing_1");
  // Client-paid duties are due too; the timer armed already is not set again.
  const duty = h.must(DUTIES);
  assert.deepEqual(duty.events.at(-1), {
    kind: "charge_due",
    charge: { source_event: "customs.duties:xing_1", move: 2 },
  });
  assert.deepEqual(duty.timers, []);
  // The timer makes what is still due due again, and is set again.
  h.now = T0 + SCAN_CHARGE_RETRY_MS + 1_000;
  const again = h.fire(CHARGE_TIMER);
  assert.deepEqual(kinds(again.events), ["charge_due", "charge_due"]);
  assert.deepEqual(again.timers, [{
    op: "set",
    name: CHARGE_TIMER,
    at: h.now + SCAN_CHARGE_RETRY_MS,
  }]);
  assert.equal(h.state!.charges_due?.length, 2, "one per source event");
  const first = h.must({
    kind: "confirm_charges",
    source_events: ["customs.cleared:xing_1", "unknown"],
  });
  assert.deepEqual(first.events, [{
    kind: "charges_confirmed",
    source_events: ["customs.cleared:xing_1"],
    at: h.now,
  }]);
  assert.deepEqual(first.timers, []);
  const last = h.must({ kind: "confirm_charges", source_events: ["customs.duties:xing_1"] });
  assert.deepEqual(last.timers, [{ op: "cancel", name: CHARGE_TIMER }]);
  assert.deepEqual(h.state!.charges_due, []);
  assert.deepEqual(
    h.must({ kind: "confirm_charges", source_events: ["customs.duties:xing_1"] }).events,
    [],
  );
  const idle = h.fire(CHARGE_TIMER);
  assert.deepEqual([idle.events, idle.timers], [[], []]);
  assert.deepEqual(h.fire("other").events, []);
});

Deno.test("customs crossing: duties are recorded each with its number; only the client's are charged", () => {
  const h = opened();
  const courier = moved(
    h.must(move({
      action: "duties",
      amount: "10",
      currency: "ZAR",
      payer: " Courier ",
      evidence: "r1",
    })).reply,
  );
  assert.equal(courier.move.payer, "courier");
  assert.deepEqual(courier.crossing.charges_due ?? [], [], "duties the courier pays are no charge");
  h.must(DUTIES);
  assert.deepEqual(h.state!.duties.map((d) => [d.n, d.move, d.amount_minor, d.currency, d.payer]), [
    [1, 1, 1_000, "ZAR", "courier"],
    [2, 2, 12_550, "BWP", "client"],
  ]);
  assert.equal(dutySourceEvent("xing_1", 1), "customs.duties:xing_1");
  assert.equal(dutySourceEvent("xing_1", 2), "customs.duties:xing_1:2");
  assert.deepEqual(h.state!.charges_due, [{ source_event: "customs.duties:xing_1:2", move: 2 }]);
});

Deno.test("customs crossing: duties the account refused are taken back, and only the very move recorded", () => {
  const h = opened();
  const recorded = moved(h.must(DUTIES).reply).move;
  const other: CustomsMove = { ...recorded, amount_minor: 1 };
  assert.deepEqual(
    h.must({ kind: "withdraw_duty", move: other }).events,
    [],
    "not the move recorded",
  );
  assert.deepEqual(h.must({ kind: "withdraw_duty", move: { ...recorded, n: 9 } }).events, []);
  h.now = T0 + 1_000;
  const step = h.must({ kind: "withdraw_duty", move: recorded });
  assert.deepEqual(step.events, [{ kind: "duty_withdrawn", move: 1, at: T0 + 1_000 }]);
  assert.deepEqual([h.state!.history, h.state!.duties, h.state!.charges_due], [[], [], []]);
  assert.deepEqual(h.must({ kind: "withdraw_duty", move: recorded }).events, [], "taken back once");
  // Sent again once the account takes them, they are recorded and booked anew.
  const anew = moved(h.must(DUTIES).reply);
  assert.equal(anew.replayed, false);
  assert.equal(h.state!.duties.length, 1);
  assert.equal(h.state!.charges_due?.[0]?.source_event, "customs.duties:xing_1");
});

Deno.test("customs crossing: moves and duties are bounded", () => {
  const h = opened();
  for (let i = 0; i < CROSSING_DUTIES_MAX; i++) {
    h.must(
      move({
        action: "duties",
        amount: String(i + 1),
        currency: "BWP",
        payer: "courier",
        evidence: `r${i}`,
      }),
    );
  }
  h.refused(
    move({ action: "duties", amount: "99", currency: "BWP", payer: "courier", evidence: "r99" }),
    "customs_moves_limit",
    `a crossing keeps at most ${CROSSING_DUTIES_MAX} duties`,
  );
  for (let i = h.state!.history.length; i < CROSSING_MOVES_MAX; i++) {
    h.must(move({ action: "hold", reason: `reason ${i}` }));
  }
  h.refused(
    move({ action: "hold", reason: "one more" }),
    "customs_moves_limit",
    `a crossing keeps at most ${CROSSING_MOVES_MAX} moves`,
  );
});

Deno.test("customs crossing: a crossing that would outgrow its stored size is refused", () => {
  const h = opened();
  // Three-byte characters at every text bound: 40 documents, then holds until it is full.
  const wide = (n: number, i: number) => `${i}`.padEnd(n, "€");
  for (let s = 0; s < CROSSING_DOCUMENTS_MAX / SUPPLY_DOCUMENTS_MAX; s++) {
    h.must({
      kind: "supply",
      documents: Array.from({ length: SUPPLY_DOCUMENTS_MAX }, (_, i) => ({
        name: wide(CUSTOMS_NAME_CHARS_MAX, s * 100 + i),
        reference: wide(CUSTOMS_NAME_CHARS_MAX, i),
      })),
      by: "agent",
    });
  }
  let refusal = null;
  for (let i = 0; i < CROSSING_MOVES_MAX && refusal === null; i++) {
    const r = h.send(move({
      action: "hold",
      reason: wide(CUSTOMS_TEXT_CHARS_MAX, i),
      evidence: wide(CUSTOMS_TEXT_CHARS_MAX, i),
    }));
    if ("ok" in r) refusal = r;
  }
  assert.ok(refusal, "refused before the count bound");
  assert.equal(refusal.code, "customs_moves_limit");
  assert.match(refusal.message, /^crossing xing_1 is full: \d+ bytes$/);
});

Deno.test("customs crossing: the exit is recorded before the entry, once each; a refused crossing takes no entry", () => {
  const h = opened();
  h.refused(
    { kind: "record_crossing", side: "entry", by: "drv_1" },
    "entry_before_exit",
    "the exit from BW is recorded before the entry to ZA",
  );
  h.now = T0 + 1_000;
  const exit = h.must({ kind: "record_crossing", side: "exit", by: "drv_1" });
  assert.deepEqual(exit.events, [{ kind: "crossed", side: "exit", at: T0 + 1_000, by: "drv_1" }]);
  assert.deepEqual(h.must({ kind: "record_crossing", side: "exit", by: "drv_1" }).events, []);
  h.now = T0 + 2_000;
  h.must({ kind: "record_crossing", side: "entry", by: "drv_1" });
  assert.deepEqual([h.state!.exit_at, h.state!.entry_at], [T0 + 1_000, T0 + 2_000]);
  assert.deepEqual(h.must({ kind: "record_crossing", side: "entry", by: "drv_1" }).events, []);

  const refused = opened();
  refused.must({ kind: "record_crossing", side: "exit", by: "drv_1" });
  refused.must(move({ action: "refuse", reason: "no" }));
  refused.refused(
    { kind: "record_crossing", side: "entry", by: "drv_1" },
    "crossing_closed",
    "crossing xing_1 was refused: no entry is recorded",
  );
});

Deno.test("customs crossing: a release after the vehicle left awaits collection", () => {
  const h = opened();
  h.now = T0 + 1_000;
  h.must({ kind: "vehicle_left", by: "drv_1" });
  assert.equal(h.state!.vehicle_left_at, T0 + 1_000);
  h.now = T0 + 2_000;
  assert.deepEqual(h.must({ kind: "vehicle_left", by: "drv_1" }).events, []);
  assert.equal(h.state!.vehicle_left_at, T0 + 1_000, "the first departure stands");
  assert.equal(h.state!.released_after_departure, false);
  h.must(RELEASE);
  assert.equal(h.state!.released_after_departure, true);
  const before = opened();
  before.must(RELEASE);
  before.must({ kind: "vehicle_left", by: "drv_1" });
  assert.equal(before.state!.released_after_departure, false, "released before it left");
});

Deno.test("customs crossing: one opened at booking takes the first border stop it is presented at", () => {
  const h = opened({ ...OPENING, run_id: null, stop_id: null, border_post: "unknown" });
  const at_stop = {
    run_id: "run_7",
    stop_id: "stop_3",
    border_post: " Kopfontein ",
    country: "BW",
    to_country: "ZA",
    by: "drv_1",
  };
  const step = h.must({ kind: "present", at_stop });
  assert.deepEqual(kinds(step.events), ["presented_at_stop"]);
  assert.deepEqual(
    [h.state!.run_id, h.state!.stop_id, h.state!.border_post],
    ["run_7", "stop_3", "Kopfontein"],
  );
  assert.deepEqual(h.must({ kind: "present", at_stop }).events, [], "the same stop again");
  h.refused(
    { kind: "present", at_stop: { ...at_stop, stop_id: "stop_4" } },
    "presented_elsewhere",
    "crossing xing_1 was presented at stop stop_3 of run run_7",
  );
  // A blank post keeps the one the crossing had.
  const blank = opened({ ...OPENING, run_id: null, stop_id: null });
  blank.must({ kind: "present", at_stop: { ...at_stop, border_post: " " } });
  assert.equal(blank.state!.border_post, "Tlokweng");
});

Deno.test("customs crossing: a presentation the border stop went on without is withdrawn, only there and before anything crossed", () => {
  const h = opened({ ...OPENING, run_id: null, stop_id: null, border_post: "BW-ZA" });
  const at_stop = {
    run_id: "run_7",
    stop_id: "stop_3",
    border_post: "Kopfontein",
    country: "BW",
    to_country: "ZA",
    by: "drv_1",
  };
  h.must({ kind: "present", at_stop });
  const withdraw = { kind: "withdraw_presentation", run_id: "run_7", by: "drv_1" } as const;
  assert.deepEqual(h.must({ ...withdraw, stop_id: "stop_4" }).events, [], "another stop's");
  const step = h.must({ ...withdraw, stop_id: "stop_3" });
  assert.deepEqual(kinds(step.events), ["presentation_withdrawn"]);
  assert.deepEqual(
    [h.state!.run_id, h.state!.stop_id, h.state!.border_post],
    [null, null, "BW-ZA"],
  );
  assert.deepEqual(h.must({ ...withdraw, stop_id: "stop_3" }).events, [], "withdrawn already");
  // Another stop presents it now; once its exit is recorded there, it stands.
  h.must({ kind: "present", at_stop: { ...at_stop, run_id: "run_8" } });
  h.must({ kind: "record_crossing", side: "exit", by: "drv_2" });
  assert.deepEqual(h.must({ ...withdraw, run_id: "run_8", stop_id: "stop_3" }).events, []);
  assert.equal(h.state!.run_id, "run_8");
  // One opened at its stop was never presented elsewhere: nothing to give back.
  assert.deepEqual(opened().must({ ...withdraw, run_id: "run_1", stop_id: "stop_1" }).events, []);
});

Deno.test("customs crossing: the summary counts what it holds and names the last move", () => {
  const h = opened();
  h.must(supply(["invoice"]));
  h.must(HOLD);
  h.must(DUTIES);
  const summary = customsCrossingActor.project!(h.state) as ReturnType<typeof crossingSummary>;
  assert.deepEqual(
    [summary.documents, summary.moves, summary.duties, summary.status],
    [1, 2, 1, "held"],
  );
  assert.deepEqual(summary.last_move, { action: "duties", by: "staff:usr_1", at: T0 });
  assert.ok(!JSON.stringify(summary).includes("receipt-9.pdf"), "evidence stays in the actor");
  assert.equal(customsCrossingActor.project!(null), null);
  assert.ok(h.must({ kind: "get" }).reply?.kind === "crossing");
  assert.throws(() => customsCrossingActor.evolve(null, { kind: "vehicle_left", at: 0, by: "x" }));
});

Deno.test("customs crossing: whatever moves arrive, a crossing is cleared, released and refused at most once", () => {
  const commands = [
    HOLD,
    CLEAR,
    RELEASE,
    DUTIES,
    move({ action: "refuse", reason: "no" }),
    move({ action: "request_documents", reason: "papers" }),
    move({ action: "clear", customs_reference: "OTHER" }),
    supply(["invoice"]),
  ];
  fc.assert(fc.property(fc.array(fc.constantFrom(...commands), { maxLength: 30 }), (sequence) => {
    const h = opened();
    for (const c of sequence) h.send(c);
    const s = h.state!;
    for (const action of ["clear", "release", "refuse"]) {
      assert.ok(s.history.filter((m) => m.action === action).length <= 1, action);
    }
    if (s.refused_at !== null) {
      assert.equal(s.status, "refused");
      assert.equal(s.cleared_at, null);
      assert.equal(s.released_at, null);
    }
    assert.deepEqual(s.history.map((m) => m.n), s.history.map((_, i) => i + 1));
    assert.deepEqual(h.replayed(), s);
  }));
});

/**
 * One customs crossing of one shipment (actors/courier/customs_crossing/mod.ts; courier 2.10, 3.4,
 * 4.5, 7): holds, refusals and requests for documents need a reason; a clearance needs the
 * customs reference; a release needs evidence; duties need amount, currency, payer and evidence;
 * the exit is recorded before the entry; a move sent again is a replay; the clearance's fee and
 * client-paid duties stay due until the ledger confirms them.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  clearanceSourceEvent,
  CROSSING_DOCUMENTS_MAX,
  CROSSING_DUTIES_MAX,
  CROSSING_MOVES_MAX,
  type CrossingCommand,
  type CrossingOpening,
  type CrossingReply,
  crossingSummary,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  customsCrossingActor,
  type CustomsMove,
  dutySourceEvent,
  type MoveInput,
  standsAt,
  SUPPLY_DOCUMENTS_MAX,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { CHARGE_TIMER } from "../../../src/courier/rules/charges_due.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const OPENING: CrossingOpening = {
  id: "xing_1",
  waybill: "WB1",
  client_id: "cli_1",
  country: "BW",
  to_country: "ZA",
  border_post: "Tlokweng",
  run_id: "run_1",
  stop_id: "stop_1",
};

function opened(opening: CrossingOpening = OPENING) {
  const h = new ActorHarness(customsCrossingActor, { now: T0 });
  h.must({ kind: "open", crossing: opening, by: "system" });
  return h;
}

type Harness = ReturnType<typeof opened>;

function move(m: Partial<MoveInput> & Pick<MoveInput, "action">): CrossingCommand {
  return { kind: "move", move: { by: "staff:usr_1", ...m } };
}

const HOLD = move({ action: "hold", reason: "inspection" });
const CLEAR = move({ action: "clear", customs_reference: "BW-CUS-77" });
const RELEASE = move({ action: "release", evidence: "release-slip.pdf" });
const DUTY: MoveInput = {
  action: "duties",
  amount: "125.50",
  currency: "bwp",
  payer: "Client",
  evidence: "receipt-9.pdf",
  by: "staff:usr_1",
};
const DUTIES = move(DUTY);

function moved(reply: CrossingReply | undefined) {
  assert.ok(reply?.kind === "moved");
  return reply;
}

function supply(names: string[], note: string | null = null): CrossingCommand {
  return { kind: "supply", documents: names.map((name) => ({ name })), note, by: "agent" };
}

Deno.test("customs crossing: opened presented, once per shipment", () => {
  const h = new ActorHarness(customsCrossingActor, { now: T0 });
  const step = h.must({ kind: "open", crossing: OPENING, by: "system" });
  assert.deepEqual(kinds(step.events), ["crossing_opened"]);
  assert.ok(step.reply?.kind === "crossing" && step.reply.created);
  const c = h.state!;
  assert.equal(c.status, "presented");
  assert.deepEqual([c.history, c.documents, c.duties, c.supplies], [[], [], [], []]);
  assert.deepEqual([c.exit_at, c.entry_at, c.vehicle_left_at], [null, null, null]);
  const again = h.must({ kind: "open", crossing: OPENING, by: "system" });
  assert.deepEqual(again.events, []);
  assert.ok(again.reply?.kind === "crossing" && !again.reply.created);
  h.refused(
    { kind: "open", crossing: { ...OPENING, waybill: "WB2" }, by: "system" },
    "already_exists",
    "crossing xing_1 belongs to another shipment",
  );
});

Deno.test("customs crossing: opening needs waybill, client, countries and border post", () => {
  for (const field of ["waybill", "client_id", "country", "to_country", "border_post"] as const) {
    for (const value of [" ", "x".repeat(CUSTOMS_NAME_CHARS_MAX + 1)]) {
      new ActorHarness(customsCrossingActor).refused(
        { kind: "open", crossing: { ...OPENING, [field]: value }, by: "system" },
        "validation_failed",
        "a crossing needs a waybill, client, country, to_country and border post",
      );
    }
  }
  for (const c of [{ kind: "get" }, HOLD, supply(["invoice"])] as CrossingCommand[]) {
    new ActorHarness(customsCrossingActor).refused(c, "not_found", "customs crossing not found");
  }
});

Deno.test("customs crossing: each move needs what courier 2.10 names", () => {
  const h = opened();
  for (const action of ["hold", "refuse", "request_documents"] as const) {
    h.refused(move({ action }), "reason_required", `${action} needs a reason`);
    h.refused(move({ action, reason: "   " }), "reason_required");
  }
  h.refused(
    move({ action: "clear" }),
    "customs_reference_required",
    "a clearance needs the customs reference",
  );
  h.refused(
    move({ action: "release", evidence: "" }),
    "evidence_required",
    "a release needs evidence",
  );
  const duties = h.refused(
    move({ action: "duties", amount: " ", payer: "client" }),
    "duties_fields_required",
    "duties need amount, currency, payer and evidence: missing amount, currency, evidence",
  );
  assert.deepEqual(duties.details, { missing: ["amount", "currency", "evidence"] });
});

Deno.test("customs crossing: duties are a positive decimal in a real currency", () => {
  const h = opened();
  const duty = (amount: string | number, currency = "BWP") =>
    move({ action: "duties", amount, currency, payer: "client", evidence: "r.pdf" });
  h.refused(duty("10", "XYZ"), "invalid_currency", "not a currency code: XYZ");
  h.refused(duty("0"), "invalid_amount", "duties must be above zero: 0");
  h.refused(duty("-5"), "invalid_amount", "duties must be above zero: -5");
  h.refused(duty("1.234"), "invalid_amount", "BWP has 2 decimal places: 1.234");
  h.refused(duty("ten"), "invalid_amount", "not a decimal amount: ten");
  const step = h.must(duty(12.5));
  assert.equal(moved(step.reply).move.amount_minor, 1_250);
});

Deno.test("customs crossing: each action moves the status, recorded with its facts and number", () => {
  const h = opened();
  h.now = T0 + 1_000;
  const held = moved(h.must(HOLD).reply);
  assert.deepEqual(held.move, {
    n: 1,
    action: "hold",
    reason: "inspection",
    customs_reference: null,
    evidence: null,
    amount_minor: null,
    currency: null,
    payer: null,
    by: "staff:usr_1",
    at: T0 + 1_000,
  });
  assert.equal(h.state!.status, "held");
  h.must(move({ action: "request_documents", reason: "certificate of origin" }));
  assert.equal(h.state!.status, "documents_requested");
  h.now = T0 + 2_000;
  const cleared = moved(h.must(CLEAR).reply);
  assert.equal(cleared.move.n, 3);
  assert.equal(h.state!.status, "cleared");
  assert.equal(h.state!.customs_reference, "BW-CUS-77");
  assert.equal(h.state!.cleared_at, T0 + 2_000);
  h.must(RELEASE);
  assert.equal(h.state!.status, "released");
  assert.equal(h.state!.released_at, T0 + 2_000);
  assert.deepEqual(h.state!.history.map((m) => m.n), [1, 2, 3, 4]);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("customs crossing: nothing moves a refused crossing; cleared and released only take each other and duties", () => {
  const refused = opened();
  refused.must(move({ action: "refuse", reason: "prohibited goods" }));
  assert.equal(refused.state!.refused_at, T0);
  refused.refused(
    CLEAR,
    "crossing_closed",
    "crossing xing_1 is refused: nothing more may follow, not clear",
  );
  refused.refused(DUTIES, "crossing_closed");

  const cleared = opened();
  cleared.must(CLEAR);
  cleared.refused(
    HOLD,
    "crossing_closed",
    "crossing xing_1 is cleared: only release or duties may follow, not hold",
  );
  cleared.must(DUTIES);
  assert.equal(cleared.state!.status, "cleared", "duties leave the status as it is");
  cleared.must(RELEASE);
  cleared.refused(
    move({ action: "refuse", reason: "late" }),
    "crossing_closed",
    "crossing xing_1 is released: only duties may follow, not refuse",
  );

  const released = opened();
  released.must(RELEASE);
  released.refused(
    move({ action: "request_documents", reason: "x" }),
    "crossing_closed",
    "crossing xing_1 is released: only clear or duties may follow, not request_documents",
  );
  released.must(CLEAR);
  assert.equal(released.state!.status, "cleared");
});

Deno.test("customs crossing: a move sent again with the same facts is a replay, whatever followed it", () => {
  const h = opened();
  const first = moved(h.must(CLEAR).reply).move;
  h.must(RELEASE);
  const again = h.must(CLEAR);
  assert.deepEqual(again.events, []);
  assert.deepEqual(moved(again.reply), {
    kind: "moved",
    crossing: h.state,
    move: first,
    replayed: true,
  });
  // Another reference is another clearance: refused, the crossing took one.
  h.refused(move({ action: "clear", customs_reference: "OTHER" }), "crossing_closed");
  // Duties retyped with another reason are the duties recorded.
  const duties = moved(
    h.must(move({ ...DUTY, reason: "vat" })).reply,
  );
  assert.equal(duties.replayed, false);
  const retyped = moved(
    h.must(move({ ...DUTY, reason: "import vat" })).reply,
  );
  assert.equal(retyped.replayed, true);
  assert.equal(retyped.move.n, duties.move.n);
  assert.equal(h.state!.duties.length, 1);
});

Deno.test("customs crossing: a hold answered again after customs moved on is recorded once and stands no more", () => {
  const h = opened();
  const hold = moved(h.must(HOLD).reply).move;
  assert.ok(standsAt(h.state!, hold));
  h.must(supply(["invoice"]));
  assert.equal(h.state!.status, "presented", "papers supplied: presented again");
  assert.ok(!standsAt(h.state!, hold));
  const late = h.must(HOLD);
  assert.deepEqual(late.events, [], "the same hold again is the one recorded");
  assert.equal(moved(late.reply).replayed, true);
  assert.equal(h.state!.status, "presented");
  // A new hold states a reason of its own.
  const second = moved(h.must(move({ action: "hold", reason: "x-ray" })).reply).move;
  assert.ok(standsAt(h.state!, second));
  const clear = moved(h.must(CLEAR).reply).move;
  assert.ok(standsAt(h.state!, clear), "a clearance always stands");
});

Deno.test("customs crossing: supplies append documents; from held or requested they present it again", () => {
  const h = opened();
  h.must(move({ action: "request_documents", reason: "certificate" }));
  h.now = T0 + 5_000;
  const step = h.must({
    kind: "supply",
    documents: [{ name: " Certificate of origin ", reference: "CO-1" }, { name: "Invoice" }],
    note: " urgent ",
    by: "agent",
  });
  const reply = step.reply;
  assert.ok(reply?.kind === "supplied" && !reply.replayed);
  assert.deepEqual(reply.supply, {
    n: 1,
    note: "urgent",
    from_status: "documents_requested",
    by: "agent",
    at: T0 + 5_000,
  });
  assert.deepEqual(h.state!.documents.map((d) => [d.name, d.reference, d.supply]), [
    ["Certificate of origin", "CO-1", 1],
    ["Invoice", null, 1],
  ]);
  assert.equal(h.state!.status, "presented");
  // The same papers again change nothing: a retry of the supply recorded.
  const retry = h.must({ kind: "supply", documents: [{ name: "Invoice" }], by: "agent" });
  assert.deepEqual(retry.events, []);
  assert.ok(retry.reply?.kind === "supplied" && retry.reply.replayed && retry.reply.supply.n === 1);
  h.must(supply(["Packing list"]));
  assert.equal(h.state!.supplies.length, 2);
  assert.equal(h.state!.documents.length, 3, "append-only");
});

Deno.test("customs crossing: supplies are bounded and closed once cleared or refused", () => {
  const h = opened();
  h.refused(supply([]), "documents_required", "a supply names at least one document");
  h.refused(supply(["ok", " "]), "documents_required");
  const many = Array.from({ length: SUPPLY_DOCUMENTS_MAX + 1 }, (_, i) => `doc ${i}`);
  h.refused(
    supply(many),
    "too_many_documents",
    `at most ${SUPPLY_DOCUMENTS_MAX} documents in one supply: ${many.length}`,
  );
  h.must(supply(many.slice(0, SUPPLY_DOCUMENTS_MAX)));
  h.must(supply(many.slice(0, SUPPLY_DOCUMENTS_MAX).map((d) => `${d} b`)));
  assert.equal(h.state!.documents.length, CROSSING_DOCUMENTS_MAX);
  h.refused(
    supply(["one more"]),
    "too_many_documents",
    `a crossing keeps at most ${CROSSING_DOCUMENTS_MAX} documents: ${CROSSING_DOCUMENTS_MAX}`,
  );
  h.must(CLEAR);
  h.refused(supply(["late"]), "crossing_closed", "crossing xing_1 is cleared: no more documents");
  const refused = opened();
  refused.must(move({ action: "refuse", reason: "no" }));
  refused.refused(
    supply(["late"]),
    "crossing_closed",
    "crossing xing_1 is refused: no more documents",
  );
});

Deno.test("customs crossing: texts are trimmed and cut to their bounds", () => {
  const h = opened();
  const long = "r".repeat(CUSTOMS_TEXT_CHARS_MAX + 10);
  const m =
    moved(h.must(move({ action: "hold", reason: `  ${long}`, evidence: " photo " })).reply).move;
  assert.equal(m.reason, long.slice(0, CUSTOMS_TEXT_CHARS_MAX));
  assert.equal(m.evidence, "photo");
  const ref = "C".repeat(CUSTOMS_NAME_CHARS_MAX + 5);
  const c =
    moved(h.must(move({ action: "clear", customs_reference: ref, reason: "  " })).reply).move;
  assert.equal(c.customs_reference, ref.slice(0, CUSTOMS_NAME_CHARS_MAX));
  assert.equal(c.reason, null);
});

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

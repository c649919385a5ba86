/**
 * One customs crossing of one shipment (actors/courier/customs_crossing/mod.ts; courier 2.10, 3.4,
 * 4.5, 7): holds, refusals and requests for documents need a reason; a clearance needs the
 * customs reference; a release needs evidence; duties need amount, currency, payer and evidence;
 * the exit is recorded before the entry; a move sent again is a replay; the clearance's fee and
 * client-paid duties stay due until the ledger confirms them.
 */
import assert from "node:assert/strict";
import {
  CROSSING_DOCUMENTS_MAX,
  type CrossingCommand,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  customsCrossingActor,
  standsAt,
  SUPPLY_DOCUMENTS_MAX,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import {
  CLEAR,
  DUTIES,
  DUTY,
  HOLD,
  move,
  moved,
  opened,
  OPENING,
  RELEASE,
  supply,
  T0,
} from "./customs_crossing_fixtures.ts";

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
  // spec: courier 3.2: a plain hold is customs' own: papers are kept, the hold stands.
  h.must(supply(["invoice"]));
  assert.equal(h.state!.status, "held", "papers supplied to a plain hold: still held");
  assert.ok(standsAt(h.state!, hold));
  h.must(move({ action: "request_documents", reason: "certificate" }));
  h.must(supply(["certificate"]));
  assert.equal(h.state!.status, "presented", "papers asked for supplied: presented again");
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

Deno.test("customs crossing: supplies append documents; the papers customs asked for present it again", () => {
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

Deno.test("customs crossing: a supply recorded before it kept its status is read as it was then", () => {
  const h = opened();
  h.must(HOLD);
  const supply = { n: 1, note: null, from_status: "held" as const, by: "agent", at: T0 };
  // Recorded under the rule of then (papers lifted any hold), without the status it left.
  const then = customsCrossingActor.evolve(h.state, {
    kind: "documents_supplied",
    supply,
    documents: [],
  });
  assert.equal(then!.status, "presented");
  const now = customsCrossingActor.evolve(h.state, {
    kind: "documents_supplied",
    supply,
    documents: [],
    status: "held",
  });
  assert.equal(now!.status, "held");
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

Deno.test("customs crossing: a hold meeting a delivery under way waits until its run voided it; a held shipment reserves none", () => {
  const h = opened();
  const delivery = { token: "run_1:WB1:0", run_id: "run_1", waybill: "WB1" };
  const reserve = { kind: "reserve_delivery", delivery } as const;
  assert.deepEqual(kinds(h.must(reserve).events), ["delivery_reserved"]);
  assert.deepEqual(h.must(reserve).events, []);
  // spec: courier 3.4: the hold names the run to void the delivery first; nothing is held yet.
  const refused = h.refused(HOLD, "delivery_under_way");
  assert.deepEqual(refused.details, delivery);
  assert.equal(h.state!.status, "presented");
  const stale = move({ action: "hold", reason: "inspection", voiding: "run_1:WB1:7" });
  h.refused(stale, "delivery_under_way");
  const voided = move({ action: "hold", reason: "inspection", voiding: delivery.token });
  assert.deepEqual(kinds(h.must(voided).events), ["delivery_voided", "moved"]);
  assert.equal(h.state!.status, "held");
  assert.equal(h.state!.delivery_under_way, null);
  h.refused(reserve, "held_by_customs");
  // A clearance or release never waits for a delivery.
  h.must(RELEASE);
  h.must(reserve);
  assert.deepEqual(kinds(h.must(CLEAR).events), ["moved", "charge_due"]);
  assert.deepEqual(h.replayed(), h.state);
});

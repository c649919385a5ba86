/** The lab sample actor's seal and checklist ticks, lateness, the laboratory's decisions, the handover and the summary (courier 2.10); its profile and readings are in lab_sample_test.ts. */
import assert from "node:assert/strict";
import {
  asLabSample,
  handoverVerdict,
  LAB_DECISIONS_IN_STATE_MAX,
  LAB_TICK_ITEMS_MAX,
  labSampleActor,
  labSummaryOf,
  REJECTED_BY_LABORATORY,
} from "../../../actors/courier/lab_sample/mod.ts";
import { kinds } from "../../helpers/actor.ts";
import {
  approveCommand,
  DEADLINE,
  HOUR,
  profileCommand,
  profiled,
  reading,
  T0,
  tickCommand,
  verdict,
} from "./lab_sample_fixtures.ts";

Deno.test("lab sample: the seal tick marks it intact, or broken for good by ok false or another seal id", () => {
  const h = profiled();
  assert.deepEqual(h.must(tickCommand("seal", true, "SEAL-1")).events, [{
    kind: "ticked",
    tick: { item: "seal", ok: true, note: null, seal_id: "SEAL-1", by: "driver:drv_1", at: T0 },
    seal: "intact",
  }]);
  assert.equal(h.state!.seal, "intact");
  const swapped = h.must(tickCommand("seal", true, "SEAL-2"));
  assert.deepEqual(swapped.events[1], {
    kind: "blocked",
    reason: "seal_broken",
    detail: "seal SEAL-2 is not the profile's seal SEAL-1",
    at: T0,
  });
  assert.equal(h.state!.seal, "broken");
  const again = h.must(tickCommand("seal", true, "SEAL-1"));
  assert.equal(h.state!.seal, "broken", "broken for good");
  assert.deepEqual(kinds(again.events), ["ticked"], "blocked once");
  const found = profiled();
  const broken = found.must(tickCommand("seal", false));
  assert.deepEqual(broken.events[1], {
    kind: "blocked",
    reason: "seal_broken",
    detail: "the seal was found broken",
    at: T0,
  });
  // A profile without a seal id takes any seal id as intact.
  const noSeal = profiled({ seal_id: null });
  noSeal.must(tickCommand("seal", true, "ANY"));
  assert.equal(noSeal.state!.seal, "intact");
});

Deno.test("lab sample: ticks keep the latest per item; a checklist bounds them to its items", () => {
  const h = profiled();
  h.refused(tickCommand("  "), "item_required", "a tick names its checklist item");
  h.must(tickCommand("label"));
  h.must({
    kind: "tick",
    item: "label",
    ok: false,
    note: `  ${"n".repeat(200)}`,
    seal_id: null,
    by: "x",
  });
  assert.equal(h.state!.ticks.length, 1);
  assert.equal(h.state!.ticks_total, 2);
  assert.equal(h.state!.ticks[0]!.ok, false);
  assert.equal(h.state!.ticks[0]!.note?.length, 120);
  for (let i = 1; i < LAB_TICK_ITEMS_MAX; i++) h.must(tickCommand(`item_${i}`));
  h.refused(
    tickCommand("one_more"),
    "tick_items_limit",
    `a sample keeps at most ${LAB_TICK_ITEMS_MAX} tick items`,
  );
  h.must(tickCommand("label"));

  const checklist = {
    code: "LAB-1",
    version: 2,
    items: [{ key: "label", required: true }, { key: "photo", required: false }, {
      key: "temp_log",
      required: true,
    }],
  };
  const c = profiled({ checklist });
  c.refused(
    tickCommand("other"),
    "unknown_checklist_item",
    "checklist LAB-1 version 2 has no item: other",
  );
  c.must(tickCommand("seal", true, "SEAL-1")); // the seal is always an item
  c.must(tickCommand("label"));
  c.must(tickCommand("temp_log", false));
  // Required items not ticked ok are shown; the checklist's supplier decides, not the service.
  assert.deepEqual(verdict(c), { allowed: true, reasons: [], missing_items: ["temp_log"] });
});

Deno.test("lab sample: a tick or reading after the deadline records the lateness once", () => {
  const h = profiled();
  h.now = DEADLINE + 1;
  const step = h.must(tickCommand("label"));
  assert.deepEqual(step.events[1], {
    kind: "blocked",
    reason: "late_sample",
    detail:
      "the laboratory deadline 2026-11-02T14:00:00.000Z passed: recorded 2026-11-02T14:00:00.001Z",
    at: DEADLINE + 1,
  });
  assert.equal(h.state!.late_recorded, true);
  assert.deepEqual(kinds(h.must(tickCommand("photo")).events), ["ticked"], "recorded once");
  // A reading measured after the deadline, recorded before it, is late too.
  const measured = profiled();
  measured.now = DEADLINE - 1_000;
  const r = measured.must(reading(4, { time: DEADLINE + 60_000 }));
  assert.equal(r.events.at(-1)?.kind, "blocked");
  assert.match(
    (r.events.at(-1) as { detail: string }).detail,
    /^a reading was taken after the laboratory deadline/,
  );
});

Deno.test("lab sample: the handover check records lateness nobody recorded and answers every reason", () => {
  const h = profiled();
  assert.deepEqual(verdict(h), { allowed: true, reasons: [], missing_items: [] });
  h.now = DEADLINE + 1;
  // From the state alone, late counts without being recorded.
  assert.deepEqual(handoverVerdict(h.state!, h.now).reasons, ["late_sample"]);
  const step = h.must({ kind: "handover_check" });
  assert.deepEqual(kinds(step.events), ["blocked"]);
  h.must(reading(9, { time: DEADLINE }));
  assert.deepEqual(verdict(h), {
    allowed: false,
    reasons: ["late_sample", "temperature_out_of_range"],
    missing_items: [],
  });
  assert.deepEqual(h.must({ kind: "handover_check" }).events, [], "recorded once");
});

Deno.test("lab sample: accept settles the blocks open now; a later exception blocks again", () => {
  const h = profiled();
  h.refused(
    approveCommand("accept"),
    "nothing_to_approve",
    "no block awaits the laboratory's decision",
  );
  h.must(reading(9));
  h.must(tickCommand("seal", false));
  h.refused(
    approveCommand("accept", "  "),
    "note_required",
    "the laboratory's decision needs a note",
  );
  h.now = T0 + 1_000;
  const step = h.must(approveCommand("accept", "  used anyway  "));
  assert.deepEqual(step.events, [{
    kind: "decided",
    decision: {
      decision: "accept",
      note: "used anyway",
      decided_by: "Dr Kgosi",
      recorded_by: "staff:usr_1",
      at: T0 + 1_000,
      settled: ["temperature_out_of_range", "seal_broken"],
    },
  }]);
  assert.deepEqual(verdict(h), { allowed: true, reasons: [], missing_items: [] });
  h.must(reading(10, { time: T0 + 1_000 }));
  assert.deepEqual(verdict(h).reasons, ["temperature_out_of_range"]);
});

Deno.test("lab sample: approving a late sample nobody recorded records and settles the lateness", () => {
  const h = profiled();
  h.now = DEADLINE + 1;
  const step = h.must(approveCommand("accept"));
  assert.deepEqual(kinds(step.events), ["blocked", "decided"]);
  const decided = step.events[1];
  assert.ok(decided?.kind === "decided");
  assert.deepEqual(decided.decision.settled, ["late_sample"]);
  assert.deepEqual(verdict(h).reasons, [], "lateness is recorded once, and settled");
});

Deno.test("lab sample: a rejection refuses the handover for good", () => {
  const h = profiled();
  h.must(tickCommand("seal", false));
  h.must(approveCommand("reject", "seal tampered"));
  assert.equal(h.state!.rejected, true);
  assert.deepEqual(verdict(h).reasons, [REJECTED_BY_LABORATORY]);
  h.refused(
    approveCommand("accept"),
    "lab_decision_final",
    "the laboratory already rejected this sample",
  );
});

Deno.test("lab sample: decisions are bounded in state and counted in full", () => {
  const h = profiled({ deadline_at: null });
  const n = LAB_DECISIONS_IN_STATE_MAX + 3;
  for (let i = 0; i < n; i++) {
    h.must(reading(9, { time: T0 - i }));
    h.must(approveCommand("accept", `decision ${i}`));
  }
  assert.equal(h.state!.decisions.length, LAB_DECISIONS_IN_STATE_MAX);
  assert.equal(h.state!.decisions_total, n);
  assert.equal(h.state!.decisions.at(-1)!.note, `decision ${n - 1}`);
});

Deno.test("lab sample: after the handover nothing the laboratory records makes it late or blocked", () => {
  const h = profiled();
  h.now = DEADLINE - HOUR;
  assert.deepEqual(h.must({ kind: "handed_over", at: h.now }).events, [{
    kind: "handed_over",
    at: DEADLINE - HOUR,
  }]);
  assert.deepEqual(h.must({ kind: "handed_over", at: h.now + 5 }).events, [], "the first stands");
  h.now = DEADLINE + HOUR;
  const late = h.must(reading(20, { time: DEADLINE + HOUR }));
  assert.deepEqual(kinds(late.events), ["reading_recorded"], "measured after the handover: kept");
  h.must(tickCommand("label"));
  assert.deepEqual(verdict(h).reasons, []);
  // The laboratory finding the seal broken on receipt: recorded, blocking a handover made already
  // no more than its own late reading does.
  const seal = h.must(tickCommand("seal", false));
  assert.deepEqual(kinds(seal.events), ["ticked"]);
  assert.equal(h.state!.seal, "broken");
  assert.deepEqual(verdict(h).reasons, []);
  // A reading taken while still in the courier's care blocks, whenever it is sent.
  h.must(reading(20, { time: DEADLINE - 2 * HOUR }));
  assert.deepEqual(verdict(h).reasons, ["temperature_out_of_range"]);
});

Deno.test("lab sample: once handed over, the profile is fixed: no range, deadline or charge comes after", () => {
  const h = profiled({ min_temp_c: null, max_temp_c: null });
  h.must({ kind: "handed_over", at: T0 + HOUR });
  // spec: courier 3.4, 2.6 rule 1: the laboratory has it: a cold range set now would charge a
  // cold chain the courier never kept, a new deadline judge a handover already made.
  h.refused(
    profileCommand({ min_temp_c: 2, max_temp_c: 8 }),
    "lab_profile_locked",
    "the profile is fixed once the sample was handed over to the laboratory: WB1",
  );
  h.refused(
    profileCommand({ min_temp_c: null, max_temp_c: null, deadline_at: null }),
    "lab_profile_locked",
  );
  assert.deepEqual(
    h.must(profileCommand({ min_temp_c: null, max_temp_c: null })).events,
    [],
    "the same profile again: a retry",
  );
  assert.equal(h.state!.cold_chain, false);
});

Deno.test("lab sample: the summary carries no readings or ticks", () => {
  const h = profiled();
  h.must(reading(9));
  h.must(tickCommand("label"));
  const summary = labSampleActor.project!(h.state) as ReturnType<typeof labSummaryOf>;
  assert.equal(summary.readings_total, 1);
  assert.deepEqual(summary.last_reading, { time: T0, celsius_tenths: 90, in_range: false });
  assert.deepEqual(summary.open_blocks, ["temperature_out_of_range"]);
  assert.ok(!("readings" in summary) && !("ticks" in summary));
  assert.equal(labSampleActor.project!(null), undefined);
  assert.throws(() => asLabSample({ allowed: true, reasons: [], missing_items: [] }));
  assert.deepEqual(h.fire("x").events, []);
  assert.deepEqual(h.replayed(), h.state);
  assert.throws(() => labSampleActor.evolve(null, { kind: "handed_over", at: 0 }));
});

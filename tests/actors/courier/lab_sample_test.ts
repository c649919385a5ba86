/**
 * One laboratory sample (actors/courier/lab_sample/mod.ts; courier 2.10 "temperature reading: value,
 * unit (C or F), source, device, time; append-only", 3.4 "laboratory handover: late sample,
 * out-of-range reading or broken seal: blocked until someone with runs:override records the
 * laboratory's decision", 7 "temperature readings need value, unit, source, device, time").
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  asLabSample,
  celsiusTenths,
  formatTenths,
  isWholeTenths,
  LAB_NAME_CHARS_MAX,
  LAB_READINGS_IN_STATE_MAX,
  type LabSample,
  labSampleActor,
  type LabSampleCommand,
  READING_AHEAD_MS_MAX,
  TEMPERATURE_ABS_MAX,
  withinRange,
} from "../../../actors/courier/lab_sample/mod.ts";
import {
  LAB_READINGS_MAX,
  LAB_SAMPLE_STATE_BYTES_MAX,
  STATE_BYTES_MAX,
} from "../../../src/limits.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import { openTestRuntime, type TestRuntime } from "../../runtime/fixtures.ts";
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

Deno.test("lab sample: the profile comes first; a range makes the sample cold chain", () => {
  const h = new ActorHarness(labSampleActor, { now: T0 });
  for (const c of [tickCommand("seal"), reading(4), approveCommand("accept")]) {
    h.refused(c, "lab_profile_missing", "the sample has no laboratory profile yet: set it first");
  }
  h.refused({ kind: "get" }, "not_found", "no laboratory record for this shipment");
  h.refused({ kind: "handover_check" }, "not_found");
  assert.deepEqual(h.must({ kind: "handed_over", at: T0 }).events, [], "nothing to mark");
  const step = h.must(profileCommand());
  // spec: courier 2.6 rule 3: the cold-chain charge is due from the profile's own commit.
  assert.deepEqual(kinds(step.events), ["profiled", "charge_due"]);
  const s = asLabSample(step.reply!);
  assert.deepEqual(s.charges_due, [{ source_event: "sample.cold_chain:WB1", by: "staff:usr_1" }]);
  assert.deepEqual(s.profile, {
    sample_type: "blood",
    laboratory: "Central Lab",
    min_tenths: 20,
    max_tenths: 80,
    deadline_at: DEADLINE,
    seal_id: "SEAL-1",
    checklist: null,
  });
  assert.equal(s.cold_chain, true);
  assert.equal(s.seal, "unknown");
  assert.equal(
    asLabSample(profiled({ min_temp_c: null, max_temp_c: null }).state!).cold_chain,
    false,
  );
  assert.equal(profiled({ min_temp_c: null }).state!.cold_chain, true, "either bound");
});

Deno.test("lab sample: a profile needs a type and a range of whole tenths, min not above max", () => {
  const fresh = () => new ActorHarness(labSampleActor, { now: T0 });
  fresh().refused(
    profileCommand({ sample_type: "  " }),
    "sample_type_required",
    "a profile needs a sample_type",
  );
  for (const bound of [2.05, TEMPERATURE_ABS_MAX + 1, Number.NaN]) {
    fresh().refused(
      profileCommand({ min_temp_c: bound }),
      "invalid_temperature_range",
      `a range bound is a temperature in °C to at most one decimal: ${bound}`,
    );
  }
  fresh().refused(
    profileCommand({ min_temp_c: 8.5, max_temp_c: 8 }),
    "invalid_temperature_range",
    "min_temp_c must not be above max_temp_c: 8.5 °C > 8.0 °C",
  );
  fresh().must(profileCommand({ min_temp_c: -20.5, max_temp_c: -20.5 }));
});

Deno.test("lab sample: the profile may be replaced until first use or its deadline, then it is locked", () => {
  const h = profiled();
  h.must(profileCommand({ max_temp_c: 6 }));
  assert.equal(h.state!.profile.max_tenths, 60);
  assert.deepEqual(h.must(profileCommand({ max_temp_c: 6 })).events, [], "the same again: a retry");
  h.must(reading(4));
  const locked =
    "the profile is fixed once ticks, readings or blocks are recorded or its deadline has passed: WB1";
  h.refused(profileCommand({ max_temp_c: 10 }), "lab_profile_locked", locked);
  assert.deepEqual(h.must(profileCommand({ max_temp_c: 6 })).events, [], "a retry still answers");
  // Past the deadline nothing was recorded, but the sample is late: the deadline cannot move.
  const late = profiled();
  late.now = DEADLINE + 1;
  late.refused(profileCommand({ deadline_at: DEADLINE + 10 * HOUR }), "lab_profile_locked", locked);
  late.refused(profileCommand({ deadline_at: null }), "lab_profile_locked");
});

Deno.test("lab sample: a reading needs value, unit, source, device and time", () => {
  const h = profiled();
  const missing = h.refused(
    {
      kind: "temperature",
      reading: { value: null, unit: "C", source: " ", device: null, time: T0 },
      by: "x",
    },
    "temperature_fields_required",
    "a temperature reading needs value, unit, source, device and time: missing value, source, device",
  );
  assert.deepEqual(missing.details, { missing: ["value", "source", "device"] });
  h.refused(
    reading(TEMPERATURE_ABS_MAX + 1),
    "invalid_temperature",
    `not a temperature: ${TEMPERATURE_ABS_MAX + 1}`,
  );
  h.refused(reading(4, { unit: "K" as never }), "invalid_temperature", "unit is C or F: K");
  const future = T0 + READING_AHEAD_MS_MAX + 1;
  h.refused(
    reading(4, { time: future }),
    "invalid_temperature",
    `time: a reading cannot be taken in the future: ${new Date(future).toISOString()}`,
  );
  h.must(reading(4, { time: T0 + READING_AHEAD_MS_MAX }));
});

Deno.test("lab sample: readings are appended with their value in exact tenths of °C; the same one is kept once", () => {
  const h = profiled();
  h.now = T0 + 60_000;
  const step = h.must(reading(46.4, { unit: "F", source: " logger " }));
  assert.deepEqual(step.events, [{
    kind: "reading_recorded",
    reading: {
      seq: 1,
      value: 46.4,
      unit: "F",
      source: "logger",
      device: "DL-7",
      time: T0,
      celsius_tenths: 80,
      in_range: true,
      recorded_at: T0 + 60_000,
      by: "driver:drv_1",
    },
  }]);
  assert.deepEqual(h.must(reading(46.4, { unit: "F" })).events, [], "sent again: kept once");
  h.must(reading(46.4, { unit: "F", time: T0 + 1 }));
  assert.equal(h.state!.readings_total, 2);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("lab sample: conversions are exact and rounded once, half away from zero", () => {
  assert.equal(celsiusTenths(46.4, "F"), 80);
  assert.equal(celsiusTenths(32, "F"), 0);
  assert.equal(celsiusTenths(-40, "F"), -400);
  assert.equal(celsiusTenths(8.04, "C"), 80);
  assert.equal(celsiusTenths(8.05, "C"), 81);
  assert.equal(celsiusTenths(-0.05, "C"), -1);
  assert.equal(celsiusTenths(1e-7, "C"), 0);
  assert.equal(formatTenths(-15), "-1.5 °C");
  assert.ok(isWholeTenths(2.5) && isWholeTenths(-3) && !isWholeTenths(2.55));
  fc.assert(fc.property(fc.integer({ min: -10_000, max: 10_000 }), (tenths) => {
    // Whole tenths of °C convert back exactly, and a °F value of a whole tenth °C too.
    assert.equal(celsiusTenths(tenths / 10, "C"), tenths);
    const f = (tenths * 9) / 50 + 32;
    if (Number.isInteger(tenths * 9 / 5)) assert.equal(celsiusTenths(f, "F"), tenths);
  }));
});

Deno.test("lab sample: the range is judged on the exact value: 8.04 °C is above 8 °C", () => {
  assert.equal(withinRange(8.04, "C", 20, 80), false);
  assert.equal(withinRange(8, "C", 20, 80), true);
  assert.equal(withinRange(46.4, "F", 20, 80), true);
  assert.equal(withinRange(46.41, "F", 20, 80), false);
  assert.equal(withinRange(-100, "C", null, 80), true);
  const h = profiled();
  const step = h.must(reading(8.04));
  assert.equal(h.state!.readings[0]!.celsius_tenths, 80);
  assert.equal(h.state!.readings[0]!.in_range, false);
  assert.deepEqual(step.events[1], {
    kind: "blocked",
    reason: "temperature_out_of_range",
    detail: "reading 1 at 2026-11-02T08:00:00.000Z is 8.04 °C, outside 2.0 °C to 8.0 °C",
    at: T0,
  });
  assert.deepEqual(verdict(h).reasons, ["temperature_out_of_range"]);
  assert.equal(h.state!.out_of_range_total, 1);
  const open = profiled({ min_temp_c: null, max_temp_c: null });
  open.must(reading(80));
  assert.equal(open.state!.readings[0]!.in_range, null, "no range: nothing judged");
});

Deno.test("lab sample: repeated out-of-range readings keep one block, counting occurrences", () => {
  const h = profiled();
  h.must(reading(9));
  h.now = T0 + 1_000;
  h.must(reading(1, { time: T0 + 1_000 }));
  assert.equal(h.state!.blocks.length, 1);
  const block = h.state!.blocks[0]!;
  assert.deepEqual([block.reason, block.occurrences, block.opened_at, block.last_at], [
    "temperature_out_of_range",
    2,
    T0,
    T0 + 1_000,
  ]);
  assert.match(block.detail, /^reading 2 /);
  assert.deepEqual([h.state!.lowest_tenths, h.state!.highest_tenths], [10, 90]);
});

Deno.test("lab sample: only the last readings are kept; the totals and extremes count them all", () => {
  const h = profiled({ min_temp_c: null, max_temp_c: null, deadline_at: null });
  const n = LAB_READINGS_IN_STATE_MAX + 25;
  for (let i = 0; i < n; i++) h.must(reading(i - 10, { time: T0 - (n - i) * 60_000 }));
  const s = h.state!;
  assert.equal(s.readings.length, LAB_READINGS_IN_STATE_MAX);
  assert.equal(s.readings_total, n);
  assert.equal(s.readings[0]!.seq, n - LAB_READINGS_IN_STATE_MAX + 1);
  assert.deepEqual([s.lowest_tenths, s.highest_tenths], [-100, (n - 11) * 10]);
  assert.ok(JSON.stringify(s).length < 60_000, "within one stored value");
});

Deno.test("lab sample: a reading older than the kept window, sent again, is kept once", () => {
  // spec: courier 2.10: readings are append-only; the same reading sent twice (device, time,
  // value, unit) is kept once, however many came between: a logger that uploads its log again
  // after more readings than the state shows counts nothing twice, and an old out-of-range
  // reading does not open a block again after the laboratory's decision settled it.
  const h = profiled({ deadline_at: null });
  h.must(reading(9, { time: T0 - HOUR })); // out of range, blocks
  h.must(approveCommand("accept"));
  for (let i = 1; i <= LAB_READINGS_IN_STATE_MAX; i++) {
    h.must(reading(4, { time: T0 - HOUR + i * 1_000 }));
  }
  assert.deepEqual(h.state!.blocks, []);
  const again = h.must(reading(9, { time: T0 - HOUR }));
  assert.deepEqual(kinds(again.events), [], "kept once");
  assert.equal(h.state!.readings_total, LAB_READINGS_IN_STATE_MAX + 1);
  assert.equal(h.state!.out_of_range_total, 1);
  assert.deepEqual(verdict(h).reasons, []);
  // The same time and device with another value, or another unit, is another reading.
  assert.deepEqual(kinds(h.must(reading(9.5, { time: T0 - HOUR })).events), [
    "reading_recorded",
    "blocked",
  ]);
  assert.deepEqual(kinds(h.must(reading(9, { time: T0 - HOUR, unit: "F" })).events), [
    "reading_recorded",
    "blocked",
  ]);
  assert.equal(h.state!.readings_total, LAB_READINGS_IN_STATE_MAX + 3);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("lab sample: any readings sent with repeats are each kept once; the counts are the distinct readings'", () => {
  const identity = fc.record({
    device: fc.constantFrom("DL-7", "DL-8", "probe"),
    // Minutes before T0: a repeat may come after more than LAB_READINGS_IN_STATE_MAX others.
    minute: fc.integer({ min: 0, max: 400 }),
    value: fc.constantFrom(-1, 0, 1.5, 4, 8, 8.04, 9, 46.4),
    unit: fc.constantFrom("C" as const, "F" as const),
  });
  const key = (r: { device: string; minute: number; value: number; unit: string }) =>
    `${r.device}|${r.minute}|${r.value}|${r.unit}`;
  fc.assert(
    fc.property(
      // More distinct readings than the state shows, so that repeats come from beyond them.
      fc.uniqueArray(identity, {
        minLength: LAB_READINGS_IN_STATE_MAX + 1,
        maxLength: LAB_READINGS_IN_STATE_MAX + 60,
        selector: key,
      }),
      // Each step sends the next new reading, or again one sent before (any, however old).
      fc.array(fc.option(fc.nat(), { freq: 3 }), { minLength: 100, maxLength: 400 }),
      (distinct, steps) => {
        const h = profiled({ deadline_at: null });
        const sent: typeof distinct = [];
        let next = 0;
        for (const step of steps) {
          if (step === null && next < distinct.length) sent.push(distinct[next++]!);
          else if (next > 0) sent.push(distinct[(step ?? 0) % next]!);
        }
        // The rest, and the first again after all of them.
        sent.push(...distinct.slice(next), distinct[0]!);
        const recorded = new Map<string, number>();
        for (const r of sent) {
          const done = h.must(reading(r.value, {
            device: r.device,
            unit: r.unit,
            time: T0 - r.minute * 60_000,
          }));
          if (done.events.some((e) => e.kind === "reading_recorded")) {
            recorded.set(key(r), (recorded.get(key(r)) ?? 0) + 1);
          }
        }
        assert.equal(recorded.size, distinct.length, "every distinct reading is kept");
        assert.ok([...recorded.values()].every((n) => n === 1), "each once");
        const s = h.state!;
        assert.equal(s.readings_total, distinct.length);
        const outside = distinct.filter((r) => !withinRange(r.value, r.unit, 20, 80));
        assert.equal(s.out_of_range_total, outside.length);
        const shown = s.readings.map((r) => `${r.device}|${r.time}|${r.value}|${r.unit}`);
        assert.equal(new Set(shown).size, shown.length, "the latest readings hold no repeat");
      },
    ),
    { numRuns: 50 },
  );
});

Deno.test("lab sample: a sample keeps at most LAB_READINGS_MAX readings, a repeat still answered at the bound", () => {
  const h = profiled({ min_temp_c: null, max_temp_c: null, deadline_at: null });
  const long = "x".repeat(LAB_NAME_CHARS_MAX);
  // Every text at its cap, a device of its own for each reading.
  const deviceOf = (i: number) => long.slice(0, -6) + String(i).padStart(6, "0");
  for (let i = 0; i < LAB_READINGS_MAX; i++) {
    h.must(reading(4, { time: T0 - i * 60_000, source: long, device: deviceOf(i) }));
  }
  const s = h.state!;
  assert.equal(s.readings_total, LAB_READINGS_MAX);
  h.refused(
    reading(4, { time: T0 + 1 }),
    "readings_limit",
    `a sample keeps at most ${LAB_READINGS_MAX} readings`,
  );
  const again = h.must(reading(4, { time: T0, source: long, device: deviceOf(0) }));
  assert.deepEqual(again.events, [], "a repeat at the bound is kept once, not refused");
  const bytes = new TextEncoder().encode(JSON.stringify(s)).length;
  assert.ok(bytes < LAB_SAMPLE_STATE_BYTES_MAX, `${bytes} bytes stored at the bound`);
});

Deno.test("lab sample: one stored before the digests loads with its readings' digests", () => {
  const h = profiled({ deadline_at: null });
  for (let i = 0; i < 3; i++) h.must(reading(9 - i, { time: T0 - i * 60_000 }));
  const { reading_digests: _, ...stored } = h.state!;
  const loaded = labSampleActor.load!(structuredClone(stored), 1);
  assert.deepEqual(loaded, h.state, "the digests of the readings it holds");
  assert.deepEqual(labSampleActor.load!(structuredClone(h.state), 2), h.state);
  assert.equal(labSampleActor.load!(null, 1), null);
  // Loaded, a reading it holds sent again is kept once, and a new one counts on.
  const after = new ActorHarness(labSampleActor, { now: T0, state: loaded });
  assert.deepEqual(after.must(reading(8, { time: T0 - 60_000 })).events, []);
  after.must(reading(5, { time: T0 - 10 * 60_000 }));
  assert.equal(after.state!.readings_total, 4);
});

Deno.test("lab sample: a store written before the digests reopens; thousands of readings commit over several values", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  // What version 1 wrote: the same sample without digests.
  const withoutDigests = (s: LabSample | null): LabSample | null => {
    if (s === null) return null;
    const { reading_digests: _, ...rest } = s;
    return rest as LabSample;
  };
  const v1: typeof labSampleActor = {
    ...labSampleActor,
    version: 1,
    decide: (s, c, ctx) => labSampleActor.decide(labSampleActor.load!(s, 1), c, ctx),
    evolve: (s, e) => withoutDigests(labSampleActor.evolve(labSampleActor.load!(s, 1), e)),
  };
  delete (v1 as { load?: unknown }).load;
  const send = async (rt: TestRuntime, command: LabSampleCommand, def = labSampleActor) => {
    const r = await rt.runtime.ask(def, "biz_1", "WB1", command);
    assert.ok(r.ok, JSON.stringify(r));
    return asLabSample(r.reply);
  };
  const first = await openTestRuntime(path, { definitions: [v1] });
  try {
    first.clock.advanceBy(T0 - first.clock.now());
    await send(first, profileCommand({ deadline_at: null }), v1);
    for (let i = 0; i < 3; i++) await send(first, reading(4, { time: T0 - i * 60_000 }), v1);
    const stored = await first.store.load({ type: "lab_sample", id: "WB1" });
    assert.equal(stored?.record.v, 1);
    assert.ok(!("reading_digests" in (stored?.record.state as object)), "stored without digests");
  } finally {
    await first.close();
  }
  const second = await openTestRuntime(path, { definitions: [labSampleActor] });
  try {
    second.clock.advanceBy(T0 - second.clock.now());
    const again = await send(second, reading(4, { time: T0 - 60_000 }));
    assert.equal(again.readings_total, 3, "a reading v1 kept, sent again: kept once");
    assert.equal(again.reading_digests.length, 3);
    // Past one store value (STATE_BYTES_MAX): the state is split over several in each commit.
    const more = 3_500;
    await Promise.all(
      Array.from({ length: more }, (_, i) => send(second, reading(5, { time: T0 - i * 1_000 }))),
    );
  } finally {
    await second.close();
  }
  const third = await openTestRuntime(path, { definitions: [labSampleActor] });
  try {
    third.clock.advanceBy(T0 - third.clock.now());
    const s = await send(third, reading(5, { time: T0 - 1_000 }));
    assert.equal(s.readings_total, 3 + 3_500);
    assert.ok(JSON.stringify(s).length > STATE_BYTES_MAX, "more than one store value");
  } finally {
    await third.close();
    await Deno.remove(dir, { recursive: true });
  }
});

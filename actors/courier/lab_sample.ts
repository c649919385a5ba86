/**
 * One laboratory sample (courier 2.10, 3.4, 7): its profile, checklist ticks, seal and an
 * append-only series of temperature readings. Tenant = the courier business id, id = the waybill.
 *
 * Rules:
 * - A profile comes first. It may be replaced until the first tick, reading or block, or until
 *   its deadline passes; after that it is locked (the same profile sent again is a harmless retry). Setting `min_temp_c` or
 *   `max_temp_c` makes the sample cold chain (its charge is booked by src/courier/lab.ts).
 * - A reading needs value, unit (`C` or `F`), source, device and time; it is stored as given plus
 *   `celsius_tenths`, the value in tenths of a degree Celsius converted with exact integer
 *   arithmetic and rounded once, half away from zero. Range checks compare the exact value
 *   (8.04 °C is above a bound of 8 °C, though it shows as 8.0). Readings are
 *   never edited or deleted; the same reading sent twice (device, time, value, unit) is kept once.
 * - The seal is a tick of the item `seal`: `ok: false`, or a `seal_id` other than the profile's,
 *   marks it broken (for good); `ok: true` marks it intact while it is not broken.
 * - Blocks (3.4): a late sample (a tick, reading or handover check after `deadline_at`, or a
 *   reading taken after it), a reading outside [min, max] and a broken seal each open a block on
 *   the laboratory handover. Only `approve`, recorded by someone with runs:override, clears them:
 *   `accept` clears the blocks open now (a later exception blocks again), `reject` refuses the
 *   handover for good.
 *
 * Bounded state: the last LAB_READINGS_IN_STATE_MAX readings with `readings_total`, the latest
 * tick per item, the open blocks (one per reason) and the last decisions; the event log keeps all.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  reject,
  type TimerFired,
  unreachable,
} from "../../src/runtime/actor.ts";

/**
 * Readings kept in state (the event log keeps every one). A reading takes up to about 300 bytes
 * with every text at its cap; 100 of them leave room under STATE_BYTES_MAX for the rest.
 */
export const LAB_READINGS_IN_STATE_MAX = 100;
/** Sources, devices, seal ids, item keys and sample types are short identifiers. */
export const LAB_NAME_CHARS_MAX = 40;
/** A tick's note: a line, not a report. */
export const LAB_NOTE_CHARS_MAX = 120;
/** The laboratory's decision note. */
export const LAB_DECISION_NOTE_CHARS_MAX = 500;
/** Who recorded something: a principal's name (`driver:drv_...`, `partner_key:...`). */
export const LAB_BY_CHARS_MAX = 64;
/** Decisions kept in state; `decisions_total` counts them all. */
export const LAB_DECISIONS_IN_STATE_MAX = 5;
/** Distinct tick items of a sample without a checklist (with one: the checklist's items). */
export const LAB_TICK_ITEMS_MAX = 40;
/** A reading or range bound beyond this many degrees (either unit) is not a temperature. */
export const TEMPERATURE_ABS_MAX = 1_000;
/**
 * How far ahead of the service's clock a reading's time may be: a logger's clock drifts, but a
 * reading from the future is a wrong clock or a wrong date, and would count as in time.
 */
export const READING_AHEAD_MS_MAX = 15 * 60_000;
/** The tick item that records the seal. */
export const SEAL_ITEM = "seal";

export const LAB_BLOCK_REASONS = [
  "late_sample",
  "temperature_out_of_range",
  "seal_broken",
] as const;
export type LabBlockReason = typeof LAB_BLOCK_REASONS[number];
/** The handover reason once the laboratory rejected the sample. */
export const REJECTED_BY_LABORATORY = "rejected_by_laboratory";
export const TEMPERATURE_FIELDS = ["value", "unit", "source", "device", "time"] as const;

export const TEMPERATURE_UNITS = ["C", "F"] as const;
export type TemperatureUnit = typeof TEMPERATURE_UNITS[number];
export const SEAL_STATUSES = ["unknown", "intact", "broken"] as const;
export type SealStatus = typeof SEAL_STATUSES[number];
export const LAB_DECISION_KINDS = ["accept", "reject"] as const;
export type LabDecisionKind = typeof LAB_DECISION_KINDS[number];

export interface LabChecklistRef {
  readonly code: string;
  readonly version: number;
  readonly items: readonly { readonly key: string; readonly required: boolean }[];
}

/** What a profile command carries; the bounds in °C exactly as sent. */
export interface LabProfileInput {
  readonly sample_type: string;
  readonly laboratory: string | null;
  readonly min_temp_c: number | null;
  readonly max_temp_c: number | null;
  readonly deadline_at: number | null;
  readonly seal_id: string | null;
  readonly checklist: LabChecklistRef | null;
}

export interface LabProfile {
  readonly sample_type: string;
  readonly laboratory: string | null;
  readonly min_tenths: number | null;
  readonly max_tenths: number | null;
  /** When the laboratory must have the sample (epoch ms), or null. */
  readonly deadline_at: number | null;
  readonly seal_id: string | null;
  readonly checklist: LabChecklistRef | null;
}

export interface LabReading {
  readonly seq: number;
  readonly value: number;
  readonly unit: TemperatureUnit;
  readonly source: string;
  readonly device: string;
  /** When it was measured (epoch ms). */
  readonly time: number;
  readonly celsius_tenths: number;
  /** Null when the profile sets no range. */
  readonly in_range: boolean | null;
  readonly recorded_at: number;
  readonly by: string;
}

export interface LabTick {
  readonly item: string;
  readonly ok: boolean;
  readonly note: string | null;
  readonly seal_id: string | null;
  readonly by: string;
  readonly at: number;
}

export interface LabBlock {
  readonly reason: LabBlockReason;
  readonly opened_at: number;
  readonly last_at: number;
  readonly occurrences: number;
  /** The latest occurrence, in words. */
  readonly detail: string;
}

export interface LabDecision {
  readonly decision: LabDecisionKind;
  readonly note: string;
  /** Who at the laboratory decided, when given. */
  readonly decided_by: string | null;
  /** Who recorded it (a principal with runs:override). */
  readonly recorded_by: string;
  readonly at: number;
  /** The blocks this decision settled. */
  readonly settled: readonly LabBlockReason[];
}

export interface LabSample {
  readonly waybill: string;
  readonly courier_id: string;
  readonly profile: LabProfile;
  readonly cold_chain: boolean;
  readonly profiled_at: number;
  readonly profiled_by: string;
  readonly seal: SealStatus;
  /** The latest tick of each item, in first-ticked order. */
  readonly ticks: readonly LabTick[];
  readonly ticks_total: number;
  /** The latest readings, oldest first, at most LAB_READINGS_IN_STATE_MAX. */
  readonly readings: readonly LabReading[];
  readonly readings_total: number;
  readonly out_of_range_total: number;
  readonly lowest_tenths: number | null;
  readonly highest_tenths: number | null;
  /** Open blocks, at most one per reason. */
  readonly blocks: readonly LabBlock[];
  /** Lateness is recorded once, whether or not it was later accepted. */
  readonly late_recorded: boolean;
  readonly decisions: readonly LabDecision[];
  readonly decisions_total: number;
  readonly rejected: boolean;
  /**
   * When a run handed the sample to the laboratory (its deliver stop); absent before it was, and
   * on samples kept before this was recorded. Lateness is judged up to it, never after.
   */
  readonly handed_over_at?: number;
}

export type LabSampleState = LabSample | null;

/** A reading as sent: each field may be missing (refused with temperature_fields_required). */
export interface ReadingInput {
  readonly value: number | null;
  readonly unit: TemperatureUnit | null;
  readonly source: string | null;
  readonly device: string | null;
  readonly time: number | null;
}

export type LabSampleCommand =
  | {
    readonly kind: "profile";
    readonly waybill: string;
    readonly courier_id: string;
    readonly profile: LabProfileInput;
    readonly by: string;
  }
  | {
    readonly kind: "tick";
    readonly item: string;
    readonly ok: boolean;
    readonly note: string | null;
    readonly seal_id: string | null;
    readonly by: string;
  }
  | { readonly kind: "temperature"; readonly reading: ReadingInput; readonly by: string }
  | {
    readonly kind: "approve";
    readonly decision: LabDecisionKind;
    readonly note: string;
    readonly decided_by: string | null;
    readonly by: string;
  }
  | { readonly kind: "handover_check" }
  /** The run's deliver stop handed the sample over at `at` (sent again on its retries). */
  | { readonly kind: "handed_over"; readonly at: number }
  | { readonly kind: "get" };

export type LabSampleEvent =
  | {
    readonly kind: "profiled";
    readonly waybill: string;
    readonly courier_id: string;
    readonly profile: LabProfile;
    readonly by: string;
    readonly at: number;
  }
  | { readonly kind: "ticked"; readonly tick: LabTick; readonly seal: SealStatus | null }
  | { readonly kind: "reading_recorded"; readonly reading: LabReading }
  | {
    readonly kind: "blocked";
    readonly reason: LabBlockReason;
    readonly detail: string;
    readonly at: number;
  }
  | { readonly kind: "decided"; readonly decision: LabDecision }
  | { readonly kind: "handed_over"; readonly at: number };

/** Whether a laboratory handover may happen now, and every reason it may not. */
export interface HandoverVerdict {
  readonly allowed: boolean;
  readonly reasons: readonly string[];
  /** Required checklist items not ticked ok (information; the checklist's supplier decides). */
  readonly missing_items: readonly string[];
}

export type LabSampleReply = LabSample | HandoverVerdict;

type Result = ReturnType<typeof accept<LabSampleState, LabSampleEvent, LabSampleReply>>;

function whole(events: LabSampleEvent[]): Result {
  return accept<LabSampleState, LabSampleEvent, LabSampleReply>(events, (s) => {
    if (s === null) throw new Error("lab sample: no state after an accepted command");
    return s;
  });
}

// ---- Temperatures: exact decimal arithmetic, rounded once --------------------------------------

/** The exact decimal a JS number prints as: `units / 10^scale`. */
function decimalOf(value: number): { units: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!m) throw new RangeError(`not a finite number: ${value}`);
  const frac = m[3] ?? "";
  let units = BigInt(`${m[2]}${frac}`);
  let scale = frac.length - Number(m[4] ?? "0");
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: m[1] ? -units : units, scale };
}

/** num / den rounded half away from zero; den > 0. */
function roundDiv(num: bigint, den: bigint): bigint {
  const negative = num < 0n;
  const a = negative ? -num : num;
  const q = (a % den) * 2n >= den ? a / den + 1n : a / den;
  return negative ? -q : q;
}

/**
 * A temperature in tenths of a degree Celsius, exactly: F is converted as (F - 32) * 5 / 9 on the
 * decimal the number prints as, with one rounding at the end (46.4 °F is 80, never 79.99...).
 */
export function celsiusTenths(value: number, unit: TemperatureUnit): number {
  const { num, den } = exactTenths(value, unit);
  return Number(roundDiv(num, den));
}

/** A temperature in tenths of a degree Celsius as the exact fraction num / den (den > 0). */
function exactTenths(value: number, unit: TemperatureUnit): { num: bigint; den: bigint } {
  const { units, scale } = decimalOf(value);
  const pow = 10n ** BigInt(scale);
  return unit === "C"
    ? { num: units * 10n, den: pow }
    : { num: (units - 32n * pow) * 50n, den: 9n * pow };
}

/**
 * Whether a reading lies within [min, max] (tenths of °C, either may be null), judged on its
 * exact value: 8.04 °C is above 8 °C though it shows as 8.0 °C.
 */
export function withinRange(
  value: number,
  unit: TemperatureUnit,
  min: number | null,
  max: number | null,
): boolean {
  const { num, den } = exactTenths(value, unit);
  return (min === null || num >= BigInt(min) * den) && (max === null || num <= BigInt(max) * den);
}

/** Whether a number is a whole number of tenths (a range bound must be). */
export function isWholeTenths(value: number): boolean {
  return Number.isFinite(value) && decimalOf(value).scale <= 1;
}

export function formatTenths(tenths: number): string {
  return `${(tenths / 10).toFixed(1)} °C`;
}

// ---- Decisions -----------------------------------------------------------------------------------

function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length <= max ? t : t.slice(0, max);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function noProfile() {
  return reject("lab_profile_missing", "the sample has no laboratory profile yet: set it first");
}

function normalProfile(input: LabProfileInput): LabProfile | ReturnType<typeof reject> {
  const sampleType = clip(input.sample_type, LAB_NAME_CHARS_MAX);
  if (sampleType === "") return reject("sample_type_required", "a profile needs a sample_type");
  const bounds: (number | null)[] = [];
  for (const bound of [input.min_temp_c, input.max_temp_c]) {
    if (bound === null) {
      bounds.push(null);
      continue;
    }
    if (!isWholeTenths(bound) || Math.abs(bound) > TEMPERATURE_ABS_MAX) {
      return reject(
        "invalid_temperature_range",
        `a range bound is a temperature in °C to at most one decimal: ${bound}`,
      );
    }
    bounds.push(celsiusTenths(bound, "C"));
  }
  const [min, max] = bounds as [number | null, number | null];
  if (min !== null && max !== null && min > max) {
    return reject(
      "invalid_temperature_range",
      `min_temp_c must not be above max_temp_c: ${formatTenths(min)} > ${formatTenths(max)}`,
    );
  }
  return {
    sample_type: sampleType,
    laboratory: input.laboratory === null ? null : clip(input.laboratory, 120),
    min_tenths: min,
    max_tenths: max,
    deadline_at: input.deadline_at,
    seal_id: input.seal_id === null ? null : clip(input.seal_id, LAB_NAME_CHARS_MAX),
    checklist: input.checklist,
  };
}

function profile(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "profile" }>,
  ctx: Ctx,
) {
  const next = normalProfile(command.profile);
  if ("ok" in next) return next;
  if (state !== null) {
    if (JSON.stringify(state.profile) === JSON.stringify(next)) return whole([]);
    // spec: courier 3.4: a late sample blocks until the laboratory decides. Once the deadline
    // has passed the sample is late whether or not anyone recorded it yet, so a new profile
    // cannot move the deadline (or drop it) and undo the lateness.
    const used = state.readings_total + state.ticks_total + state.decisions_total > 0 ||
      state.blocks.length > 0 || state.late_recorded || lateEvent(state, ctx.now).length > 0;
    if (used) {
      return reject(
        "lab_profile_locked",
        `the profile is fixed once ticks, readings or blocks are recorded or its deadline ` +
          `has passed: ${state.waybill}`,
      );
    }
  }
  return whole([{
    kind: "profiled",
    waybill: command.waybill,
    courier_id: command.courier_id,
    profile: next,
    by: clip(command.by, LAB_BY_CHARS_MAX),
    at: ctx.now,
  }]);
}

/** The late block to record now, if the deadline passed (at `now` or at `measured`). */
function lateEvent(state: LabSample, now: number, measured?: number): LabSampleEvent[] {
  const deadline = state.profile.deadline_at;
  // spec: courier 3.4: a sample is late if the laboratory gets it after the deadline; one handed
  // over (only ever when no block stood, lateness included) was not, whatever is recorded after.
  if (deadline === null || state.late_recorded || state.handed_over_at !== undefined) return [];
  if (now > deadline) {
    return [{
      kind: "blocked",
      reason: "late_sample",
      detail: `the laboratory deadline ${iso(deadline)} passed: recorded ${iso(now)}`,
      at: now,
    }];
  }
  if (measured !== undefined && measured > deadline) {
    return [{
      kind: "blocked",
      reason: "late_sample",
      detail: `a reading was taken after the laboratory deadline ${iso(deadline)}: ${
        iso(measured)
      }`,
      at: now,
    }];
  }
  return [];
}

function sealAfter(state: LabSample, ok: boolean, sealId: string | null): SealStatus {
  if (state.seal === "broken") return "broken";
  const replaced = sealId !== null && state.profile.seal_id !== null &&
    sealId !== state.profile.seal_id;
  return ok && !replaced ? "intact" : "broken";
}

function tick(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "tick" }>,
  ctx: Ctx,
) {
  if (state === null) return noProfile();
  const item = clip(command.item, LAB_NAME_CHARS_MAX);
  if (item === "") return reject("item_required", "a tick names its checklist item");
  const checklist = state.profile.checklist;
  const known = state.ticks.some((t) => t.item === item);
  if (checklist && item !== SEAL_ITEM && !checklist.items.some((i) => i.key === item)) {
    return reject(
      "unknown_checklist_item",
      `checklist ${checklist.code} version ${checklist.version} has no item: ${item}`,
    );
  }
  if (!checklist && !known && state.ticks.length >= LAB_TICK_ITEMS_MAX) {
    return reject("tick_items_limit", `a sample keeps at most ${LAB_TICK_ITEMS_MAX} tick items`);
  }
  const sealId = command.seal_id === null ? null : clip(command.seal_id, LAB_NAME_CHARS_MAX);
  const entry: LabTick = {
    item,
    ok: command.ok,
    note: command.note === null ? null : clip(command.note, LAB_NOTE_CHARS_MAX) || null,
    seal_id: sealId,
    by: clip(command.by, LAB_BY_CHARS_MAX),
    at: ctx.now,
  };
  const seal = item === SEAL_ITEM ? sealAfter(state, command.ok, sealId) : null;
  const events: LabSampleEvent[] = [{ kind: "ticked", tick: entry, seal }];
  if (seal === "broken" && state.seal !== "broken") {
    const why = command.ok
      ? `seal ${sealId} is not the profile's seal ${state.profile.seal_id}`
      : "the seal was found broken";
    events.push({ kind: "blocked", reason: "seal_broken", detail: why, at: ctx.now });
  }
  return whole([...events, ...lateEvent(state, ctx.now)]);
}

function missingFields(r: ReadingInput): string[] {
  return TEMPERATURE_FIELDS.filter((f) => {
    const v = r[f];
    return v === null || (typeof v === "string" && v.trim() === "");
  });
}

function temperature(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "temperature" }>,
  ctx: Ctx,
) {
  if (state === null) return noProfile();
  const r = command.reading;
  const missing = missingFields(r);
  const { value, unit, source: rawSource, device: rawDevice, time } = r;
  if (
    missing.length > 0 || value === null || unit === null || rawSource === null ||
    rawDevice === null || time === null
  ) {
    return reject(
      "temperature_fields_required",
      `a temperature reading needs value, unit, source, device and time: missing ${
        missing.join(", ")
      }`,
      { missing },
    );
  }
  if (!Number.isFinite(value) || Math.abs(value) > TEMPERATURE_ABS_MAX) {
    return reject("invalid_temperature", `not a temperature: ${value}`);
  }
  if (unit !== "C" && unit !== "F") {
    return reject("invalid_temperature", `unit is C or F: ${String(unit)}`);
  }
  if (time > ctx.now + READING_AHEAD_MS_MAX) {
    return reject(
      "invalid_temperature",
      `time: a reading cannot be taken in the future: ${iso(time)}`,
    );
  }
  const source = clip(rawSource, LAB_NAME_CHARS_MAX);
  const device = clip(rawDevice, LAB_NAME_CHARS_MAX);
  const same = state.readings.find((x) =>
    x.device === device && x.time === time && x.value === value && x.unit === unit
  );
  if (same) return whole([]); // the same reading sent again is kept once
  const tenths = celsiusTenths(value, unit);
  const { min_tenths: min, max_tenths: max } = state.profile;
  const ranged = min !== null || max !== null;
  // spec: courier 3.4: an out-of-range reading blocks the handover. The range is judged on the
  // reading as measured, never on its rounded tenths.
  const inRange = ranged ? withinRange(value, unit, min, max) : null;
  const reading: LabReading = {
    seq: state.readings_total + 1,
    value,
    unit,
    source,
    device,
    time,
    celsius_tenths: tenths,
    in_range: inRange,
    recorded_at: ctx.now,
    by: clip(command.by, LAB_BY_CHARS_MAX),
  };
  const events: LabSampleEvent[] = [{ kind: "reading_recorded", reading }];
  // spec: courier 3.4: an out-of-range reading blocks the handover while the sample is in the
  // courier's care; one the laboratory takes after the handover is kept, and blocks nothing.
  const inCare = state.handed_over_at === undefined || time <= state.handed_over_at;
  if (inRange === false && inCare) {
    const range = `${min === null ? "-" : formatTenths(min)} to ${
      max === null ? "-" : formatTenths(max)
    }`;
    events.push({
      kind: "blocked",
      reason: "temperature_out_of_range",
      detail: `reading ${reading.seq} at ${iso(time)} is ${value} °${unit}, outside ${range}`,
      at: ctx.now,
    });
  }
  return whole([...events, ...lateEvent(state, ctx.now, time)]);
}

/** Whether a handover may happen at `now`, from the state alone (no lateness recorded). */
export function handoverVerdict(state: LabSample, now: number): HandoverVerdict {
  const reasons: string[] = state.rejected ? [REJECTED_BY_LABORATORY] : [];
  for (const b of state.blocks) reasons.push(b.reason);
  if (lateEvent(state, now).length > 0) reasons.push("late_sample");
  const ticked = new Set(state.ticks.filter((t) => t.ok).map((t) => t.item));
  const missing = (state.profile.checklist?.items ?? [])
    .filter((i) => i.required && !ticked.has(i.key))
    .map((i) => i.key);
  return { allowed: reasons.length === 0, reasons, missing_items: missing };
}

function handoverCheck(state: LabSampleState, ctx: Ctx) {
  if (state === null) return reject("not_found", "no laboratory record for this shipment");
  return accept<LabSampleState, LabSampleEvent, LabSampleReply>(
    lateEvent(state, ctx.now),
    (s) => handoverVerdict(s as LabSample, ctx.now),
  );
}

function approve(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "approve" }>,
  ctx: Ctx,
) {
  if (state === null) return noProfile();
  if (state.rejected) {
    return reject("lab_decision_final", "the laboratory already rejected this sample");
  }
  const note = clip(command.note, LAB_DECISION_NOTE_CHARS_MAX);
  if (note === "") return reject("note_required", "the laboratory's decision needs a note");
  const late = lateEvent(state, ctx.now);
  const settled = [...state.blocks.map((b) => b.reason), ...late.map(() => "late_sample" as const)];
  if (settled.length === 0) {
    return reject("nothing_to_approve", "no block awaits the laboratory's decision");
  }
  const decision: LabDecision = {
    decision: command.decision,
    note,
    decided_by: command.decided_by === null ? null : clip(command.decided_by, 120) || null,
    recorded_by: clip(command.by, LAB_BY_CHARS_MAX),
    at: ctx.now,
    settled,
  };
  return whole([...late, { kind: "decided", decision }]);
}

function decide(state: LabSampleState, command: LabSampleCommand | TimerFired, ctx: Ctx) {
  switch (command.kind) {
    case "profile":
      return profile(state, command, ctx);
    case "tick":
      return tick(state, command, ctx);
    case "temperature":
      return temperature(state, command, ctx);
    case "approve":
      return approve(state, command, ctx);
    case "handover_check":
      return handoverCheck(state, ctx);
    case "handed_over":
      // A shipment without a laboratory record has nothing to mark; the first handover stands.
      if (state === null || state.handed_over_at !== undefined) {
        return accept<LabSampleState, LabSampleEvent, LabSampleReply>([]);
      }
      return accept<LabSampleState, LabSampleEvent, LabSampleReply>([
        { kind: "handed_over", at: command.at },
      ]);
    case "get":
      if (state === null) return reject("not_found", "no laboratory record for this shipment");
      return whole([]);
    case "timer":
      return accept<LabSampleState, LabSampleEvent, LabSampleReply>([]);
    default:
      return unreachable(command);
  }
}

// ---- Evolution -----------------------------------------------------------------------------------

function started(event: Extract<LabSampleEvent, { kind: "profiled" }>): LabSample {
  return {
    waybill: event.waybill,
    courier_id: event.courier_id,
    profile: event.profile,
    cold_chain: false,
    profiled_at: event.at,
    profiled_by: event.by,
    seal: "unknown",
    ticks: [],
    ticks_total: 0,
    readings: [],
    readings_total: 0,
    out_of_range_total: 0,
    lowest_tenths: null,
    highest_tenths: null,
    blocks: [],
    late_recorded: false,
    decisions: [],
    decisions_total: 0,
    rejected: false,
  };
}

function withBlock(state: LabSample, e: Extract<LabSampleEvent, { kind: "blocked" }>): LabSample {
  const open = state.blocks.find((b) => b.reason === e.reason);
  const block: LabBlock = open
    ? { ...open, last_at: e.at, occurrences: open.occurrences + 1, detail: e.detail }
    : { reason: e.reason, opened_at: e.at, last_at: e.at, occurrences: 1, detail: e.detail };
  return {
    ...state,
    blocks: [...state.blocks.filter((b) => b.reason !== e.reason), block],
    late_recorded: state.late_recorded || e.reason === "late_sample",
  };
}

function withReading(state: LabSample, r: LabReading): LabSample {
  const t = r.celsius_tenths;
  return {
    ...state,
    readings: [...state.readings, r].slice(-LAB_READINGS_IN_STATE_MAX),
    readings_total: state.readings_total + 1,
    out_of_range_total: state.out_of_range_total + (r.in_range === false ? 1 : 0),
    lowest_tenths: state.lowest_tenths === null ? t : Math.min(state.lowest_tenths, t),
    highest_tenths: state.highest_tenths === null ? t : Math.max(state.highest_tenths, t),
  };
}

function evolve(state: LabSampleState, event: LabSampleEvent): LabSampleState {
  if (event.kind === "profiled") {
    const base = state ?? started(event);
    const p = event.profile;
    return {
      ...base,
      profile: p,
      cold_chain: p.min_tenths !== null || p.max_tenths !== null,
      profiled_at: event.at,
      profiled_by: event.by,
    };
  }
  if (state === null) throw new Error(`lab sample: ${event.kind} before profiled`);
  switch (event.kind) {
    case "ticked": {
      const i = state.ticks.findIndex((t) => t.item === event.tick.item);
      const ticks = i < 0
        ? [...state.ticks, event.tick]
        : state.ticks.map((t, j) => j === i ? event.tick : t);
      return {
        ...state,
        ticks,
        ticks_total: state.ticks_total + 1,
        seal: event.seal ?? state.seal,
      };
    }
    case "reading_recorded":
      return withReading(state, event.reading);
    case "blocked":
      return withBlock(state, event);
    case "decided":
      return {
        ...state,
        blocks: [],
        decisions: [...state.decisions, event.decision].slice(-LAB_DECISIONS_IN_STATE_MAX),
        decisions_total: state.decisions_total + 1,
        rejected: state.rejected || event.decision.decision === "reject",
      };
    case "handed_over":
      return { ...state, handed_over_at: event.at };
    default:
      return unreachable(event);
  }
}

/** What the bus and the `snapshots` table carry: the sample without its readings and ticks. */
export function labSummaryOf(s: LabSample) {
  const last = s.readings.at(-1);
  return {
    waybill: s.waybill,
    courier_id: s.courier_id,
    sample_type: s.profile.sample_type,
    laboratory: s.profile.laboratory,
    cold_chain: s.cold_chain,
    deadline_at: s.profile.deadline_at,
    seal: s.seal,
    readings_total: s.readings_total,
    out_of_range_total: s.out_of_range_total,
    lowest_tenths: s.lowest_tenths,
    highest_tenths: s.highest_tenths,
    last_reading: last
      ? { time: last.time, celsius_tenths: last.celsius_tenths, in_range: last.in_range }
      : null,
    ticks_total: s.ticks_total,
    open_blocks: s.blocks.map((b) => b.reason),
    decisions_total: s.decisions_total,
    rejected: s.rejected,
  };
}

export const labSampleActor: ActorDefinition<
  LabSampleState,
  LabSampleCommand,
  LabSampleEvent,
  LabSampleReply
> = {
  type: "lab_sample",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : labSummaryOf(s),
};

/** The sample a `get`-like reply carries; a verdict there is a programming error. */
export function asLabSample(reply: LabSampleReply): LabSample {
  if (!("waybill" in reply)) throw new Error("expected the lab sample in the reply");
  return reply;
}

/**
 * Temperature readings (courier 2.10, 3.4, 7): value, unit (C or F), source, device and time are
 * all needed; readings are append-only, and the same reading sent twice (device, time, value,
 * unit) is kept once. A reading outside the profile's range blocks the handover while the sample
 * is in the courier's care.
 */
import { type Ctx, reject, type Rejection } from "../../../src/runtime/actor.ts";
import { iso } from "../../../src/domain/iso.ts";
import { LAB_READINGS_MAX } from "../../../src/limits.ts";
import { noProfile, whole } from "./accepted.ts";
import { readingDigest } from "./digests.ts";
import { lateEvent } from "./lateness.ts";
import {
  clip,
  LAB_BY_CHARS_MAX,
  LAB_NAME_CHARS_MAX,
  READING_AHEAD_MS_MAX,
  TEMPERATURE_ABS_MAX,
} from "./limits.ts";
import { celsiusTenths, formatTenths, withinRange } from "./temperatures.ts";
import {
  type Decided,
  type LabReading,
  type LabSample,
  type LabSampleCommand,
  type LabSampleEvent,
  type LabSampleState,
  type ReadingInput,
  TEMPERATURE_FIELDS,
  type TemperatureUnit,
} from "./types.ts";

/** A reading with every field given. */
interface Measured {
  readonly value: number;
  readonly unit: TemperatureUnit;
  readonly source: string;
  readonly device: string;
  readonly time: number;
}

export function temperature(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "temperature" }>,
  ctx: Ctx,
): Decided {
  if (state === null) return noProfile();
  const measured = admit(command.reading, ctx.now);
  if ("ok" in measured) return measured;
  const { value, unit, time } = measured;
  const source = clip(measured.source, LAB_NAME_CHARS_MAX);
  const device = clip(measured.device, LAB_NAME_CHARS_MAX);
  // spec: courier 2.10: append-only; the same reading sent again, however old, is kept once.
  if (state.reading_digests.includes(readingDigest({ device, time, value, unit }))) {
    return whole([]);
  }
  if (state.reading_digests.length >= LAB_READINGS_MAX) {
    return reject("readings_limit", `a sample keeps at most ${LAB_READINGS_MAX} readings`);
  }
  const { min_tenths: min, max_tenths: max } = state.profile;
  const ranged = min !== null || max !== null;
  const reading: LabReading = {
    seq: state.readings_total + 1,
    value,
    unit,
    source,
    device,
    time,
    celsius_tenths: celsiusTenths(value, unit),
    // spec: courier 3.4: an out-of-range reading blocks the handover. The range is judged on the
    // reading as measured, never on its rounded tenths.
    in_range: ranged ? withinRange(value, unit, min, max) : null,
    recorded_at: ctx.now,
    by: clip(command.by, LAB_BY_CHARS_MAX),
  };
  return whole([
    { kind: "reading_recorded", reading },
    ...outOfRange(state, reading, ctx.now),
    ...lateEvent(state, ctx.now, time),
  ]);
}

function missingFields(r: ReadingInput): string[] {
  return TEMPERATURE_FIELDS.filter((f) => {
    const v = r[f];
    return v === null || (typeof v === "string" && v.trim() === "");
  });
}

/** The reading with every field given, a temperature, taken by now; or why it is refused. */
function admit(r: ReadingInput, now: number): Measured | Rejection {
  const missing = missingFields(r);
  const { value, unit, source, device, time } = r;
  if (
    missing.length > 0 || value === null || unit === null || source === null ||
    device === null || time === null
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
  if (time > now + READING_AHEAD_MS_MAX) {
    return reject(
      "invalid_temperature",
      `time: a reading cannot be taken in the future: ${iso(time)}`,
    );
  }
  return { value, unit, source, device, time };
}

/**
 * spec: courier 3.4: an out-of-range reading blocks the handover while the sample is in the
 * courier's care; one the laboratory takes after the handover is kept, and blocks nothing.
 */
function outOfRange(state: LabSample, reading: LabReading, now: number): LabSampleEvent[] {
  const inCare = state.handed_over_at === undefined || reading.time <= state.handed_over_at;
  if (reading.in_range !== false || !inCare) return [];
  const { min_tenths: min, max_tenths: max } = state.profile;
  const range = `${min === null ? "-" : formatTenths(min)} to ${
    max === null ? "-" : formatTenths(max)
  }`;
  const { seq, time, value, unit } = reading;
  return [{
    kind: "blocked",
    reason: "temperature_out_of_range",
    detail: `reading ${seq} at ${iso(time)} is ${value} °${unit}, outside ${range}`,
    at: now,
  }];
}

/**
 * The sample's profile (courier 2.10, 3.4): type, laboratory, a range of whole tenths of °C (set,
 * it makes the sample cold chain), deadline, seal and checklist. It may be replaced until first
 * use, its deadline or its handover to the laboratory, then it is locked.
 */
import { type Ctx, reject, type Rejection } from "../../../src/runtime/actor.ts";
import { whole } from "./accepted.ts";
import { coldChainDue } from "./charges.ts";
import { lateEvent } from "./lateness.ts";
import { clip, LAB_BY_CHARS_MAX, LAB_NAME_CHARS_MAX, TEMPERATURE_ABS_MAX } from "./limits.ts";
import { celsiusTenths, formatTenths, isWholeTenths } from "./temperatures.ts";
import type {
  Decided,
  LabProfile,
  LabProfileInput,
  LabSampleCommand,
  LabSampleEvent,
  LabSampleState,
} from "./types.ts";

/** The profile as kept: texts clipped, bounds in tenths of °C; or why it is refused. */
function normalProfile(input: LabProfileInput): LabProfile | Rejection {
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

export function profile(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "profile" }>,
  ctx: Ctx,
): Decided {
  const next = normalProfile(command.profile);
  if ("ok" in next) return next;
  if (state !== null && JSON.stringify(state.profile) === JSON.stringify(next)) return whole([]);
  // spec: courier 2.6 rule 1, 3.4: no cold chain is kept, nor a handover judged, for a shipment
  // the courier no longer holds (or never held); a profile set before still answers its retry.
  if (command.closed !== undefined) {
    return reject(
      "shipment_closed",
      `${command.waybill} is ${command.closed} already: its sample takes no profile`,
    );
  }
  if (state !== null) {
    // spec: courier 3.4, 2.6 rule 1: the laboratory has the sample: a range set now would charge
    // a cold chain the courier never kept, a deadline judge a handover already made.
    if (state.handed_over_at !== undefined) {
      return reject(
        "lab_profile_locked",
        `the profile is fixed once the sample was handed over to the laboratory: ${state.waybill}`,
      );
    }
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
  // spec: courier 2.10: the sweep may have given the reserved slots away; a sample made cold
  // without them would ride uncounted, so the request reserves again first.
  const cold = next.min_tenths !== null || next.max_tenths !== null;
  const lapsed = command.reserved_until !== undefined && ctx.now >= command.reserved_until;
  if (cold && lapsed && !state?.cold_chain) {
    return reject(
      "cold_reservation_lapsed",
      `the cold slots reserved for this profile may have been given back: ${command.waybill}`,
    );
  }
  const by = clip(command.by, LAB_BY_CHARS_MAX);
  // spec: courier 2.6 rules 2, 3: the cold-chain charge is due from this commit on, so a request
  // that dies before booking it loses nothing (src/courier/reactors/lab_charges.ts books it).
  const due = coldChainDue(state, next, command.waybill, by, ctx.now);
  const profiled: LabSampleEvent = {
    kind: "profiled",
    waybill: command.waybill,
    courier_id: command.courier_id,
    profile: next,
    by,
    at: ctx.now,
  };
  return whole([profiled, ...due.events], due.timers);
}

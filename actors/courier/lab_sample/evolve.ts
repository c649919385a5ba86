/** The sample's events applied. */
import { unreachable } from "../../../src/runtime/actor.ts";
import { withDue, withoutConfirmed } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueOf } from "./charges.ts";
import { readingDigest } from "./digests.ts";
import { LAB_DECISIONS_IN_STATE_MAX, LAB_READINGS_IN_STATE_MAX } from "./limits.ts";
import type { LabBlock, LabReading, LabSample, LabSampleEvent, LabSampleState } from "./types.ts";

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
    reading_digests: [],
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
    reading_digests: [...state.reading_digests, readingDigest(r)],
    out_of_range_total: state.out_of_range_total + (r.in_range === false ? 1 : 0),
    lowest_tenths: state.lowest_tenths === null ? t : Math.min(state.lowest_tenths, t),
    highest_tenths: state.highest_tenths === null ? t : Math.max(state.highest_tenths, t),
  };
}

export function evolve(state: LabSampleState, event: LabSampleEvent): LabSampleState {
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
    case "charge_due":
      return { ...state, charges_due: withDue(chargesDueOf(state), event.charge) };
    case "charges_confirmed":
      return { ...state, charges_due: withoutConfirmed(chargesDueOf(state), event.source_events) };
    case "handed_over":
      // Handed over: no delivery is under way any more (handover.ts).
      return { ...state, handed_over_at: event.at, deliveries_under_way: [] };
    case "handover_reserved":
      return {
        ...state,
        deliveries_under_way: [...(state.deliveries_under_way ?? []), event.delivery],
      };
    case "handovers_ended":
      return {
        ...state,
        deliveries_under_way: (state.deliveries_under_way ?? []).filter((d) =>
          !event.tokens.includes(d.token)
        ),
      };
    default:
      return unreachable(event);
  }
}

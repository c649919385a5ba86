/**
 * Laboratory samples as answered (courier 2.10, 3.4, 4.5): profile, ticks, the latest readings,
 * blocks, decisions and whether a handover may happen now. Documentation:
 * tests/http/answers_runs_test.ts holds answers to these.
 */
import {
  handoverVerdict,
  LAB_BLOCK_REASONS,
  LAB_DECISION_KINDS,
  type LabSample,
  REJECTED_BY_LABORATORY,
  SEAL_STATUSES,
  TEMPERATURE_UNITS,
} from "../../../actors/courier/lab_sample/mod.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { orNull, UtcInstant } from "../../../src/http/schemas.ts";

const Celsius = z.number().openapi({ description: "°C, to one decimal" });
const BlockReason = z.enum(LAB_BLOCK_REASONS);

/** spec: courier 2.10, 3.4: a laboratory sample as operations read it (labView). */
export const LabSampleAnswer = z.object({
  waybill: z.string(),
  sample_type: z.string(),
  laboratory: z.string().nullable(),
  cold_chain: z.boolean().openapi({ description: "Either temperature bound is set" }),
  min_temp_c: Celsius.nullable(),
  max_temp_c: Celsius.nullable(),
  deadline_at: UtcInstant.nullable().openapi({
    description: "When the laboratory must have the sample",
  }),
  seal_id: z.string().nullable().openapi({ description: "The seal the profile names" }),
  checklist: orNull(
    z.object({
      code: z.string(),
      version: z.number().int(),
      items: z.array(z.object({ key: z.string(), required: z.boolean() })),
    }).openapi("LabChecklist"),
  ).openapi({ description: "The compliance checklist version the profile uses" }),
  seal: z.enum(SEAL_STATUSES).openapi({ description: "As the ticks of the item `seal` found it" }),
  ticks: z.array(
    z.object({
      item: z.string(),
      ok: z.boolean(),
      note: z.string().nullable(),
      seal_id: z.string().nullable().openapi({ description: "Item `seal`: the seal found" }),
      by: z.string(),
      at: UtcInstant,
    }).openapi("LabTick"),
  ).openapi({ description: "The latest tick of each item" }),
  ticks_total: z.number().int(),
  readings: z.array(
    z.object({
      seq: z.number().int(),
      value: z.number().openapi({ description: "As sent, in `unit`" }),
      unit: z.enum(TEMPERATURE_UNITS),
      source: z.string(),
      device: z.string(),
      time: UtcInstant.openapi({ description: "When it was measured" }),
      celsius: Celsius,
      in_range: z.boolean().nullable().openapi({
        description: "Null when the profile sets no range",
      }),
      recorded_at: UtcInstant,
      by: z.string(),
    }).openapi("LabReading"),
  ).openapi({ description: "The latest readings, oldest first" }),
  readings_total: z.number().int(),
  out_of_range_total: z.number().int(),
  lowest_c: Celsius.nullable(),
  highest_c: Celsius.nullable(),
  blocks: z.array(
    z.object({
      reason: BlockReason,
      opened_at: UtcInstant,
      last_at: UtcInstant,
      occurrences: z.number().int(),
      detail: z.string().openapi({ description: "The latest occurrence, in words" }),
    }).openapi("LabBlock"),
  ).openapi({ description: "Open blocks on the handover, one per reason" }),
  decisions: z.array(
    z.object({
      decision: z.enum(LAB_DECISION_KINDS),
      note: z.string(),
      decided_by: z.string().nullable().openapi({ description: "Who at the laboratory decided" }),
      recorded_by: z.string(),
      at: UtcInstant,
      settled: z.array(BlockReason).openapi({ description: "The blocks this decision settled" }),
    }).openapi("LabDecision"),
  ).openapi({ description: "The laboratory's latest decisions" }),
  decisions_total: z.number().int(),
  rejected: z.boolean().openapi({ description: "The laboratory refused the handover for good" }),
  handover: z.object({
    allowed: z.boolean(),
    reasons: z.array(z.enum([REJECTED_BY_LABORATORY, ...LAB_BLOCK_REASONS])),
    missing_items: z.array(z.string()).openapi({
      description: "Required checklist items not ticked ok (they inform, never block)",
    }),
  }).openapi("LabHandover"),
  profiled_at: UtcInstant,
  profiled_by: z.string(),
  handed_over_at: UtcInstant.nullable().openapi({
    description: "When a run's deliver stop handed the sample to the laboratory; lateness is " +
      "judged up to it",
  }),
}).openapi("LabSample");

const degrees = (tenths: number | null) => tenths === null ? null : tenths / 10;

/** The sample as operations read it, with whether a handover may happen now. */
export function labView(s: LabSample, now: number) {
  const p = s.profile;
  return {
    waybill: s.waybill,
    sample_type: p.sample_type,
    laboratory: p.laboratory,
    cold_chain: s.cold_chain,
    min_temp_c: degrees(p.min_tenths),
    max_temp_c: degrees(p.max_tenths),
    deadline_at: iso(p.deadline_at),
    seal_id: p.seal_id,
    checklist: p.checklist,
    seal: s.seal,
    ticks: s.ticks.map((t) => ({ ...t, at: iso(t.at) })),
    ticks_total: s.ticks_total,
    readings: s.readings.map((r) => ({
      seq: r.seq,
      value: r.value,
      unit: r.unit,
      source: r.source,
      device: r.device,
      time: iso(r.time),
      celsius: degrees(r.celsius_tenths),
      in_range: r.in_range,
      recorded_at: iso(r.recorded_at),
      by: r.by,
    })),
    readings_total: s.readings_total,
    out_of_range_total: s.out_of_range_total,
    lowest_c: degrees(s.lowest_tenths),
    highest_c: degrees(s.highest_tenths),
    blocks: s.blocks.map((b) => ({ ...b, opened_at: iso(b.opened_at), last_at: iso(b.last_at) })),
    decisions: s.decisions.map((d) => ({ ...d, at: iso(d.at) })),
    decisions_total: s.decisions_total,
    rejected: s.rejected,
    handover: handoverVerdict(s, now),
    profiled_at: iso(s.profiled_at),
    profiled_by: s.profiled_by,
    handed_over_at: iso(s.handed_over_at),
  };
}

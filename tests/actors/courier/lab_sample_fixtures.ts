/** Fixtures shared by lab_sample_test.ts and lab_sample_handover_test.ts. */
import assert from "node:assert/strict";
import {
  type LabProfileInput,
  labSampleActor,
  type LabSampleCommand,
  type ReadingInput,
} from "../../../actors/courier/lab_sample/mod.ts";
import { ActorHarness } from "../../helpers/actor.ts";

export const T0 = Date.parse("2026-11-02T08:00:00Z");
export const HOUR = 3_600_000;
export const DEADLINE = T0 + 6 * HOUR;
export const PROFILE: LabProfileInput = {
  sample_type: "blood",
  laboratory: "Central Lab",
  min_temp_c: 2,
  max_temp_c: 8,
  deadline_at: DEADLINE,
  seal_id: "SEAL-1",
  checklist: null,
};

export function profileCommand(profile: Partial<LabProfileInput> = {}): LabSampleCommand {
  return {
    kind: "profile",
    waybill: "WB1",
    courier_id: "biz_1",
    profile: { ...PROFILE, ...profile },
    by: "staff:usr_1",
  };
}

export function profiled(profile: Partial<LabProfileInput> = {}) {
  const h = new ActorHarness(labSampleActor, { now: T0 });
  h.must(profileCommand(profile));
  return h;
}

export function reading(value: number, fields: Partial<ReadingInput> = {}): LabSampleCommand {
  return {
    kind: "temperature",
    reading: { value, unit: "C", source: "logger", device: "DL-7", time: T0, ...fields },
    by: "driver:drv_1",
  };
}

export function tickCommand(
  item: string,
  ok = true,
  seal_id: string | null = null,
): LabSampleCommand {
  return { kind: "tick", item, ok, note: null, seal_id, by: "driver:drv_1" };
}

export function approveCommand(
  decision: "accept" | "reject",
  note = "lab decided",
): LabSampleCommand {
  return { kind: "approve", decision, note, decided_by: "Dr Kgosi", by: "staff:usr_1" };
}

export function verdict(h: ReturnType<typeof profiled>) {
  const r = h.must({ kind: "handover_check" }).reply;
  assert.ok(r && "allowed" in r);
  return r;
}

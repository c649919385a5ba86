/**
 * Lateness and the handover (courier 3.4): a sample the laboratory gets after its deadline is late
 * and blocks until the laboratory decides; a handover may happen when no block stands.
 */
import { iso } from "../../../src/domain/iso.ts";
import {
  type HandoverVerdict,
  type LabSample,
  type LabSampleEvent,
  REJECTED_BY_LABORATORY,
} from "./types.ts";

export /** The late block to record now, if the deadline passed (at `now` or at `measured`). */
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

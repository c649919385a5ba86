/**
 * The laboratory's decision (courier 3.4), recorded by someone with runs:override: `accept`
 * settles the blocks open now, `reject` refuses the handover for good.
 */
import { type Ctx, reject } from "../../../src/runtime/actor.ts";
import { noProfile, whole } from "./accepted.ts";
import { lateEvent } from "./lateness.ts";
import { clip, LAB_BY_CHARS_MAX, LAB_DECISION_NOTE_CHARS_MAX } from "./limits.ts";
import type { Decided, LabDecision, LabSampleCommand, LabSampleState } from "./types.ts";

export function approve(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "approve" }>,
  ctx: Ctx,
): Decided {
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

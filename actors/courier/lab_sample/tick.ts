/**
 * Checklist ticks (courier 3.4): the latest tick per item is kept; a checklist bounds the items.
 * The item `seal` records the seal: broken (for good) by `ok: false` or another seal id, which
 * blocks the handover unless the laboratory has the sample already.
 */
import { type Ctx, reject } from "../../../src/runtime/actor.ts";
import { noProfile, whole } from "./accepted.ts";
import { lateEvent } from "./lateness.ts";
import {
  clip,
  LAB_BY_CHARS_MAX,
  LAB_NAME_CHARS_MAX,
  LAB_NOTE_CHARS_MAX,
  LAB_TICK_ITEMS_MAX,
  SEAL_ITEM,
} from "./limits.ts";
import type {
  Decided,
  LabSample,
  LabSampleCommand,
  LabSampleEvent,
  LabSampleState,
  LabTick,
  SealStatus,
} from "./types.ts";

function sealAfter(state: LabSample, ok: boolean, sealId: string | null): SealStatus {
  if (state.seal === "broken") return "broken";
  const replaced = sealId !== null && state.profile.seal_id !== null &&
    sealId !== state.profile.seal_id;
  return ok && !replaced ? "intact" : "broken";
}

export function tick(
  state: LabSampleState,
  command: Extract<LabSampleCommand, { kind: "tick" }>,
  ctx: Ctx,
): Decided {
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
  // spec: courier 3.4: a broken seal blocks the handover while the sample is in the courier's
  // care; found by the laboratory after it, it is kept and blocks nothing (as a late reading).
  const inCare = state.handed_over_at === undefined;
  if (seal === "broken" && state.seal !== "broken" && inCare) {
    const why = command.ok
      ? `seal ${sealId} is not the profile's seal ${state.profile.seal_id}`
      : "the seal was found broken";
    events.push({ kind: "blocked", reason: "seal_broken", detail: why, at: ctx.now });
  }
  return whole([...events, ...lateEvent(state, ctx.now)]);
}

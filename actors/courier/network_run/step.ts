/** What deciding one change comes to: its outcome, nothing to do, or a refusal. */
import type { Rejection } from "../../../src/runtime/actor.ts";
import type { RunOutcome } from "./events.ts";
import type { HistoryEntry } from "./run.ts";

/** A change already made (a replayed step): nothing to record, answered as it stands. */
export const SAME = "same" as const;

export type Step = readonly RunOutcome[] | typeof SAME | Rejection;

/** The history entry of a change made now by `by`. */
export function entry(
  action: string,
  by: string,
  at: number,
  detail: string | null = null,
): HistoryEntry {
  return { action, by, at, detail };
}

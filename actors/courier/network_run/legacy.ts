/**
 * Events recorded before a run's events stated outcomes, read as the outcomes they had. Until
 * state version 2 a run recorded the accepted command (`applied {change, at}`), and before that
 * the whole run (`changed {run}`, version 1's first form). The runtime loads a run from its
 * stored state, never from its log, so only an answer rebuilt from the log (replay.ts runAt) reads
 * these: an `applied` change is decided again, on the run as it stood, by the rules it was
 * decided by (today's, which those runs were last written under, but for the errand each of
 * their collections was charged: chargedThen), and a change those rules no longer accept is
 * refused to the caller of runAt, who answers the run as it stands instead.
 */
import type { RunChange } from "./commands.ts";
import { step } from "./decide.ts";
import type { RunEvent, RunOutcome } from "./events.ts";
import type { NetworkRun, NetworkRunState } from "./run.ts";
import { departure } from "./run_changes.ts";
import { SAME } from "./step.ts";

export type LegacyRunEvent =
  /** The accepted command and its time (state version 1, until outcomes). */
  | { kind: "applied"; change: RunChange; at: number }
  /** Version 1's first events carried the whole run. */
  | { kind: "changed"; run: NetworkRun; action: string; by: string };

/** An event of a run's log: what decide records now, or a form recorded before. */
export type StoredRunEvent = RunEvent | LegacyRunEvent;

/** The outcomes a stored event stands for (itself, unless it was recorded before outcomes). */
export function upcast(state: NetworkRunState, event: StoredRunEvent): readonly RunEvent[] {
  if (event.kind === "changed") return [{ kind: "run_created", run: event.run }];
  if (event.kind !== "applied") return [event];
  if (state === null) throw new Error(`run change before the run: ${event.change.kind}`);
  return appliedOutcomes(state, event.change, event.at);
}

function appliedOutcomes(run: NetworkRun, change: RunChange, at: number): readonly RunOutcome[] {
  // A departure recorded after the run arrived, before a run departed once, replays as it was.
  if (change.kind === "depart" && (run.status === "arrived" || run.status === "unloaded")) {
    return [departure(run, change.by, at)];
  }
  const r = step(run, change, at);
  if (r === SAME || !Array.isArray(r)) {
    throw new Error(`run change no longer applies: ${change.kind}`);
  }
  return r.map(chargedThen);
}

/**
 * A collection recorded then was charged its own errand, by the rules of then
 * (`run.collected:{stop}:{waybill}`): read again, it charges the stop's errand with none, so a
 * replay rebuilt from it books no second errand at the stop (courier 2.6 rule 2).
 */
function chargedThen(outcome: RunOutcome): RunOutcome {
  if (outcome.kind !== "stop_collected") return outcome;
  const { errand_waybill: _errand, ...then } = outcome;
  return then;
}

/** A run as it stood at one of its events, and the run a `get` answers. */
import type { RunReply } from "./commands.ts";
import { evolve, type RunEvent } from "./events.ts";
import { upcast } from "./legacy.ts";
import type { NetworkRun, NetworkRunState } from "./run.ts";

/**
 * The run after its events 1..seq, as it stood when a reply named that seq. Events recorded
 * before they stated outcomes are read as the outcomes they had (legacy.ts).
 */
export function runAt(
  events: readonly { seq: number; event: unknown }[],
  seq: number,
): NetworkRunState {
  let run: NetworkRunState = null;
  for (const e of events) {
    if (e.seq > seq) continue;
    for (const outcome of upcast(run, e.event as RunEvent)) run = evolve(run, outcome);
  }
  return run;
}

/** The run from a `get` reply. */
export function asRun(reply: RunReply): NetworkRun {
  if (!("stops" in reply)) throw new Error("a run change answers an acknowledgement, not the run");
  return reply;
}

/** How the sample's decisions answer: the sample after their events, or its absence refused. */
import { accept, reject, type TimerOp } from "../../../src/runtime/actor.ts";
import type { Decided, LabSampleEvent, LabSampleReply, LabSampleState } from "./types.ts";

/** Accepts the events (and timer changes) and answers the sample as it stands after them. */
export function whole(events: LabSampleEvent[], timers?: readonly TimerOp[]): Decided {
  return accept<LabSampleState, LabSampleEvent, LabSampleReply>(events, (s) => {
    if (s === null) throw new Error("lab sample: no state after an accepted command");
    return s;
  }, timers);
}

/** A command other than the profile, before the profile. */
export function noProfile() {
  return reject("lab_profile_missing", "the sample has no laboratory profile yet: set it first");
}

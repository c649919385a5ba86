/**
 * CONTRACT "Driver app": "Every action takes `idempotency_key`; a replay answers the first
 * answer." A driver's action is answered first from the reply kept under the driver's key, a
 * read that decides nothing, before any check of who holds the trip or the offer: whatever
 * happened since (the trip given back, completed, cancelled), the first answer stands. Keys are
 * scoped to the driver, so one driver's key never finds another driver's answer.
 */
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";
import { Refused } from "../../runtime/actor.ts";

/**
 * The answer kept for this key if there is one, else the action with its checks. A refused
 * action looks once more: a first request still in flight may have committed meanwhile.
 */
export async function replayOr<T>(
  kept: () => Promise<T | null>,
  action: () => Promise<T>,
): Promise<T> {
  const first = await kept();
  if (first !== null) return first;
  try {
    return await action();
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    const committed = await kept();
    if (committed === null) throw e;
    return committed;
  }
}

/** The trip a trip actor answered under `key` (its id is the trip's reference), if it did. */
export async function keptTrip(
  deps: Pick<Deps, "runtime">,
  reference: string,
  key: string,
): Promise<Trip | null> {
  const kept = await deps.runtime.replyUnder(tripActor, reference, key);
  return kept !== null && kept.reply.phase === "booked" ? kept.reply.trip : null;
}

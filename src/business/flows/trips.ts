/**
 * A business's trips after booking (Business API 3.1, 4.1): found by integer id or reference,
 * cancelled before collection (the refund follows from the commit), marked ready.
 */
import {
  type Trip,
  TRIP_NUMBER_INDEX,
  tripActor,
  type TripCommand,
} from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, refuse } from "../../runtime/actor.ts";

/** spec: business 4.1: `{id}` is the integer id or the reference, everywhere. */
export async function tripReferenceOf(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
): Promise<string> {
  if (!/^\d{1,15}$/.test(idOrReference)) return idOrReference;
  const found = await deps.runtime.lookup(TRIP_NUMBER_INDEX, `${business}:${idOrReference}`);
  if (!found) refuse("not_found", `trip not found: ${idOrReference}`);
  return found.id;
}

export interface TripAnswer {
  readonly trip: Trip;
  readonly already_cancelled?: boolean;
}

/** Asks the caller's trip `command` (a `get` reads it); another business's trip is not found. */
export async function askTrip(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
  command: Extract<
    TripCommand,
    { kind: "get" | "ready" | "cancel" | "rotate_tracking" | "revoke_tracking" }
  >,
): Promise<TripAnswer> {
  const reference = await tripReferenceOf(deps, business, idOrReference);
  const r = orRefuse(
    command.kind === "get"
      ? await deps.runtime.read(tripActor, business, reference, command)
      : await deps.runtime.ask(tripActor, business, reference, command),
  );
  if (r.phase !== "booked") refuse("not_found", `trip not found: ${idOrReference}`);
  return { trip: r.trip, ...(r.already_cancelled ? { already_cancelled: true } : {}) };
}

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
import { shoppingOrderActor } from "../../../actors/shopping/order.ts";
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
  deps: Pick<Deps, "runtime" | "requestId">,
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
      : await deps.runtime.ask(tripActor, business, reference, command, {
        requestId: deps.requestId,
      }),
  );
  if (r.phase !== "booked") refuse("not_found", `trip not found: ${idOrReference}`);
  return { trip: r.trip, ...(r.already_cancelled ? { already_cancelled: true } : {}) };
}

/**
 * spec: business 4.1 ready; shopping 1.1: the order is packed and ready. A shopping order's trip
 * delivers its whole basket, so it is marked ready by the basket's collection (every store
 * finished), never before by the business: the shopper would collect the trip with stores still
 * to buy, which could then never be bought, reconciled or charged. Refused 409
 * basket_not_collected until then; calling it afterwards is harmless, as for any trip.
 */
export async function markTripReady(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
): Promise<TripAnswer> {
  const reference = await tripReferenceOf(deps, business, idOrReference);
  const order = orRefuse(
    await deps.runtime.read(shoppingOrderActor, business, reference, { kind: "get" }),
  );
  if (order && !order.basket) {
    const finished = Object.keys(order.parts ?? {}).length;
    refuse(
      "basket_not_collected",
      "a shopping order's trip is ready once its basket is collected, not before: stores " +
        `finished: ${finished} of ${order.stores.length}`,
    );
  }
  return await askTrip(deps, business, reference, { kind: "ready" });
}

/**
 * One driver for a batch (Business API 4.2): the dispatcher offers only the first stop of the
 * driving order; the driver who accepts it is given every other stop of the batch, all collected
 * at the pickup and delivered in order. Either side may come first on the bus (a stop created
 * after the first was accepted, or the first accepted after the stops exist), so both ask here;
 * the dispatcher's sweep of pending trips asks again for a stop a crash left without its driver.
 */
import { batchActor } from "../../../actors/business/batch.ts";
import { type Trip, tripActor, type TripDriver } from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";

/** A stop of a batch that is not the first: it never gets an offer of its own. */
export function followsLead(t: Pick<Trip, "batch">): boolean {
  return t.batch !== undefined && t.batch.position > 1;
}

async function giveTo(deps: Pick<Deps, "runtime">, business: string, ref: string, d: TripDriver) {
  const r = await deps.runtime.ask(tripActor, business, ref, { kind: "accept", driver: d }, {
    idempotencyKey: `batch_driver:${ref}:${d.id}`,
  });
  // Another driver holds it, or it ended (cancelled): the stop keeps what it has.
  return r.ok;
}

/**
 * The batch's stops follow its first stop's driver: `t` is a stop just heard on the bus. Answers
 * how many stops were given to the driver.
 */
export async function followLead(deps: Pick<Deps, "runtime">, t: Trip): Promise<number> {
  if (t.batch === undefined) return 0;
  const batch = await deps.runtime.read(batchActor, t.business_id, t.batch.id, { kind: "get" });
  if (!batch.ok) return 0;
  const stops = batch.reply.batch.stops;
  if (!followsLead(t)) {
    // Once, as the first stop is accepted (or queued behind the driver's trip under way).
    if (t.driver === null || (t.status !== "accepted" && t.status !== "queued")) return 0;
    let given = 0;
    for (const s of stops.slice(1)) {
      if (await giveTo(deps, t.business_id, s.trip_reference, t.driver)) given++;
    }
    return given;
  }
  if (t.driver !== null || t.status !== "pending") return 0;
  const lead = await deps.runtime.read(tripActor, t.business_id, stops[0]!.trip_reference, {
    kind: "get",
  });
  if (!lead.ok || lead.reply.phase !== "booked" || lead.reply.trip.driver === null) return 0;
  return await giveTo(deps, t.business_id, t.reference, lead.reply.trip.driver) ? 1 : 0;
}

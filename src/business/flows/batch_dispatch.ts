/**
 * One driver for a batch (Business API 4.2): the dispatcher offers only the first stop of the
 * driving order; the driver who accepts it is given every other stop of the batch, all collected
 * at the pickup and delivered in order. Either side may come first on the bus (a stop created
 * after the first was accepted, or the first accepted after the stops exist), so both ask here;
 * the dispatcher's sweep of pending trips asks again for a stop a crash left without its driver.
 *
 * A first stop accepted queued behind its driver's trip under way, maybe another business's (3.1
 * queued), has the other stops given queued too, and they start with it (BATCH_START_OUTBOX): till
 * then where the driver is belongs to that trip, on none of the batch's tracking links or board.
 */
import { batchActor } from "../../../actors/business/batch.ts";
import { type Trip, tripActor, type TripDriver } from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";
import type { BatchStartItem } from "../rules/driver_holding.ts";
import { locationSince, SEEN_ANY_TIME } from "../rules/tracking.ts";

type D = Pick<Deps, "runtime">;

/** A stop of a batch that is not the first: it never gets an offer of its own. */
export function followsLead(t: Pick<Trip, "batch">): boolean {
  return t.batch !== undefined && t.batch.position > 1;
}

/**
 * spec: business 3.1 queued: the first stop waits, or waited, behind its driver's trip under way
 * (its driver is not its to show at any time): the other stops are given queued, as it was.
 */
function leadQueued(lead: Trip): boolean {
  return locationSince(lead) !== SEEN_ANY_TIME;
}

async function giveTo(deps: D, business: string, ref: string, d: TripDriver, queued: boolean) {
  const r = await deps.runtime.ask(tripActor, business, ref, {
    kind: "accept",
    driver: d,
    ...(queued ? { queued: true } : {}),
  }, { idempotencyKey: `batch_driver:${ref}:${d.id}` });
  // Another driver holds it, or it ended (cancelled): the stop keeps what it has.
  return r.ok;
}

async function tripOf(deps: D, business: string, ref: string): Promise<Trip | null> {
  const r = await deps.runtime.read(tripActor, business, ref, { kind: "get" });
  return r.ok && r.reply.phase === "booked" ? r.reply.trip : null;
}

async function stopsOf(deps: D, business: string, batchId: string) {
  const batch = await deps.runtime.read(batchActor, business, batchId, { kind: "get" });
  return batch.ok ? batch.reply.batch.stops : null;
}

/**
 * The batch's stops follow its first stop's driver: `t` is a stop just heard on the bus. Answers
 * how many stops were given to the driver.
 */
export async function followLead(deps: D, t: Trip): Promise<number> {
  if (t.batch === undefined) return 0;
  const stops = await stopsOf(deps, t.business_id, t.batch.id);
  if (stops === null) return 0;
  if (!followsLead(t)) {
    // Once, as the first stop is accepted (or queued behind the driver's trip under way).
    if (t.driver === null || (t.status !== "accepted" && t.status !== "queued")) return 0;
    let given = 0;
    for (const s of stops.slice(1)) {
      if (await giveTo(deps, t.business_id, s.trip_reference, t.driver, leadQueued(t))) given++;
    }
    return given;
  }
  if (t.driver !== null || t.status !== "pending") return 0;
  const lead = await tripOf(deps, t.business_id, stops[0]!.trip_reference);
  if (lead === null || lead.driver === null) return 0;
  return await giveTo(deps, t.business_id, t.reference, lead.driver, leadQueued(lead)) ? 1 : 0;
}

/**
 * spec: business 2.3, 3.1 queued: the batch's stops given queued start once its first stop has
 * started (BATCH_START_OUTBOX's handler): every other stop, or the one item names. A first stop
 * still queued, or ended in the queue, starts none; a stop not queued, or another driver's, is
 * left as it is (trip `start`), so a second handling changes nothing.
 */
export async function startWithLead(deps: D, item: BatchStartItem): Promise<void> {
  const stops = await stopsOf(deps, item.business_id, item.batch_id);
  if (stops === null) return;
  const lead = await tripOf(deps, item.business_id, stops[0]!.trip_reference);
  if (lead === null || lead.driver === null || lead.started_at === null) return;
  const refs = item.stop !== undefined ? [item.stop] : stops.slice(1).map((s) => s.trip_reference);
  for (const ref of refs) {
    const r = await deps.runtime.ask(tripActor, item.business_id, ref, {
      kind: "start",
      driver_id: lead.driver.id,
    });
    // Not this driver's stop (not given yet, given back, taken by another): nothing to start.
    if (!r.ok && r.code !== "not_found") orRefuse(r);
  }
}

/**
 * One driver for a batch (Business API 4.2): the dispatcher offers only the first stop of the
 * driving order (the next, should it end before any driver took it); the driver who accepts it
 * is given every other stop of the batch, all collected at the pickup and delivered in order.
 * Either side may come first on the bus (a stop created
 * after the first was accepted, or the first accepted after the stops exist), so both ask here;
 * the dispatcher's sweep of pending trips asks again for a stop a crash left without its driver.
 *
 * A first stop accepted queued behind its driver's trip under way, maybe another business's (3.1
 * queued), has the other stops given queued too, and they start with it (BATCH_START_OUTBOX): till
 * then where the driver is belongs to that trip, on none of the batch's tracking links or board.
 * The driver holds one stop for them all (pool_driver.ts): should it leave while queued (cancelled,
 * given back), the hold passes to the next stop queued with it (BATCH_HOLD_OUTBOX), which then
 * leads: it starts when the trip under way ends, and the others with it.
 */
import { batchActor, type BatchStop } from "../../../actors/business/batch.ts";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { type Trip, tripActor, type TripDriver } from "../../../actors/business/trip/mod.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse } from "../../runtime/actor.ts";
import { type BatchHoldItem, type BatchStartItem, tripKeyOf } from "../rules/driver_holding.ts";
import { SEEN_ANY_TIME, startedSince } from "../rules/tracking.ts";
import { releaseDriver } from "./driver_holding.ts";

type D = Pick<Deps, "runtime" | "requestId">;

/** A stop of a batch that is not the first: it never gets an offer of its own. */
export function followsLead(t: Pick<Trip, "batch">): boolean {
  return t.batch !== undefined && t.batch.position > 1;
}

/**
 * spec: business 3.1 queued: the first stop waits, or waited, behind its driver's trip under way
 * (its driver is not its to show at any time): the other stops are given queued, as it was.
 */
function leadQueued(lead: Trip): boolean {
  return startedSince(lead) !== SEEN_ANY_TIME;
}

/**
 * The stop given to the lead's driver, queued as the lead was, showing the driver from when the
 * lead does (spec: business 2.4: a position observed before is maybe another business's trip's).
 */
async function giveTo(deps: D, business: string, ref: string, lead: Trip, d: TripDriver) {
  const since = lead.positions_since ?? lead.accepted_at;
  const r = await deps.runtime.ask(tripActor, business, ref, {
    kind: "accept",
    driver: d,
    ...(leadQueued(lead) ? { queued: true } : {}),
    ...(since !== null ? { positions_since: since } : {}),
  }, { idempotencyKey: `batch_driver:${ref}:${d.id}`, requestId: deps.requestId });
  // Another driver holds it, or it ended (cancelled): the stop keeps what it has.
  return r.ok;
}

/**
 * A refused read (a full mailbox) is thrown, never taken as no trip or no batch: the outbox
 * handlers here would drop their item (a driver released while carrying stops, queued stops
 * never started), and the dispatcher reports it.
 */
async function tripOf(deps: D, business: string, ref: string): Promise<Trip | null> {
  const r = foundOrNull(await deps.runtime.read(tripActor, business, ref, { kind: "get" }));
  return r?.phase === "booked" ? r.trip : null;
}

async function stopsOf(deps: D, business: string, batchId: string) {
  const batch = foundOrNull(
    await deps.runtime.read(batchActor, business, batchId, { kind: "get" }),
  );
  return batch ? batch.batch.stops : null;
}

/** spec: business 3.1: a stop cancelled before it started: it holds no work of its driver's. */
function endedQueued(t: Trip): boolean {
  return t.status === "cancelled" && t.started_at === null;
}

/**
 * The stop the batch's others follow: the first in the driving order, `except` aside, with a
 * driver (`driverId` when named) that did not end in the queue. The first stop, but for one
 * cancelled in the queue or given back.
 */
async function leadOf(
  deps: D,
  business: string,
  stops: readonly BatchStop[],
  of: { readonly driverId?: string; readonly except?: string },
): Promise<Trip | null> {
  for (const s of stops) {
    if (s.trip_reference === of.except) continue;
    const t = await tripOf(deps, business, s.trip_reference);
    if (t === null || t.driver === null || endedQueued(t)) continue;
    if (of.driverId === undefined || t.driver.id === of.driverId) return t;
  }
  return null;
}

/** spec: business 3.1: a stop cancelled before any driver took it (or given back). */
function endedUntaken(t: Trip): boolean {
  return t.status === "cancelled" && t.driver === null;
}

/**
 * spec: business 4.2: the stop offered for the batch: the first of the driving order, or the
 * first after stops that ended before any driver took them (the business cancelled its first
 * stop while it waited for a driver), so the others still get their one driver.
 */
async function leads(deps: D, t: Trip, stops: readonly BatchStop[]): Promise<boolean> {
  for (const s of stops) {
    if (s.trip_reference === t.reference) return true;
    const before = await tripOf(deps, t.business_id, s.trip_reference);
    if (before === null || !endedUntaken(before)) return false;
  }
  return false;
}

/**
 * spec: business 4.2: the stop of `t`'s batch that is offered for it (`t` itself when it leads,
 * or is no batch's stop): the first of the driving order that did not end before a driver took it.
 */
export async function leadingStop(deps: D, t: Trip): Promise<Trip | null> {
  if (t.batch === undefined) return t;
  for (const s of await stopsOf(deps, t.business_id, t.batch.id) ?? []) {
    const stop = s.trip_reference === t.reference
      ? t
      : await tripOf(deps, t.business_id, s.trip_reference);
    if (stop === null) return null;
    if (!endedUntaken(stop)) return stop;
  }
  return null;
}

/** A stop of a batch that waits for the driver of the stop that leads it (never offered). */
export async function waitsForLead(deps: D, t: Trip): Promise<boolean> {
  if (!followsLead(t)) return false;
  const stops = await stopsOf(deps, t.business_id, t.batch!.id);
  return stops === null || !(await leads(deps, t, stops));
}

/**
 * The batch's stop that leads it once `t` ended before any driver took it, when that stop waits
 * for a driver with no offer: the dispatcher takes it up (else nothing would).
 */
export async function nextLead(deps: D, t: Trip): Promise<Trip | null> {
  if (t.batch === undefined || !endedUntaken(t)) return null;
  for (const s of await stopsOf(deps, t.business_id, t.batch.id) ?? []) {
    const next = await tripOf(deps, t.business_id, s.trip_reference);
    if (next === null) return null;
    if (endedUntaken(next)) continue;
    return next.status === "pending" && next.driver === null && next.offer === null ? next : null;
  }
  return null;
}

/**
 * The batch's stops follow the driver of the stop that leads it: `t` is a stop just heard on the
 * bus. Answers how many stops were given to the driver.
 */
export async function followLead(deps: D, t: Trip): Promise<number> {
  if (t.batch === undefined) return 0;
  const stops = await stopsOf(deps, t.business_id, t.batch.id);
  if (stops === null) return 0;
  if (t.driver !== null) {
    // Once, as the stop that leads is accepted (or queued behind the driver's trip under way).
    if (t.status !== "accepted" && t.status !== "queued") return 0;
    if (!(await leads(deps, t, stops))) return 0;
    let given = 0;
    const after = stops.slice(stops.findIndex((s) => s.trip_reference === t.reference) + 1);
    for (const s of after) {
      if (await giveTo(deps, t.business_id, s.trip_reference, t, t.driver)) given++;
    }
    return given;
  }
  if (!followsLead(t) || t.status !== "pending") return 0;
  // The first stop's driver; once it left in the queue, the driver of the stop that leads since.
  const lead = await leadOf(deps, t.business_id, stops, { except: t.reference });
  if (lead === null || lead.driver === null) return 0;
  return await giveTo(deps, t.business_id, t.reference, lead, lead.driver) ? 1 : 0;
}

/**
 * spec: business 2.3, 3.1 queued: the batch's stops given queued start once the stop their driver
 * holds has started (BATCH_START_OUTBOX's handler): every other stop of that driver, or the one
 * the item names, given queued, once the batch has started for its driver. A stop not queued, or
 * another driver's, is left as it is (trip `start`), so a second handling changes nothing.
 */
export async function startWithLead(deps: D, item: BatchStartItem): Promise<void> {
  const stops = await stopsOf(deps, item.business_id, item.batch_id);
  if (stops === null) return;
  if (item.stop !== undefined) return await startGiven(deps, item.business_id, stops, item.stop);
  // An item stored before it named the driver: the first stop's, once started.
  let driverId = item.driver_id;
  if (driverId === undefined) {
    const lead = await tripOf(deps, item.business_id, stops[0]!.trip_reference);
    if (lead === null || lead.driver === null || lead.started_at === null) return;
    driverId = lead.driver.id;
  }
  for (const s of stops) await startStop(deps, item.business_id, s.trip_reference, driverId);
}

/** A stop given queued starts at once if the stop its driver's batch follows has started. */
async function startGiven(deps: D, business: string, stops: readonly BatchStop[], ref: string) {
  const stop = await tripOf(deps, business, ref);
  if (stop === null || stop.driver === null || stop.status !== "queued") return;
  const driverId = stop.driver.id;
  const lead = await leadOf(deps, business, stops, { driverId, except: ref });
  if (lead === null || lead.started_at === null) return;
  await startStop(deps, business, ref, driverId);
}

async function startStop(deps: D, business: string, ref: string, driverId: string) {
  const r = await deps.runtime.ask(tripActor, business, ref, {
    kind: "start",
    driver_id: driverId,
    with_batch: true,
  }, { requestId: deps.requestId });
  // Not this driver's stop (not given yet, given back, taken by another): nothing to start.
  if (!r.ok && r.code !== "not_found") orRefuse(r);
}

/**
 * spec: business 2.3, 3.1, 3.2: the batch's stop `item.stop` ended or left its driver
 * (BATCH_HOLD_OUTBOX's handler). If the driver held it, the hold passes to the first stop they
 * still carry (queued or under way), in the driving order, which leads from then; with none, it
 * is released. A stop that also left
 * before the hold reached it passes it on. A stop not held passes nothing, so a second handling
 * changes nothing.
 */
export async function passHold(deps: D, item: BatchHoldItem): Promise<void> {
  const key = (ref: string) => tripKeyOf(item.business_id, ref);
  const stops = await stopsOf(deps, item.business_id, item.batch_id) ?? [];
  let from = item.stop;
  for (let i = 0; i <= stops.length; i++) {
    const next = await carriedWith(deps, item, stops, from);
    if (next === null) {
      return await releaseDriver(deps, { driver_id: item.driver_id, trip: key(from) });
    }
    const held = orRefuse(
      await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, item.driver_id, {
        kind: "pass",
        trip: key(from),
        to: key(next),
      }, { requestId: deps.requestId }),
    );
    // `from` was not held (another stop, or handled before): nothing passed.
    if (held.current !== key(next) && held.queued !== key(next)) return;
    const now = await tripOf(deps, item.business_id, next);
    if (now !== null && now.driver?.id === item.driver_id && carried(now)) return;
    from = next;
  }
}

/** spec: business 3.1: a stop its driver still has to do (queued, under way), not ended. */
function carried(t: Trip): boolean {
  return t.status !== "completed" && t.status !== "cancelled" && t.status !== "pending" &&
    t.status !== "scheduled";
}

/** The first of the batch's stops, `from` aside, its driver still carries (queued or under way). */
async function carriedWith(
  deps: D,
  item: BatchHoldItem,
  stops: readonly BatchStop[],
  from: string,
) {
  for (const s of stops) {
    if (s.trip_reference === from) continue;
    const t = await tripOf(deps, item.business_id, s.trip_reference);
    if (t !== null && t.driver?.id === item.driver_id && carried(t)) return s.trip_reference;
  }
  return null;
}

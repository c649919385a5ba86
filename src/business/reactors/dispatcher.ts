/**
 * Dispatch (Business API 1.2, 3.1): a trip that needs a driver is offered to the nearest online
 * driver of its zone whose vehicle fits, found through the spatial index; a driver has one offer
 * at a time; a trip no driver can take waits here until one comes online, moves into range or
 * is freed. What must survive a crash is the trip's: its offer, its timers (expiry, window, the
 * time a prep order or a scheduled trip is due), all in the trip actor. This keeps only what the
 * next choice needs, rebuilt from the changes it hears.
 */
import { type PoolDriver, poolDriverActor } from "../../../actors/business/pool_driver.ts";
import {
  dispatchable,
  type DispatchCommand,
  type Trip,
  tripActor,
  type TripDraft,
} from "../../../actors/business/trip/mod.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  type PlatformSettings,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import type { Kysely } from "kysely";
import type { ActorChange, Bus, HandledBy, Subscription } from "../../bus/bus.ts";
import type { Database } from "../../db/schema.ts";
import { EVERY_INSTANCE, subjectPattern } from "../../bus/bus.ts";
import { partitionOf } from "../../runtime/placement.ts";
import type { Deps, Reactor } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";
import { type Catalogue, vehicleTypeOf } from "../rules/catalogue.ts";
import { offerDueAt, vehicleFits } from "../rules/dispatch.ts";
import { catalogueOf } from "../flows/fares.ts";
import { tripKeyOf } from "../flows/dispatch.ts";
import type { FirstOffer, FirstOffers } from "../flows/complete_booking.ts";
import { followLead, followsLead, nextLead, waitsForLead } from "../flows/batch_dispatch.ts";
import { handleHoldingOutboxes } from "./holding_outboxes.ts";
import { type DueTrip, dueTrips } from "../queries/trips.ts";
import { DriverIndex, type IndexedDriver } from "./driver_index.ts";
import { type ChoiceFor, nearestDriver, offerOf } from "./driver_choice.ts";
import type { Position } from "./live_positions.ts";

/** Waiting trips one sweep takes up, longest due first (the next sweep takes the rest). */
export const SWEEP_TRIPS_MAX = 500;

/** Rows one sweep reads past the trips it leaves (waiting here, held elsewhere, offered). */
export const SWEEP_ROWS_MAX = 20 * SWEEP_TRIPS_MAX;

/**
 * Waiting trips tried for one freed driver, oldest first, among those the driver could be
 * offered: a bound on the work of one ping.
 */
export const WAITING_TRIES_MAX = 20;

type DispatchDeps = Pick<Deps, "runtime" | "clock"> & {
  readonly bus: Bus;
  readonly busPrefix: string;
  readonly onError?: (error: unknown, where: string) => void;
};

export class Dispatcher implements Reactor, FirstOffers {
  readonly index = new DriverIndex();
  readonly #deps: DispatchDeps;
  /** Trips waiting for a driver, by zone, oldest first. */
  readonly #waiting = new Map<string, Map<string, Trip>>();
  /** The driver each trip's waiting offer is for, and back. */
  readonly #offerOf = new Map<string, string>();
  readonly #tripOf = new Map<string, string>();
  readonly #subs: Subscription[];
  readonly #work = new Set<Promise<unknown>>();
  readonly #releases: (() => void)[];

  constructor(deps: DispatchDeps) {
    this.#deps = deps;
    const on = (
      type: string,
      tenant: string,
      handledBy: HandledBy,
      f: (c: ActorChange) => Promise<void>,
    ) =>
      deps.bus.subscribe(subjectPattern(deps.busPrefix, tenant, type), (m) => {
        this.#track(f(m.payload as ActorChange));
      }, { handledBy });
    const placement = deps.runtime.placement;
    this.#subs = [
      // A trip is dispatched by its holder alone (issue 43 item 3): one offer at a time.
      on(tripActor.type, "*", placement, (c) => this.#onTrip(c.snapshot as Trip | null)),
      // Every instance keeps its own index of the drivers: each hears every driver's change.
      on(
        poolDriverActor.type,
        PLATFORM_TENANT,
        EVERY_INSTANCE,
        (c) => this.#onDriver(c.snapshot as PoolDriver),
      ),
    ];
    this.#releases = handleHoldingOutboxes(deps);
  }

  /** A driver's newest position (LivePositions): a driver moving into range may take a trip. */
  moved(driverId: string, p: Position): void {
    this.index.moved(driverId, p);
    if (this.index.driver(driverId) === null) {
      this.#track(this.#loadDriver(driverId));
      return;
    }
    this.#track(this.#freed(driverId));
  }

  /**
   * Takes up again the trips the query side shows waiting for a driver with no offer (pending or
   * scheduled): what a restart (or another instance) left only in a memory that is gone. A trip
   * already waiting here, or with an offer or a due time of its own, is left to what holds it.
   * `limit`: the trips one sweep takes up (SWEEP_TRIPS_MAX; smaller in tests).
   */
  async sweep(db: Kysely<Database>, limit = SWEEP_TRIPS_MAX): Promise<number> {
    let taken = 0;
    let after: DueTrip | null = null;
    // The trips it leaves (waiting here, another instance's, offered) are read past, else as
    // many of them would keep every trip after them from ever being taken up.
    for (let read = 0; read < SWEEP_ROWS_MAX && taken < limit;) {
      const rows: DueTrip[] = await dueTrips(db, this.#deps.clock.now(), after, limit);
      for (const row of rows) {
        if (taken < limit && await this.#takeUp(row)) taken++;
      }
      read += rows.length;
      if (rows.length < limit) break;
      after = rows[rows.length - 1]!;
    }
    return taken;
  }

  /** The trip of the sweep's row is taken up here; false when it is left as it is. */
  async #takeUp(row: DueTrip): Promise<boolean> {
    // Another instance's trip is its holder's to take up (issue 43 item 3).
    const placement = this.#deps.runtime.placement;
    if (placement.held(partitionOf({ type: tripActor.type, id: row.id })) === undefined) {
      return false;
    }
    const key = tripKeyOf(row.tenant, row.id);
    if (this.#offerOf.has(key) || [...this.#waiting.values()].some((z) => z.has(key))) {
      return false;
    }
    const r = await this.#deps.runtime.read(tripActor, row.tenant, row.id, { kind: "get" });
    if (!r.ok || r.reply.phase !== "booked" || r.reply.trip.offer !== null) return false;
    await this.#onTrip(r.reply.trip);
    return true;
  }

  /** Trips waiting for a driver now (for the board and tests). */
  waiting(): number {
    let n = 0;
    for (const z of this.#waiting.values()) n += z.size;
    return n;
  }

  /** Resolves once the work under way is done (tests, bench). */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  async close(): Promise<void> {
    for (const s of this.#subs) s.unsubscribe();
    for (const release of this.#releases) release();
    await this.idle();
  }

  #track(p: Promise<unknown>): void {
    const w = p.catch((e) => this.#report(e)).finally(() => this.#work.delete(w));
    this.#work.add(w);
  }

  #report(e: unknown): void {
    if (this.#deps.onError) this.#deps.onError(e, "dispatch");
    else console.error("dispatch:", e);
  }

  async #loadDriver(id: string): Promise<void> {
    const r = await this.#deps.runtime.read(poolDriverActor, PLATFORM_TENANT, id, { kind: "get" });
    if (r.ok) await this.#onDriver(r.reply);
  }

  async #onDriver(d: PoolDriver | null): Promise<void> {
    if (!d) return;
    const entry: IndexedDriver = {
      id: d.id,
      zone_id: d.zone_id,
      vehicle_type_id: d.vehicle_type_id,
      online: d.online,
      full: d.current !== null && d.queued !== null,
    };
    this.index.setDriver(entry);
    await this.#freed(d.id);
  }

  async #onTrip(t: Trip | null): Promise<void> {
    if (!t) return;
    const key = tripKeyOf(t.business_id, t.reference);
    const before = this.#offerOf.get(key);
    const now = t.offer?.driver_id;
    if (before !== undefined && before !== now) this.#unreserve(key, before);
    if (now !== undefined) this.#reserve(key, now);
    // spec: business 4.2: a batch's stops go to the driver of its first stop, never offered.
    if (t.batch !== undefined) await followLead(this.#deps, t);
    const follows = dispatchable(t) && await waitsForLead(this.#deps, t);
    if (!dispatchable(t) || t.offer !== null || follows) {
      this.#forget(key);
      // spec: business 3.1: a stop never offered still ends with its window, which one stored
      // before windows were decided at booking is given here (its change comes back here).
      if (dispatchable(t) && t.offer === null) await this.#timed(t);
    } else await this.#dispatch(t);
    // An ended or given-back trip frees its driver through the trip's release outbox
    // (flows/driver_holding.ts); the driver's change then tries the waiting trips.
    if (before !== undefined && before !== now) await this.#freed(before);
    // spec: business 4.2: a batch's stop ended untaken: the stop that leads from now is offered.
    const next = await nextLead(this.#deps, t);
    if (next !== null) await this.#onTrip(next);
  }

  #reserve(key: string, driver: string): void {
    this.#offerOf.set(key, driver);
    this.#tripOf.set(driver, key);
  }

  #unreserve(key: string, driver: string): void {
    if (this.#offerOf.get(key) === driver) this.#offerOf.delete(key);
    if (this.#tripOf.get(driver) === key) this.#tripOf.delete(driver);
  }

  #forget(key: string): void {
    for (const z of this.#waiting.values()) z.delete(key);
  }

  async #context(): Promise<{ settings: PlatformSettings; catalogue: Catalogue }> {
    const [s, catalogue] = await Promise.all([
      this.#deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
        kind: "get",
      }),
      catalogueOf(this.#deps),
    ]);
    return { settings: orRefuse(s), catalogue };
  }

  /**
   * spec: business 3.1: the first offer of a trip about to be created, due at once, to its nearest
   * free fitting driver, who is held for it from now: the booking commits the offer with the trip
   * (flows/complete_booking.ts), so it does not wait for the creation to come back on the bus.
   * Null: the trip waits for this dispatcher to hear its creation, as any other.
   */
  async choose(d: TripDraft): Promise<FirstOffer | null> {
    const { settings: s, catalogue } = await this.#context();
    const now = this.#deps.clock.now();
    const timing = { created_at: now, ready_at: null, ...d };
    const due = offerDueAt(timing, s);
    if ((due !== null && due > now) || followsLead(d)) return null;
    const key = tripKeyOf(d.business_id, d.reference);
    if (this.#offerOf.has(key)) return null;
    const driver = this.#search({ ...d, excluded: [] }, s, catalogue, now)?.driver ?? null;
    if (driver === null) return null;
    this.#reserve(key, driver);
    return offerOf(d, driver, s, now);
  }

  /** The trip was not created with the offer `choose` made: its driver is free again. */
  release(d: TripDraft, driverId: string): void {
    this.#unreserve(tripKeyOf(d.business_id, d.reference), driverId);
    this.#track(this.#freed(driverId));
  }

  /** The zone of the pickup and its nearest free fitting driver (null: none); null: no zone. */
  #search(t: ChoiceFor, settings: PlatformSettings, catalogue: Catalogue, now: number) {
    const busy = (driverId: string) => this.#tripOf.has(driverId);
    return nearestDriver(this.index, t, { settings, catalogue, now, busy });
  }

  /** Offers the trip to its nearest fitting driver, or keeps it waiting. */
  async #dispatch(t: Trip): Promise<void> {
    const { settings: s, catalogue } = await this.#context();
    const key = tripKeyOf(t.business_id, t.reference);
    const now = this.#deps.clock.now();
    const d = t.dispatch;
    if (await this.#timed(t, s)) return;
    // The due time decided at booking, whatever the leads are now (its window counts from it); a
    // prep order marked ready is due at once (spec: business 3.1).
    const due = t.ready_at !== null && t.scheduled_at === null
      ? null
      : d.offer_after ?? offerDueAt(t, s);
    if (due !== null && due > now) {
      if (d.offer_after === null) await this.#ask(t, { kind: "offer_after", at: due });
      return; // The trip's timer brings it back when due.
    }
    if (this.#offerOf.has(key)) return;
    const found = this.#search({ ...t, excluded: d.excluded }, s, catalogue, now);
    if (!found) return;
    const driver = found.driver;
    if (driver === null) return this.#wait(found.zone, key, t);
    this.#forget(key);
    this.#reserve(key, driver);
    // Urgent: the offer commits ahead of a burst's booking commits (issue 38: p99 under 50 ms).
    const r = await this.#deps.runtime.ask(tripActor, t.business_id, t.reference, {
      kind: "offer",
      ...offerOf(t, driver, s, now),
    }, { urgent: true });
    if (r.ok) return;
    this.#unreserve(key, driver);
    // Another instance offered that driver a trip first (spec: business 3.1: one offer at a time
    // per driver): this one waits, tried again as drivers of its zone move or are freed.
    if (r.code === "index_taken") return this.#wait(found.zone, key, t);
    // The snapshot was older than the trip (a driver excluded since): try again on the trip as
    // it is. Otherwise the trip moved on (accepted, cancelled) and its change says what follows.
    if (r.code !== "driver_excluded") return;
    const fresh = await this.#deps.runtime.read(tripActor, t.business_id, t.reference, {
      kind: "get",
    });
    if (fresh.ok && fresh.reply.phase === "booked") await this.#onTrip(fresh.reply.trip);
  }

  /**
   * Asks the trip to decide its window, or to end it once over; true when it asked (the trip's
   * change comes back here).
   */
  async #timed(t: Trip, settings?: PlatformSettings): Promise<boolean> {
    const d = t.dispatch;
    // spec: business 3.1: a trip stored before its window was decided at booking has it decided
    // now (one never offered had none, and stayed pending for good).
    if (d.window_ends_at === null) {
      const s = settings ?? (await this.#context()).settings;
      const { prep_offer_lead_minutes, schedule_offer_lead_minutes, dispatch_window_minutes } = s;
      await this.#ask(t, {
        kind: "time_dispatch",
        times: { prep_offer_lead_minutes, schedule_offer_lead_minutes, dispatch_window_minutes },
      });
      return true;
    }
    // spec: business 3.1 "pending, no driver answers: cancelled by system": offered no more once
    // the window is over. Its timer ends the trip, but one given back inside the window by code
    // that did not set the timer again has none: the trip is asked to end it (a trip taken
    // meanwhile, or whose timer ended it first, is left as it is).
    if (this.#deps.clock.now() < d.window_ends_at) return false;
    await this.#ask(t, { kind: "window_ended", window_ends_at: d.window_ends_at });
    return true;
  }

  /** Keeps the trip waiting for a driver of its zone, oldest first. */
  #wait(zone: string, key: string, t: Trip): void {
    const waiting = this.#waiting.get(zone) ?? new Map<string, Trip>();
    this.#waiting.set(zone, waiting.set(key, t));
  }

  async #ask(
    t: Trip,
    c: Extract<DispatchCommand, { kind: "offer_after" | "window_ended" | "time_dispatch" }>,
  ): Promise<void> {
    await this.#deps.runtime.ask(tripActor, t.business_id, t.reference, c);
  }

  /**
   * A driver who may take an offer now: the oldest waiting trips of their zone that they could be
   * offered are tried. Trips their vehicle cannot carry, or that they were already asked for,
   * count for nothing: else WAITING_TRIES_MAX of them would keep a trip the driver can take
   * waiting behind them, unoffered (spec: business 3.1).
   */
  async #freed(driverId: string): Promise<void> {
    const d = this.index.driver(driverId);
    const waiting = d && this.#waiting.get(d.zone_id);
    if (!d || !waiting || waiting.size === 0 || this.#tripOf.has(driverId)) return;
    const { catalogue } = await this.#context();
    const vehicle = vehicleTypeOf(catalogue, d.vehicle_type_id);
    if (!vehicle) return;
    let tries = 0;
    for (const t of [...waiting.values()]) {
      if (this.#tripOf.has(driverId)) return;
      const resolved = vehicleTypeOf(catalogue, t.vehicle.vehicle_class.id);
      if (t.dispatch.excluded.includes(driverId) || !resolved) continue;
      if (!vehicleFits(vehicle, resolved, t)) continue;
      if (++tries > WAITING_TRIES_MAX) return;
      await this.#dispatch(t);
    }
  }
}

/** The name the business feature gives its dispatcher among the environment's reactors. */
export const DISPATCHER = "dispatcher";

/** The environment's dispatcher (started by the business feature). */
export function dispatcherOf(env: { readonly reactors: Readonly<Record<string, Reactor>> }) {
  const d = env.reactors[DISPATCHER];
  if (!(d instanceof Dispatcher)) throw new Error("the business feature is not started");
  return d;
}

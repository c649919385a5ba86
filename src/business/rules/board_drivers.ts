/**
 * Which pool drivers a business's dispatch board may show (issue 38 item 7; Business API 1.2):
 * only those holding or offered one of the business's trips in progress. Pool drivers take every
 * business's trips, and where one is while on another business's trip is not this business's to
 * see. A trip's driver and the driver its waiting offer is for; none once the trip ended. A driver
 * whose only trips of the business wait queued behind their trip under way is on the board without
 * a position (spec: business 3.1 queued): where they are belongs to that trip. A driver merely
 * offered a trip is seen only while known to carry no other business's trip: where they are then
 * is where that business's parcel is (tenant isolation), so until their holdings are told
 * (`carrying`) an offered driver is on the board without a position; nor is a position of theirs
 * observed before they last gave up a trip shown (`offeredSince`): it may be that trip's.
 */
import { locationSince, positionsSinceRelease, SEEN_ANY_TIME, type TripStart } from "./tracking.ts";
import { TRIP_STATUS_FLAGS } from "./trip_status.ts";
import { tripOfKey } from "./driver_holding.ts";

/** What of a trip names its drivers. */
export interface TripDrivers extends TripStart {
  readonly reference: string;
  readonly driver: { readonly id: string } | null;
  readonly offer?: { readonly driver_id: string } | null;
}

/** A driver a trip brings onto the board, and from when the board may see where they are. */
export interface BoardSighting {
  readonly id: string;
  /** A position observed then or later is shown; null: none (rules/tracking.ts locationSince). */
  readonly since: number | null;
  /** Merely offered the trip: seen only while carrying no other business's trip. */
  readonly offered: boolean;
}

/** What a pool driver holds (actors/business/pool_driver.ts): `<business>:<reference>` keys. */
export interface DriverHoldings {
  readonly current: string | null;
  readonly queued: string | null;
  /** When they last gave up a held trip; 0: never; null or absent: not known. */
  readonly released_at?: number | null;
}

/** Whether the driver holds a trip of a business other than `tenant` (one unreadable counts). */
export function carriesOtherTenantsTrip(d: DriverHoldings, tenant: string): boolean {
  return [d.current, d.queued].some((key) =>
    key !== null && tripOfKey(key)?.business_id !== tenant
  );
}

/**
 * From when a business the driver is merely offered a trip of may see where they are (spec:
 * business 3.1, 2.4; tenant isolation): null (not at all) while they carry another business's
 * trip or when their last release is not known; else only positions observed after they last gave
 * up a trip, which may have been another business's (at its customer's door, say).
 */
export function offeredSince(d: DriverHoldings, tenant: string): number | null {
  if (carriesOtherTenantsTrip(d, tenant)) return null;
  return positionsSinceRelease(d.released_at) ?? null;
}

/** The earlier of two sightings' times; null only when both are null. */
function earlier(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/** The drivers a trip in progress brings onto its business's board, with their sightings. */
export function boardSightings(t: TripDrivers): BoardSighting[] {
  if (TRIP_STATUS_FLAGS[t.status].final) return [];
  const out: BoardSighting[] = [];
  if (t.driver) out.push({ id: t.driver.id, since: locationSince(t), offered: false });
  // Offered the trip: their newest position, as before any acceptance, if they carry nothing
  // of another business's (BoardDrivers.since); the trip's own driver is seen as its driver.
  const asked = t.offer?.driver_id;
  if (asked && asked !== t.driver?.id) out.push({ id: asked, since: SEEN_ANY_TIME, offered: true });
  return out;
}

/** The drivers a trip in progress brings onto its business's board. */
export function boardDriverIds(t: TripDrivers): string[] {
  return boardSightings(t).map((s) => s.id);
}

/** One board's drivers, kept from the trips it hears: each driver as long as a trip names them. */
export class BoardDrivers {
  readonly #byTrip = new Map<string, readonly string[]>();
  /** Per driver on the board: each trip naming them, with its sighting. */
  readonly #sightings = new Map<string, Map<string, BoardSighting>>();
  /** Per driver: from when an offered sighting may see them (offeredSince), as last told. */
  readonly #offeredSince = new Map<string, number | null>();

  /** A trip as it is now; answers the drivers it brought onto the board and took off it. */
  trip(t: TripDrivers): { added: string[]; removed: string[] } {
    const before = this.#byTrip.get(t.reference) ?? [];
    const now = boardSightings(t);
    if (now.length === 0) this.#byTrip.delete(t.reference);
    else this.#byTrip.set(t.reference, now.map((s) => s.id));
    const added: string[] = [];
    const removed: string[] = [];
    for (const s of now) {
      const of = this.#sightings.get(s.id);
      if (of === undefined) {
        this.#sightings.set(s.id, new Map([[t.reference, s]]));
        added.push(s.id);
      } else of.set(t.reference, s);
    }
    for (const id of before) {
      const of = this.#sightings.get(id);
      if (of === undefined || now.some((s) => s.id === id)) continue;
      of.delete(t.reference);
      if (of.size > 0) continue;
      this.#sightings.delete(id);
      this.#offeredSince.delete(id);
      removed.push(id);
    }
    return { added, removed };
  }

  has(driverId: string): boolean {
    return this.#sightings.has(driverId);
  }

  /** The drivers on the board. */
  ids(): string[] {
    return [...this.#sightings.keys()];
  }

  /** The drivers the board's trip names now. */
  named(reference: string): readonly string[] {
    return this.#byTrip.get(reference) ?? [];
  }

  /** From when the driver may be seen as merely offered, as their holdings are now (offeredSince). */
  carrying(driverId: string, since: number | null): void {
    if (this.has(driverId)) this.#offeredSince.set(driverId, since);
  }

  /** The drivers on the board merely offered one of its trips. */
  offered(): string[] {
    return this.ids().filter((id) => [...this.#sightings.get(id)!.values()].some((s) => s.offered));
  }

  /** From when the board may see where the driver is: the earliest of their trips'; null: not. */
  since(driverId: string): number | null {
    // Offered only: not while they carry, or may carry, another business's trip, nor where they
    // were on the trip they last gave up; unknown until told.
    const offered = this.#offeredSince.get(driverId) ?? null;
    let since: number | null = null;
    for (const s of this.#sightings.get(driverId)?.values() ?? []) {
      if (!s.offered) since = earlier(since, s.since);
      else if (offered !== null && s.since !== null) {
        since = earlier(since, Math.max(s.since, offered));
      }
    }
    return since;
  }

  /** Whether the board may show this position of the driver, observed at `at`. */
  sees(driverId: string, at: number): boolean {
    const since = this.since(driverId);
    return since !== null && at >= since;
  }
}

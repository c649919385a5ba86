/**
 * Which pool drivers a business's dispatch board may show (issue 38 item 7; Business API 1.2):
 * only those holding or offered one of the business's trips in progress. Pool drivers take every
 * business's trips, and where one is while on another business's trip is not this business's to
 * see. A trip's driver and the driver its waiting offer is for; none once the trip ended.
 */
import { TRIP_STATUS_FLAGS, type TripStatus } from "./trip_status.ts";

/** What of a trip names its drivers. */
export interface TripDrivers {
  readonly reference: string;
  readonly status: TripStatus;
  readonly driver: { readonly id: string } | null;
  readonly offer?: { readonly driver_id: string } | null;
}

/** The drivers a trip in progress brings onto its business's board. */
export function boardDriverIds(t: TripDrivers): string[] {
  if (TRIP_STATUS_FLAGS[t.status].final) return [];
  const ids = [t.driver?.id, t.offer?.driver_id].filter((id): id is string => !!id);
  return [...new Set(ids)];
}

/** One board's drivers, kept from the trips it hears: each driver as long as a trip names them. */
export class BoardDrivers {
  readonly #byTrip = new Map<string, readonly string[]>();
  readonly #trips = new Map<string, number>();

  /** A trip as it is now; answers the drivers it brought onto the board and took off it. */
  trip(t: TripDrivers): { added: string[]; removed: string[] } {
    const before = this.#byTrip.get(t.reference) ?? [];
    const now = boardDriverIds(t);
    if (now.length === 0) this.#byTrip.delete(t.reference);
    else this.#byTrip.set(t.reference, now);
    const added: string[] = [];
    const removed: string[] = [];
    for (const id of now) {
      if (before.includes(id)) continue;
      const n = this.#trips.get(id) ?? 0;
      this.#trips.set(id, n + 1);
      if (n === 0) added.push(id);
    }
    for (const id of before) {
      if (now.includes(id)) continue;
      const n = (this.#trips.get(id) ?? 1) - 1;
      if (n > 0) this.#trips.set(id, n);
      else {
        this.#trips.delete(id);
        removed.push(id);
      }
    }
    return { added, removed };
  }

  has(driverId: string): boolean {
    return this.#trips.has(driverId);
  }
}

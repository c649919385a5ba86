/**
 * The business's address book (Business API 4.1 geocode: its own saved addresses) kept from the
 * trips it books: each trip's places remembered once its creation commits, off the booking's
 * request path, so a booking neither waits for the book nor fails on it; a failure is retried and
 * deferred as any reactor's. Remembering a place again only moves it to the front.
 */
import { addressBookActor } from "../../../actors/business/address_book.ts";
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";

export class AddressBookKeeper {
  readonly #trips: UnitReactor<Trip>;

  constructor(deps: Pick<Deps, "runtime">, options: ReactorOptions) {
    this.#trips = new UnitReactor<Trip>(options, {
      worker: "address_book",
      actorType: tripActor.type,
      unitsOf: createdTrip,
      work: async (trip, change) =>
        orRefuse(
          await deps.runtime.ask(addressBookActor, change.tenant, change.tenant, {
            kind: "remember",
            places: [trip.pickup, ...trip.stops, trip.dest],
          }),
        ),
      describe: (trip) => `address book of ${trip.reference}`,
    });
  }

  async close(): Promise<void> {
    await this.#trips.close();
  }
}

function createdTrip(change: ActorChange): readonly Trip[] {
  const trip = change.snapshot as Trip | null | undefined;
  if (!trip) return [];
  const created = change.events.some((e) =>
    (e.event as { kind?: unknown }).kind === "trip_created"
  );
  return created ? [trip] : [];
}

/**
 * A business's saved addresses (Business API 4.1 POST /business/geocode; 2.1 bookings without
 * coordinates): the places its bookings named with coordinates, newest first, at most
 * ADDRESS_BOOK_PLACES_MAX (the least recently used goes). Tenant = id = the business. Geocoding
 * prefers them to the gazetteer: the business's own address is where its drivers went.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";
import { normalize, type SavedPlace } from "../../src/business/rules/geocode.ts";

/** Places kept per business: addresses of up to 300 characters stay within one store value. */
export const ADDRESS_BOOK_PLACES_MAX = 100;

export interface AddressBook {
  /** Most recently used first. */
  readonly places: readonly SavedPlace[];
}

export type AddressBookCommand =
  | { kind: "remember"; places: readonly SavedPlace[] }
  | { kind: "get" };

/** The book after a change, whole: the state is the list, so the log keeps none. */
export type AddressBookEvent = { kind: "address_book_saved"; places: readonly SavedPlace[] };

/** The places first, then the book's others not named again (same address in any case). */
export function rememberedFirst(
  book: readonly SavedPlace[],
  places: readonly SavedPlace[],
): SavedPlace[] {
  const seen = new Set<string>();
  const out: SavedPlace[] = [];
  for (const p of [...places, ...book]) {
    const key = normalize(p.address);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    out.push({ address: p.address, lat: p.lat, lng: p.lng });
  }
  return out.slice(0, ADDRESS_BOOK_PLACES_MAX);
}

/**
 * True when remembering `places` leaves the book as it is: they are its first places already, in
 * their order, with the same address text and coordinates (the book holds no two places with one
 * address, so the rest would follow unchanged).
 */
export function leadAlready(book: readonly SavedPlace[], places: readonly SavedPlace[]): boolean {
  const seen = new Set<string>();
  let i = 0;
  for (const p of places) {
    const key = normalize(p.address);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    const b = book[i++];
    if (!b || b.address !== p.address || b.lat !== p.lat || b.lng !== p.lng) return false;
  }
  return true;
}

export const addressBookActor: ActorDefinition<
  AddressBook,
  AddressBookCommand,
  AddressBookEvent,
  AddressBook
> = {
  type: "business_address_book",
  noun: "address book",
  version: 1,
  initial: { places: [] },
  decide(state, command) {
    switch (command.kind) {
      case "remember": {
        // A business books from the same places again and again: a book they already lead is
        // not written again (nor are its 100 addresses normalised again, 40 µs a booking).
        if (leadAlready(state.places, command.places)) return accept([], (s) => s);
        const places = rememberedFirst(state.places, command.places);
        return accept([{ kind: "address_book_saved", places }], (s) => s);
      }
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve: (_s, e) => ({ places: e.places }),
  logEvents: false,
  publishEvents: false,
};

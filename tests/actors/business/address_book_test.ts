/** The business's address book: places remembered newest first, and an unchanged book not written. */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  addressBookActor,
  leadAlready,
  rememberedFirst,
} from "../../../actors/business/address_book.ts";
import type { SavedPlace } from "../../../src/business/rules/geocode.ts";

const ctx = { now: Date.parse("2026-11-02T08:00:00Z"), newId: (p: string) => `${p}_1` };
const mall = { address: "Main Mall, Gaborone", lat: -24.6545, lng: 25.9086 };
const plot = { address: "Plot 9, Block 8", lat: -24.6019, lng: 25.935 };
const airport = { address: "Airport Road", lat: -24.55, lng: 25.92 };

function remember(places: readonly SavedPlace[], book: readonly SavedPlace[]) {
  const d = addressBookActor.decide({ places: book }, { kind: "remember", places }, ctx);
  assert.ok(d.ok);
  return d.events;
}

Deno.test("address book: places that lead the book already write nothing; any move writes it", () => {
  const book = rememberedFirst([], [mall, plot, airport]);
  assert.deepEqual(remember([mall, plot], book), []);
  assert.deepEqual(remember([mall, { ...mall, address: "main mall, gaborone" }, plot], book), []);
  // Another order, other coordinates, the address written otherwise: the book changes.
  for (
    const places of [[plot, mall], [{ ...mall, lat: -24.65 }], [{
      ...mall,
      address: "MAIN MALL, Gaborone",
    }]]
  ) {
    const events = remember(places, book);
    assert.equal(events.length, 1, JSON.stringify(places));
    assert.deepEqual(events[0]?.places, rememberedFirst(book, places));
  }
});

const place = fc.record({
  address: fc.constantFrom("Main Mall", "main mall", "Plot 9", "plot  9", "Airport", "", "Ring Rd"),
  lat: fc.constantFrom(-24.6, -24.7),
  lng: fc.constantFrom(25.9, 25.8),
});

Deno.test("address book: when places lead the book already, remembering them leaves it as it is", () => {
  fc.assert(
    fc.property(fc.array(place, { maxLength: 8 }), fc.array(place, { maxLength: 4 }), (a, p) => {
      const book = rememberedFirst([], a);
      if (leadAlready(book, p)) assert.deepEqual(rememberedFirst(book, p), book);
      // Remembered once, they lead it.
      assert.ok(leadAlready(rememberedFirst(book, p), p));
    }),
  );
});

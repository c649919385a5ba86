/**
 * The charged entry (courier 2.6 rule 5, 4.6): its pure rules. A note is reserved against the
 * entry's net with every note booked and reserved on it, confirmed by its account's posting,
 * released on a refusal, and handed to the outbox when its timer finds it still held.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  chargedEntryActor,
  type ChargedEntryCommand,
  chargedEntryId,
  chargedEntryOf,
  type EntryFacts,
  heldEntry,
  lapseTimer,
  NOTE_LAPSE_OUTBOX,
  type Reserved,
} from "../../../actors/courier/charged_entry/mod.ts";
import { NOTE_RESERVATION_LAPSE_MS, NOTE_RESERVATIONS_MAX } from "../../../src/limits.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-10-12T09:00:00Z");

const FACTS: EntryFacts = {
  kind: "waiting",
  seq: 1,
  amount_minor: 5_000,
  currency: "BWP",
  status: "posted",
  recoverable: false,
  shipment: "WB1",
};

function entry(facts: Partial<EntryFacts> = {}) {
  const h = new ActorHarness(chargedEntryActor, { now: T0 });
  h.must({ kind: "book", client: "cli_1", reference: "W-1", entry: { ...FACTS, ...facts } });
  return h;
}

function reserve(key: string, amount_minor: number, more: Partial<ChargedEntryCommand> = {}) {
  return {
    kind: "reserve" as const,
    key,
    entry_kind: "waiting" as const,
    currency: "BWP",
    amount_minor,
    reason: "refund",
    other_adjustments: 0,
    ...more,
  } as ChargedEntryCommand;
}

function net(h: ReturnType<typeof entry>): number {
  const e = h.state!.entries[0]!;
  return e.amount_minor + e.notes_minor + e.reservations.reduce((s, r) => s + r.note_minor, 0);
}

Deno.test("charged entry: a note reserved, then confirmed by its posting, counts once; its timer is cancelled", () => {
  const h = entry();
  const r = h.must(reserve("entry:note:CN-1", -4_000));
  const reserved = r.reply as Reserved;
  assert.equal(reserved.original.net_minor, 5_000, "judged against the net before it");
  assert.deepEqual(reserved.reservation, { key: "entry:note:CN-1", at: T0 });
  assert.deepEqual(r.timers.map((t) => t.op === "set" ? [t.name, t.at] : []), [
    [lapseTimer("entry:note:CN-1"), T0 + NOTE_RESERVATION_LAPSE_MS],
  ]);
  assert.equal(net(h), 1_000);
  const confirmed = h.must({
    kind: "count_note",
    client: "cli_1",
    reference: "W-1",
    corrects_kind: "waiting",
    seq: 2,
    amount_minor: -4_000,
    key: "entry:note:CN-1",
  });
  assert.deepEqual(confirmed.timers, [{ op: "cancel", name: lapseTimer("entry:note:CN-1") }]);
  assert.deepEqual(h.state!.entries[0]!.reservations, []);
  assert.equal(h.state!.entries[0]!.notes_minor, -4_000);
  assert.equal(net(h), 1_000);
  assert.deepEqual(h.replayed(), h.state, "events state outcomes: a replay holds the same");
});

Deno.test("charged entry: a credit past the net is refused in the account's words; a released reservation frees its amount", () => {
  const h = entry();
  h.must(reserve("k1", -3_000));
  h.refused(
    reserve("k2", -2_500),
    "correction_exceeds_entry",
    "amount: a credit note cannot take the entry below zero: net 20.00, note -25.00 BWP",
  );
  h.refused(reserve("k3", 0), "invalid_amount");
  h.refused(reserve("k3", -1, { reason: " " }), "reason_required");
  h.refused(reserve("k3", 1, { compensation: true }), "invalid_amount");
  h.refused(reserve("k3", -1, { other_adjustments: 100 }), "adjustments_limit");
  const held = h.state!.entries[0]!.reservations[0]!;
  // A release of another reservation under the key (renewed since) lets nothing go.
  assert.deepEqual(h.must({ kind: "release", entry_kind: "waiting", key: "k1", at: 1 }).events, []);
  h.must({ kind: "release", entry_kind: "waiting", key: "k1", at: held.at });
  assert.equal(net(h), 5_000);
  h.must(reserve("k2", -2_500));
});

Deno.test("charged entry: a claim's credit takes the entry to zero and reserves only that; the rest is compensation", () => {
  const h = entry();
  const r = h.must(reserve("claim", -9_000, { compensation: true }));
  assert.equal(h.state!.entries[0]!.reservations[0]!.note_minor, -5_000);
  assert.equal((r.reply as Reserved).original.net_minor, 5_000);
  const again = h.must(reserve("claim2", -100, { compensation: true }));
  assert.equal(h.state!.entries[0]!.reservations[1]!.note_minor, 0, "nothing left to credit");
  assert.equal((again.reply as Reserved).original.net_minor, 0);
});

Deno.test("charged entry: a credit is judged without a debit still being booked, which may be let go", () => {
  const h = entry();
  h.must(reserve("debit", 2_000));
  // spec: courier 2.6 rule 5: the debit may never be posted (its account refuses it, or its
  // request dies and the lapse lets it go): a credit counting on it would leave the entry below
  // zero once it is released.
  h.refused(
    reserve("credit", -6_000),
    "correction_exceeds_entry",
    "amount: a credit note cannot take the entry below zero: net 50.00, note -60.00 BWP",
  );
  const credit = h.must(reserve("credit", -5_000));
  assert.equal((credit.reply as Reserved).original.net_minor, 5_000);
  const held = h.state!.entries[0]!.reservations[0]!;
  h.must({ kind: "release", entry_kind: "waiting", key: "debit", at: held.at });
  assert.equal(net(h), 0, "never below zero");
});

Deno.test("charged entry: the same key reserved again answers its reservation; money received and unresolved entries are no target", () => {
  const h = entry();
  const first = h.must(reserve("k1", -1_000));
  h.now += 1_000;
  const again = h.must(reserve("k1", -1_000));
  assert.deepEqual(again.events, [], "held: nothing new");
  assert.deepEqual((again.reply as Reserved).reservation, (first.reply as Reserved).reservation);
  assert.equal(net(h), 4_000);
  const paid = new ActorHarness(chargedEntryActor, { now: T0 });
  paid.must({
    kind: "book",
    client: "cli_1",
    reference: "P-1",
    entry: { ...FACTS, kind: "payment", amount_minor: -100, shipment: null },
  });
  paid.refused(
    reserve("k", -1, { entry_kind: "payment" }),
    "not_correctable",
    "a payment entry is not corrected by a note: P-1",
  );
  entry({ status: "unresolved_fx" }).refused(reserve("k", -1), "fx_unresolved");
  entry().refused(reserve("k", -1, { entry_kind: "duties" }), "not_found");
});

Deno.test("charged entry: concurrent reservations are judged one at a time: never past the net", () => {
  fc.assert(fc.property(
    fc.array(fc.integer({ min: -3_000, max: 2_000 }).filter((n) => n !== 0), { maxLength: 30 }),
    (amounts) => {
      const h = entry();
      let expected = 5_000;
      // The net were every debit being booked let go: a credit is judged against it.
      let credited = 5_000;
      amounts.forEach((amount, i) => {
        const r = h.send(reserve(`k${i}`, amount));
        const fits = (amount > 0 || credited + amount >= 0) &&
          h.state!.entries[0]!.reservations.length < NOTE_RESERVATIONS_MAX;
        assert.equal(!("ok" in r), fits, `note ${i} of ${amount} on ${credited}`);
        if (fits) expected += amount;
        if (fits && amount < 0) credited += amount;
        assert.ok(credited >= 0);
      });
      assert.equal(net(h), expected);
    },
  ));
});

Deno.test("charged entry: its timer hands a reservation still held to the outbox; one confirmed or renewed is left", () => {
  const h = entry();
  h.must(reserve("k1", -1_000));
  h.now = T0 + NOTE_RESERVATION_LAPSE_MS;
  const fired = h.fire(lapseTimer("k1"), { entry_kind: "waiting", key: "k1", at: T0 });
  assert.deepEqual(kinds(fired.events), ["reservation_lapsed"]);
  assert.deepEqual(chargedEntryActor.outbox!(fired.events[0]!, h.state), [{
    outbox: NOTE_LAPSE_OUTBOX,
    payload: { client: "cli_1", reference: "W-1", entry_kind: "waiting", key: "k1", at: T0 },
  }]);
  assert.equal(net(h), 4_000, "held until its account says whether it was posted");
  // Renewed by its request: the old timer's payload names another reservation.
  h.must(reserve("k1", -1_000));
  const stale = h.fire(lapseTimer("k1"), { entry_kind: "waiting", key: "k1", at: T0 });
  assert.deepEqual(stale.events, []);
});

Deno.test("charged entry: a note the account's log already held is not counted twice; entries filled from the log and a second kind are held", () => {
  const h = entry();
  h.must({
    kind: "fill",
    client: "cli_1",
    reference: "W-1",
    entries: [{ ...heldEntry({ ...FACTS, kind: "duties" }), counted_through: 7 }],
  });
  h.state = { ...h.state!, entries: h.state!.entries.map((e) => ({ ...e, counted_through: 7 })) };
  const note = {
    kind: "count_note" as const,
    client: "cli_1",
    reference: "W-1",
    corrects_kind: "waiting" as const,
    amount_minor: -100,
  };
  assert.deepEqual(h.must({ ...note, seq: 7 }).events, []);
  h.must({ ...note, seq: 8 });
  assert.equal(h.state!.entries.find((e) => e.kind === "waiting")!.notes, 1);
  h.must({
    kind: "book",
    client: "cli_1",
    reference: "W-1",
    entry: { ...FACTS, kind: "redelivery", seq: 9 },
  });
  assert.deepEqual(h.state!.entries.map((e) => e.kind), ["duties", "redelivery", "waiting"]);
  // Filled again from the log (the pass run twice, or after the feed): what is held stands.
  const again = h.must({
    kind: "fill",
    client: "cli_1",
    reference: "W-1",
    entries: [heldEntry(FACTS)],
  });
  assert.deepEqual(again.events, []);
  // Told again (an outbox item handled twice): nothing new.
  assert.deepEqual(
    h.must({ kind: "book", client: "cli_1", reference: "W-1", entry: FACTS }).events,
    [],
  );
  assert.deepEqual(chargedEntryOf(chargedEntryId("cli_1", "a:b")), {
    client: "cli_1",
    reference: "a:b",
  });
});

/** Debit and credit notes (courier 2.6 rule 5): each points at the original entry. */
import { type Ctx, reject, type Rejection } from "../../../src/runtime/actor.ts";
import {
  chargeEffect,
  entryOf,
  type EntryStatus,
  type LedgerBook,
  NO_EFFECT,
  NO_NOTES_IN_FLIGHT,
  NOTES_IN_FLIGHT_MAX,
  type NotesInFlight,
  notesInFlightFor,
  notesInFlightOn,
  notesSeen,
  REFERENCE_CHARS_MAX,
} from "../../../src/courier/rules/ledger.ts";
import {
  adjustmentsRefusal,
  compensationRefusal,
  fxUnresolved,
  NOT_CORRECTABLE,
  noteRefusal,
  noteSplit,
} from "../../../src/courier/rules/ledger/note_checks.ts";
import { NOTE_POST_WITHIN_MS } from "../../../src/limits.ts";
import type { CourierClient } from "../courier_client/state.ts";
import type { LedgerCommand, LedgerEvent, OriginalEntry } from "./messages.ts";
import { badText, type LedgerDecision, posted, statusFor } from "./decisions.ts";

type Correct = Extract<LedgerCommand, { kind: "correct" }>;

export { NOT_CORRECTABLE };

/** spec: courier 2.6 rule 5: a debit or credit note pointing at the original entry. */
export function correct(state: CourierClient, c: Correct, ctx: Ctx): LedgerDecision {
  const o = c.original;
  const refused = noteRefusal(o, c) ?? unresolvedRefusal(state, o);
  if (refused) return refused;
  const notes = c.reservation === undefined ? notesKnown(state, c) : reservationHeld(c, ctx);
  if ("ok" in notes) return notes;
  const crowded = compensationRefusal(c) ?? adjustmentsRefusal(
    o.shipment,
    (o.shipment_adjustments ?? 0) + (o.shipment === null ? 0 : notesInFlightFor(notes, o.shipment)),
  );
  if (crowded) return crowded;
  const net = o.net_minor + notesInFlightOn(notes, o.kind, o.reference);
  // spec: courier 2.4 (liability cover on the declared value), 2.6 rule 5: a claim's approved
  // amount is credited in full: a note up to what the entry still holds, the rest compensation.
  const split = noteSplit({ ...o, net_minor: net }, c);
  if ("ok" in split) return split;
  const reference = c.reference ?? ctx.newId(c.amount_minor > 0 ? "dn" : "cn");
  if (badText(reference, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  const events: Posted[] = [];
  const seq = () => state.ledger.seq + events.length + 1;
  if (split.note_minor !== 0) {
    events.push(noteEvent(state, c, { reference, seq: seq(), amount: split.note_minor }, ctx));
  }
  if (split.above_minor !== 0) {
    events.push(
      compensationEvent(state, c, { reference, seq: seq(), amount: split.above_minor }, ctx),
    );
  }
  return posted(events, events[0]!.entry, []);
}

/** The note itself: `amount` on the original, in its currency, whatever the account bills in. */
function noteEvent(state: CourierClient, c: Correct, at: EntryAt, ctx: Ctx): Posted {
  const { reference, seq, amount } = at;
  const o = c.original;
  const kind = amount > 0 ? "debit_note" : "credit_note";
  // spec: courier 2.6 rule 5, 4.2: the note is in the currency of the entry it corrects, whatever
  // the account bills in now; it counts in that currency's balances and invoice (evolveLedger).
  return postedEntry(state, o.status, {
    reference,
    seq,
    kind,
    amount_minor: amount,
    currency: o.currency,
    recoverable: o.recoverable,
    reason: c.reason,
    evidence_path: c.evidence_path ?? null,
    source_event: `${kind}.issued:${reference}`,
    corrects: o.reference,
    corrects_kind: o.kind,
    shipment: o.shipment,
    created_at: ctx.now,
  }, c);
}

/**
 * A claim's compensation above the booked price (courier 2.4): an entry of its own, on the
 * shipment but correcting nothing, so no note's bound counts it; never recoverable (no duties).
 */
function compensationEvent(state: CourierClient, c: Correct, at: EntryAt, ctx: Ctx): Posted {
  const { reference, seq, amount } = at;
  const o = c.original;
  return postedEntry(state, o.status, {
    reference,
    seq,
    kind: "compensation",
    amount_minor: amount,
    currency: o.currency,
    reason: c.reason,
    evidence_path: c.evidence_path ?? null,
    source_event: `compensation.issued:${reference}`,
    shipment: o.shipment,
    created_at: ctx.now,
  }, c);
}

type Posted = Extract<LedgerEvent, { kind: "entry_posted" }>;

/** Where an entry of a correction goes: its reference, its seq and its signed amount. */
interface EntryAt {
  readonly reference: string;
  readonly seq: number;
  readonly amount: number;
}

/** An entry as the account posts it: external when its original is, else by settlement mode. */
function postedEntry(
  state: CourierClient,
  originalStatus: EntryStatus,
  fields: Omit<Parameters<typeof entryOf>[0], "status">,
  c: Correct,
): Posted {
  const mode = state.settings.settlement_mode;
  const status: EntryStatus = originalStatus === "external" ? "external" : statusFor(mode);
  const entry = entryOf({ ...fields, status });
  const isPosted = status === "posted";
  return {
    kind: "entry_posted",
    entry,
    effect: isPosted ? chargeEffect(mode, entry.amount_minor, entry.recoverable) : NO_EFFECT,
    invoiceable: isPosted && mode === "credit",
    by: c.by,
    // A reserved note is judged on its charged entry, not on the statement: no watermark is kept.
    ...(c.reservation === undefined
      ? { seen_seq: c.seen_seq }
      : { reservation: c.reservation.key }),
  };
}

/** A charge the account still holds awaiting its rate (courier 2.6 rule 3). */
function unresolvedRefusal(state: CourierClient, o: OriginalEntry): Rejection | null {
  return state.ledger.unresolved.some((u) => u.reference === o.reference)
    ? fxUnresolved(o.reference)
    : null;
}

/**
 * The notes on the account the statement may not hold yet, as of the read the note was judged
 * on; a refusal when the account has seen the statement further than that read, or too many wait.
 */
function notesKnown(state: CourierClient, c: Correct): NotesInFlight | Rejection {
  const o = c.original;
  // Postgres lags the account: the notes it may not hold yet are counted from state, so notes
  // sent together are judged against each other (spec: courier 2.6 rule 5).
  const known = state.ledger.notes ?? NO_NOTES_IN_FLIGHT;
  if (c.seen_seq < known.seen_seq) {
    return reject(
      "ledger_catching_up",
      `the entry was read before notes the account has since seen in the statement; read it ` +
        `again: ${o.reference} (read at ${c.seen_seq}, seen ${known.seen_seq})`,
    );
  }
  const notes = notesSeen(known, c.seen_seq);
  if (notes.pending.length >= NOTES_IN_FLIGHT_MAX) {
    return reject(
      "ledger_catching_up",
      `${notes.pending.length} notes await the statement; retry once it has caught up`,
    );
  }
  return notes;
}

/**
 * A note reserved on its charged entry (actors/courier/charged_entry/): the entry's net came from
 * there, exact, with every note booked or being booked on it, so no note in flight is added. A
 * reservation past NOTE_POST_WITHIN_MS may have lapsed and been released: reserve it again.
 */
function reservationHeld(c: Correct, ctx: Ctx): NotesInFlight | Rejection {
  const at = c.reservation!.at;
  if (ctx.now > at + NOTE_POST_WITHIN_MS) {
    return reject(
      "ledger_catching_up",
      `the note's reservation on ${c.original.reference} lapsed before its posting; send it again`,
    );
  }
  return NO_NOTES_IN_FLIGHT;
}

/** A note judged against Postgres' watermark waits in state until Postgres is seen holding it. */
export function withNoteInFlight(
  book: LedgerBook,
  event: Extract<LedgerEvent, { kind: "entry_posted" }>,
): LedgerBook {
  const e = event.entry;
  if (event.seen_seq === undefined || e.corrects === null || !e.corrects_kind) return book;
  const notes = notesSeen(book.notes ?? NO_NOTES_IN_FLIGHT, event.seen_seq);
  const note = {
    corrects: e.corrects,
    corrects_kind: e.corrects_kind,
    seq: e.seq,
    amount_minor: e.amount_minor,
    shipment: e.shipment,
  };
  return { ...book, notes: { ...notes, pending: [...notes.pending, note] } };
}

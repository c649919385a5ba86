/**
 * Notes in flight (courier 2.6 rule 5): a credit note may not take its entry below zero. A note
 * is judged on its charged entry (actors/courier/charged_entry/) before its account posts it; a
 * note sent without that reservation (by an instance older than it, during a rolling deploy)
 * carries its entry as read from Postgres, which lags the account. For those the account keeps
 * the notes Postgres may not hold yet, and judges each note against those too, one command at a
 * time: two notes sent together are judged against each other.
 */
import type { EntryKind } from "./entries.ts";

/** A debit or credit note, kept until the query side is seen holding it. */
export interface NoteInFlight {
  readonly corrects: string;
  readonly corrects_kind: EntryKind;
  readonly seq: number;
  readonly amount_minor: number;
  /** The waybill of the entry it corrects (absent on notes kept before it was). */
  readonly shipment?: string | null;
}

export interface NotesInFlight {
  /** Postgres was seen holding every entry of the account up to this seq. */
  readonly seen_seq: number;
  /** The notes after `seen_seq`, oldest first. */
  readonly pending: readonly NoteInFlight[];
}

export const NO_NOTES_IN_FLIGHT: NotesInFlight = { seen_seq: 0, pending: [] };

/** The notes once Postgres was seen holding every entry up to `seenSeq`: older ones are there. */
export function notesSeen(notes: NotesInFlight, seenSeq: number): NotesInFlight {
  if (seenSeq <= notes.seen_seq) return notes;
  return { seen_seq: seenSeq, pending: notes.pending.filter((n) => n.seq > seenSeq) };
}

/** What the notes in flight add to the entry of `kind` and `reference`. */
export function notesInFlightOn(notes: NotesInFlight, kind: EntryKind, reference: string): number {
  let sum = 0;
  for (const n of notes.pending) {
    if (n.corrects === reference && n.corrects_kind === kind) sum += n.amount_minor;
  }
  return sum;
}

/** How many notes in flight may be on entries of `shipment` (a note kept without one may be). */
export function notesInFlightFor(notes: NotesInFlight, shipment: string): number {
  return notes.pending.filter((n) => n.shipment === undefined || n.shipment === shipment).length;
}

/**
 * What a charged entry holds, takes and tells (courier 2.6 rule 5, 4.2 `correct`, 4.6): the
 * entries of one client holding one reference (a reference is unique within its kind only), each
 * with what a debit or credit note on it is judged against, and the notes being booked on it.
 */
import type { EntryKind, EntryStatus } from "../../../src/courier/rules/ledger.ts";
import type { NoteReservation, OriginalEntry } from "../client_ledger/messages.ts";

/** An entry as its account booked it: the facts a note on it is judged by. */
export interface EntryFacts {
  readonly kind: EntryKind;
  /** The account's seq of the entry (a conversion resolved later has a newer one). */
  readonly seq: number;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly recoverable: boolean;
  readonly shipment: string | null;
}

/** A note held on the entry until its account posts it (or it is released). */
export interface Reservation extends NoteReservation {
  /** What it takes of the entry's net: a claim's compensation above the price takes none. */
  readonly note_minor: number;
}

export interface HeldEntry extends EntryFacts {
  /** The sum of the notes booked on it, and how many there are. */
  readonly notes_minor: number;
  readonly notes: number;
  /**
   * The notes on it up to this account seq were counted from the account's log (an entry booked
   * before accounts told their charged entries, filled there); a later one is told. 0: none.
   */
  readonly counted_through: number;
  /** Notes reserved and not yet confirmed, oldest first (at most NOTE_RESERVATIONS_MAX). */
  readonly reservations: readonly Reservation[];
}

export interface ChargedEntry {
  readonly client: string;
  readonly reference: string;
  readonly entries: readonly HeldEntry[];
}

export type ChargedEntryState = ChargedEntry | null;

/** A note as the charged entry judges it, in the entry's currency's minor units. */
export interface NoteToReserve {
  /** The note's idempotency key at the account. */
  readonly key: string;
  readonly entry_kind: EntryKind;
  /** The currency the amount was read in: the entry's, unless its conversion resolved since. */
  readonly currency: string;
  readonly amount_minor: number;
  readonly reason: string;
  readonly compensation?: boolean | undefined;
  /**
   * The adjustments of the entry's shipment other than the notes on this entry (courier 2.7):
   * later charges and the notes on its other entries, as the statement holds them.
   */
  readonly other_adjustments: number;
}

export type ChargedEntryCommand =
  | { kind: "book"; client: string; reference: string; entry: EntryFacts }
  | {
    kind: "count_note";
    client: string;
    reference: string;
    /** The kind of the entry it corrects (absent on notes made before notes named it). */
    corrects_kind: EntryKind | null;
    seq: number;
    amount_minor: number;
    /** The reservation its posting confirms, if it was reserved. */
    key?: string | undefined;
  }
  /** Entries read from the account's log: those of kinds not held yet are taken as read. */
  | { kind: "fill"; client: string; reference: string; entries: readonly HeldEntry[] }
  | ({ kind: "reserve" } & NoteToReserve)
  | { kind: "release"; entry_kind: EntryKind; key: string; at: number }
  | { kind: "get" };

export type ChargedEntryEvent =
  | { kind: "entry_booked"; client: string; reference: string; entry: EntryFacts }
  | { kind: "entries_filled"; client: string; reference: string; entries: readonly HeldEntry[] }
  | { kind: "note_counted"; entry_kind: EntryKind; seq: number; amount_minor: number; key?: string }
  | { kind: "note_reserved"; entry_kind: EntryKind; reservation: Reservation }
  | { kind: "reservation_released"; entry_kind: EntryKind; key: string }
  /** Its request posted it in time or never will: the outbox item resolves it (reactor). */
  | { kind: "reservation_lapsed"; entry_kind: EntryKind; key: string; at: number };

/** A reservation made: the entry as it was judged, and the reservation to post the note under. */
export interface Reserved {
  readonly original: OriginalEntry;
  readonly reservation: NoteReservation;
}

/** A fill's reply: how many entries it took (none: every one was held already). */
export interface Filled {
  readonly filled: number;
}

export type ChargedEntryReply = ChargedEntry | Reserved | Filled | null;

/** The timer that resolves the reservation `key` once its request can no longer post it. */
export interface LapsePayload {
  readonly entry_kind: EntryKind;
  readonly key: string;
  readonly at: number;
}

/** The outbox of lapsed reservations: resolved by asking the account (reactors/charged_entries). */
export const NOTE_LAPSE_OUTBOX = "note_lapse";

export interface LapseItem extends LapsePayload {
  readonly client: string;
  readonly reference: string;
}

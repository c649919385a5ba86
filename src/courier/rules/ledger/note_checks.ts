/**
 * What a debit or credit note is judged against (courier 2.6 rule 5, 4.2 `correct`), in the order
 * its refusals take precedence: the note itself, the entry it points at, the adjustments of the
 * entry's shipment (2.7), then the entry's net. Pure: the charged entry that reserves a note and
 * the client account that books it make the same checks, so either refuses in the same words.
 */
import { reject, type Rejection } from "../../../runtime/actor.ts";
import { formatMinor } from "../../../domain/money.ts";
import { COMPLETION_ADJUSTMENTS_MAX, NOTE_ADJUSTMENTS_MAX } from "../../../limits.ts";
import { type CompensationSplit, compensationSplit } from "./compensation.ts";
import type { EntryKind, EntryStatus } from "./entries.ts";
import { TEXT_CHARS_MAX } from "./limits.ts";

/**
 * Money received is never corrected by a note; nor is a note: a note points at the original entry
 * (spec: courier 2.6 rule 5), whose net with all its notes a credit note never takes below zero.
 */
export const NOT_CORRECTABLE: readonly EntryKind[] = [
  "top_up",
  "payment",
  "cod_remitted",
  "debit_note",
  "credit_note",
  "compensation",
];

/** The entry a note points at, as far as the checks read it. */
export interface NoteTargetFacts {
  readonly reference: string;
  readonly kind: EntryKind;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly shipment: string | null;
  /** The original amount plus every note already on it (and every note being booked on it). */
  readonly net_minor: number;
}

/** The note as sent: its signed amount, its reason, and whether it pays a claim (4.6). */
export interface NoteAsked {
  readonly amount_minor: number;
  readonly reason: string;
  readonly compensation?: boolean | undefined;
}

/** What no note may be: zero, without a reason, on money received or a note, before its rate. */
export function noteRefusal(o: NoteTargetFacts, note: NoteAsked): Rejection | null {
  if (!Number.isSafeInteger(note.amount_minor) || note.amount_minor === 0) {
    return reject("invalid_amount", "a correction is a non-zero amount");
  }
  if (note.reason.trim().length === 0 || note.reason.length > TEXT_CHARS_MAX) {
    return reject("reason_required", "a note needs a reason");
  }
  if (NOT_CORRECTABLE.includes(o.kind)) {
    const hint = o.kind === "debit_note" || o.kind === "credit_note" || o.kind === "compensation"
      ? "; correct the entry it points at"
      : "";
    return reject(
      "not_correctable",
      `a ${o.kind} entry is not corrected by a note${hint}: ${o.reference}`,
    );
  }
  if (o.status === "unresolved_fx") return fxUnresolved(o.reference);
  return null;
}

/** spec: courier 2.6 rule 3: a charge awaiting its rate is corrected once it has one. */
export function fxUnresolved(reference: string): Rejection {
  return reject("fx_unresolved", `resolve the FX rate of the entry first: ${reference}`);
}

/** spec: courier 2.7: notes on a shipment stop short of what its completion event lists. */
export function adjustmentsRefusal(shipment: string | null, adjustments: number): Rejection | null {
  // spec: courier 2.7: a shipment's completion event lists every adjustment, up to a bound the
  // charges its work books must never meet: notes stop halfway (NOTE_ADJUSTMENTS_MAX).
  if (shipment === null || adjustments < NOTE_ADJUSTMENTS_MAX) return null;
  return reject(
    "adjustments_limit",
    `shipment ${shipment} has ${adjustments} adjustments; a note joins fewer than ` +
      `${NOTE_ADJUSTMENTS_MAX} (its completion event lists every one, at most ` +
      `${COMPLETION_ADJUSTMENTS_MAX}, charges from its work included)`,
  );
}

/** A claim's credit is a credit (courier 2.4, 4.6): never a debit. */
export function compensationRefusal(note: NoteAsked): Rejection | null {
  if (note.compensation === true && note.amount_minor > 0) {
    return reject("invalid_amount", "compensation is a credit note: a negative amount");
  }
  return null;
}

/**
 * How the note divides on an entry whose net is `net_minor`: all of it on the entry, or for a
 * claim a credit note up to what the entry holds and the rest compensation (courier 2.4); refused
 * when a credit note would take the entry below zero (2.6 rule 5).
 */
export function noteSplit(
  o: NoteTargetFacts,
  note: NoteAsked,
): CompensationSplit | Rejection {
  const net = o.net_minor;
  const split = note.compensation === true
    ? compensationSplit(net, note.amount_minor)
    : { note_minor: note.amount_minor, above_minor: 0 };
  if (net + split.note_minor < 0) {
    return reject(
      "correction_exceeds_entry",
      // spec: courier 4.2 correct (amount positive or negative): the refusal names the field and
      // speaks the amounts as the caller sent them, in the currency's decimals, not minor units.
      `amount: a credit note cannot take the entry below zero: net ${
        formatMinor(net, o.currency)
      }, note ${formatMinor(note.amount_minor, o.currency)} ${o.currency}`,
    );
  }
  return split;
}

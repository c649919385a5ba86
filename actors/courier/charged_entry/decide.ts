/**
 * The charged entry's decisions (courier 2.6 rule 5): it is told each entry and each note its
 * account books, and it reserves a note before the account posts it, judged against the entry's
 * net with every note booked or being booked on it: notes sent together are judged one at a time.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type TimerFired,
  unreachable,
} from "../../../src/runtime/actor.ts";
import {
  adjustmentsRefusal,
  compensationRefusal,
  noteRefusal,
  noteSplit,
} from "../../../src/courier/rules/ledger/note_checks.ts";
import {
  NOTE_POST_WITHIN_MS,
  NOTE_RESERVATION_LAPSE_MS,
  NOTE_RESERVATIONS_MAX,
} from "../../../src/limits.ts";
import type { OriginalEntry } from "../client_ledger/messages.ts";
import type {
  ChargedEntry,
  ChargedEntryCommand,
  ChargedEntryEvent,
  ChargedEntryReply,
  ChargedEntryState,
  Filled,
  HeldEntry,
  LapsePayload,
  NoteToReserve,
  Reserved,
} from "./messages.ts";

type D = Decision<ChargedEntryState, ChargedEntryEvent, ChargedEntryReply>;

/** The timer resolving the reservation `key` (one per key: a renewal moves it). */
export function lapseTimer(key: string): string {
  return `lapse:${key}`;
}

export function decide(
  state: ChargedEntryState,
  c: ChargedEntryCommand | TimerFired,
  ctx: Ctx,
): D {
  switch (c.kind) {
    case "book":
      return book(state, c);
    case "count_note":
      return countNote(state, c);
    case "fill":
      return fill(state, c);
    case "reserve":
      return reserve(state, c, ctx);
    case "release":
      return release(state, c);
    case "get":
      return accept([], (s) => s);
    case "timer":
      return lapse(state, c.payload as LapsePayload, ctx);
    default:
      return unreachable(c);
  }
}

/** An entry its account booked, or a conversion resolved (new seq): held from now on. */
function book(state: ChargedEntryState, c: Extract<ChargedEntryCommand, { kind: "book" }>): D {
  const held = state?.entries.find((e) => e.kind === c.entry.kind);
  // Told twice (an outbox item handled again), or older than what is held: nothing new.
  if (held && held.seq >= c.entry.seq) return accept([]);
  return accept([{
    kind: "entry_booked",
    client: c.client,
    reference: c.reference,
    entry: c.entry,
  }]);
}

/** Entries read from the account's log: those of kinds not held yet are taken as read. */
function fill(state: ChargedEntryState, c: Extract<ChargedEntryCommand, { kind: "fill" }>): D {
  const missing = c.entries.filter((e) => !state?.entries.some((h) => h.kind === e.kind));
  const filled = (): Filled => ({ filled: missing.length });
  if (missing.length === 0) return accept([], filled);
  return accept([{
    kind: "entries_filled",
    client: c.client,
    reference: c.reference,
    entries: missing,
  }], filled);
}

/** A note its account posted on the entry: counted, and its reservation (if any) confirmed. */
function countNote(
  state: ChargedEntryState,
  c: Extract<ChargedEntryCommand, { kind: "count_note" }>,
): D {
  const entry = state === null ? undefined : noteTarget(state, c.corrects_kind);
  // Filled from the account's log after it was posted: already counted there.
  if (entry === undefined || c.seq <= entry.counted_through) return accept([]);
  const counted: ChargedEntryEvent = {
    kind: "note_counted",
    entry_kind: entry.kind,
    seq: c.seq,
    amount_minor: c.amount_minor,
    ...(c.key === undefined ? {} : { key: c.key }),
  };
  const timers = c.key !== undefined && entry.reservations.some((r) => r.key === c.key)
    ? [{ op: "cancel" as const, name: lapseTimer(c.key) }]
    : [];
  return accept([counted], undefined, timers);
}

/**
 * The entry a note corrects: of its kind, or, for a note made before notes named the kind, the
 * only entry that could be corrected then.
 */
function noteTarget(state: ChargedEntry, kind: HeldEntry["kind"] | null): HeldEntry | undefined {
  if (kind !== null) return state.entries.find((e) => e.kind === kind);
  return state.entries.find((e) => e.kind === "shipment") ?? state.entries[0];
}

/**
 * spec: courier 2.6 rule 5: a note is reserved on its entry before its account posts it, judged
 * in the account's order of refusals against the entry's net with every note booked or reserved
 * on it; the same key reserved again answers the reservation it holds.
 */
function reserve(state: ChargedEntryState, c: NoteToReserve, ctx: Ctx): D {
  const entry = state?.entries.find((e) => e.kind === c.entry_kind);
  if (state === null || entry === undefined) {
    return reject("not_found", `entry_reference: ${c.entry_kind} ledger entry not found`);
  }
  const held = entry.reservations.find((r) => r.key === c.key);
  const original = originalOf(state, entry, c);
  if (entry.currency !== c.currency) {
    return reject(
      "ledger_catching_up",
      `entry_reference: the entry's currency changed to ${entry.currency}; send the note again`,
    );
  }
  const refused = noteRefusal(original, c) ?? compensationRefusal(c) ??
    adjustmentsRefusal(original.shipment, original.shipment_adjustments ?? 0);
  if (refused) return refused;
  const split = noteSplit(original, c);
  if ("ok" in split) return split;
  // Its request asks again in time: the reservation it holds stands, and is answered again.
  if (held && ctx.now - held.at < NOTE_POST_WITHIN_MS / 2) {
    return accept([], (): Reserved => ({ original, reservation: { key: held.key, at: held.at } }));
  }
  if (!held && entry.reservations.length >= NOTE_RESERVATIONS_MAX) {
    return reject(
      "ledger_catching_up",
      `${entry.reservations.length} notes on ${state.reference} are being booked; retry shortly`,
    );
  }
  const reservation = { key: c.key, at: ctx.now, note_minor: split.note_minor };
  const timer: LapsePayload = { entry_kind: entry.kind, key: c.key, at: ctx.now };
  return accept(
    [{ kind: "note_reserved", entry_kind: entry.kind, reservation }],
    (): Reserved => ({ original, reservation: { key: c.key, at: ctx.now } }),
    [{
      op: "set",
      name: lapseTimer(c.key),
      at: ctx.now + NOTE_RESERVATION_LAPSE_MS,
      payload: timer,
    }],
  );
}

/**
 * The entry as a note under `c.key` is judged against: its net with every note booked and every
 * other credit reserved, and its shipment's adjustments with the notes on it (courier 2.7).
 */
function originalOf(state: ChargedEntry, e: HeldEntry, c: NoteToReserve): OriginalEntry {
  const others = e.reservations.filter((r) => r.key !== c.key);
  // spec: courier 2.6 rule 5: a debit still being booked may never be (refused, or let go when
  // its request dies): a credit never counts on it, so no release takes the entry below zero.
  const reserved = others.reduce((sum, r) => sum + Math.min(r.note_minor, 0), 0);
  return {
    reference: state.reference,
    kind: e.kind,
    amount_minor: e.amount_minor,
    currency: e.currency,
    status: e.status,
    recoverable: e.recoverable,
    shipment: e.shipment,
    net_minor: e.amount_minor + e.notes_minor + reserved,
    shipment_adjustments: c.other_adjustments + e.notes + others.length,
  };
}

/** A reservation its account refused, or that its posting no longer needs: let go. */
function release(
  state: ChargedEntryState,
  c: Extract<ChargedEntryCommand, { kind: "release" }>,
): D {
  const entry = state?.entries.find((e) => e.kind === c.entry_kind);
  // A renewed reservation (another `at`) is its request's again: it stays.
  if (!entry?.reservations.some((r) => r.key === c.key && r.at === c.at)) return accept([]);
  return accept(
    [{ kind: "reservation_released", entry_kind: entry.kind, key: c.key }],
    undefined,
    [{ op: "cancel", name: lapseTimer(c.key) }],
  );
}

/** Past NOTE_RESERVATION_LAPSE_MS, a reservation still held is handed to the outbox to resolve. */
function lapse(state: ChargedEntryState, p: LapsePayload, ctx: Ctx): D {
  const entry = state?.entries.find((e) => e.kind === p.entry_kind);
  const held = entry?.reservations.find((r) => r.key === p.key && r.at === p.at);
  if (!held || ctx.now < held.at + NOTE_RESERVATION_LAPSE_MS) return accept([]);
  return accept([{ kind: "reservation_lapsed", entry_kind: p.entry_kind, key: p.key, at: p.at }]);
}

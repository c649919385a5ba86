/**
 * A charged entry (courier 2.6 rule 5, 4.2 `correct`, 4.6): the entries of one client holding one
 * reference, each with what a debit or credit note on it is judged against: its net amount, its
 * status and the notes on it. Told by its account's commits (a durable outbox item in the commit
 * of each entry and each note, src/courier/reactors/charged_entries.ts), never by the statement,
 * which lags: a note is reserved here, posted by the account, and confirmed by that posting.
 */
import type { ActorDefinition, OutboxAdd } from "../../../src/runtime/actor.ts";
import { unreachable } from "../../../src/runtime/actor.ts";
import { decide } from "./decide.ts";
import {
  type ChargedEntry,
  type ChargedEntryCommand,
  type ChargedEntryEvent,
  type ChargedEntryReply,
  type ChargedEntryState,
  type EntryFacts,
  type HeldEntry,
  type LapseItem,
  NOTE_LAPSE_OUTBOX,
} from "./messages.ts";

export * from "./messages.ts";
export { lapseTimer } from "./decide.ts";

/** The id of the charged entry holding `reference` for `client`. */
export function chargedEntryId(client: string, reference: string): string {
  return `${client}:${reference}`;
}

/** The client and reference an id names (the client's id holds no colon; a reference may). */
export function chargedEntryOf(id: string): { client: string; reference: string } | null {
  const at = id.indexOf(":");
  if (at <= 0) return null;
  return { client: id.slice(0, at), reference: id.slice(at + 1) };
}

/** The key under which the note of account seq `seq` is counted once on its entry. */
export function countKey(seq: number): string {
  return `note:${seq}`;
}

/** An entry first held: no note on it yet. */
export function heldEntry(facts: EntryFacts): HeldEntry {
  return { ...facts, notes_minor: 0, notes: 0, counted_through: 0, reservations: [] };
}

/** Entries in kind order, as a refusal naming several lists them. */
export function byKind(entries: readonly HeldEntry[]): HeldEntry[] {
  return [...entries].sort((a, b) => a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);
}

function evolve(state: ChargedEntryState, event: ChargedEntryEvent): ChargedEntryState {
  if (event.kind === "entry_booked") {
    const base: ChargedEntry = state ??
      { client: event.client, reference: event.reference, entries: [] };
    const held = base.entries.find((e) => e.kind === event.entry.kind);
    const next = held ? { ...held, ...event.entry } : heldEntry(event.entry);
    const rest = base.entries.filter((e) => e.kind !== event.entry.kind);
    return { ...base, entries: byKind([...rest, next]) };
  }
  if (event.kind === "entries_filled") {
    const base = state ?? { client: event.client, reference: event.reference, entries: [] };
    return { ...base, entries: byKind([...base.entries, ...event.entries]) };
  }
  if (state === null) throw new Error(`${event.kind} before entry_booked`);
  return { ...state, entries: state.entries.map((e) => withEvent(e, event)) };
}

/** One entry after an event on it (an event on another kind leaves it as it is). */
function withEvent(
  e: HeldEntry,
  event: Exclude<ChargedEntryEvent, { kind: "entry_booked" | "entries_filled" }>,
) {
  if (e.kind !== event.entry_kind) return e;
  switch (event.kind) {
    case "note_counted":
      return {
        ...e,
        notes_minor: e.notes_minor + event.amount_minor,
        notes: e.notes + 1,
        reservations: e.reservations.filter((r) => r.key !== event.key),
      };
    case "note_reserved":
      return {
        ...e,
        reservations: [
          ...e.reservations.filter((r) => r.key !== event.reservation.key),
          event.reservation,
        ],
      };
    case "reservation_released":
      return { ...e, reservations: e.reservations.filter((r) => r.key !== event.key) };
    case "reservation_lapsed":
      return e;
    default:
      return unreachable(event);
  }
}

/** A lapsed reservation goes to the outbox that asks its account whether it was posted. */
function outbox(event: ChargedEntryEvent, next: ChargedEntryState): readonly OutboxAdd[] {
  if (event.kind !== "reservation_lapsed" || next === null) return [];
  const item: LapseItem = {
    client: next.client,
    reference: next.reference,
    entry_kind: event.entry_kind,
    key: event.key,
    at: event.at,
  };
  return [{ outbox: NOTE_LAPSE_OUTBOX, payload: item }];
}

export const chargedEntryActor: ActorDefinition<
  ChargedEntryState,
  ChargedEntryCommand,
  ChargedEntryEvent,
  ChargedEntryReply
> = {
  type: "charged_entry",
  noun: "ledger entry",
  version: 1,
  initial: null,
  decide,
  evolve,
  outbox,
  // Nobody downstream reads it: the statement is the ledger projection's.
  publishEvents: false,
};

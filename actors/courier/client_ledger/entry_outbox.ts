/**
 * What a client account's commit tells the charged entries (actors/courier/charged_entry/): each
 * entry it books (so a note on it is judged against the account's truth, not the statement,
 * courier 2.6 rule 5), each conversion resolved, and each note on the entry it corrects. Added to
 * the `charged_entry` outbox in the commit itself, so no entry and no note is ever missed.
 */
import type { OutboxAdd } from "../../../src/runtime/actor.ts";
import { type EntryKind, entryOf, type LedgerEntry } from "../../../src/courier/rules/ledger.ts";
import type { CourierClientEvent, CourierClientState } from "../courier_client/messages.ts";
import type { EntryFacts } from "../charged_entry/messages.ts";

/** The outbox feeding the charged entries. */
export const CHARGED_ENTRY_OUTBOX = "charged_entry";

export type ChargedEntryItem =
  | { readonly op: "book"; readonly client: string; readonly entry: LedgerEntry }
  | {
    readonly op: "count_note";
    readonly client: string;
    /** The entry the note corrects, and its kind (absent on notes made before it was kept). */
    readonly corrects: string;
    readonly corrects_kind: EntryKind | null;
    readonly seq: number;
    readonly amount_minor: number;
    readonly key?: string;
  };

/** The facts of a ledger entry a charged entry holds. */
export function factsOf(e: LedgerEntry): EntryFacts {
  return {
    kind: e.kind,
    seq: e.seq,
    amount_minor: e.amount_minor,
    currency: e.currency,
    status: e.status,
    recoverable: e.recoverable,
    shipment: e.shipment,
  };
}

/** The items of an account event: its entry booked, and for a note the note counted. */
export function chargedEntryOutbox(
  event: CourierClientEvent,
  next: CourierClientState,
): readonly OutboxAdd[] {
  if (next === null) return [];
  const entry = entryOfEvent(event);
  if (entry === null) return [];
  const items: ChargedEntryItem[] = [{ op: "book", client: next.id, entry }];
  if (entry.corrects !== null && (entry.kind === "debit_note" || entry.kind === "credit_note")) {
    const key = event.kind === "entry_posted" ? event.reservation : undefined;
    items.push({
      op: "count_note",
      client: next.id,
      corrects: entry.corrects,
      corrects_kind: entry.corrects_kind ?? null,
      seq: entry.seq,
      amount_minor: entry.amount_minor,
      ...(key === undefined ? {} : { key }),
    });
  }
  return items.map((payload) => ({ outbox: CHARGED_ENTRY_OUTBOX, payload }));
}

/** The entry an account event books, or a resolved conversion's entry; null for others. */
export function entryOfEvent(event: CourierClientEvent): LedgerEntry | null {
  switch (event.kind) {
    case "booking_charged":
    case "topped_up":
      return event.entry ?? null;
    case "entry_posted":
    case "payment_received":
    case "cod_remitted":
      return event.entry;
    case "fx_resolved":
      return entryOf(event.resolution);
    default:
      return null;
  }
}

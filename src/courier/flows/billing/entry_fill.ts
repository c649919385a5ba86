/**
 * Charged entries of entries booked before accounts told them (courier 2.6 rule 5), read from the
 * store's truth, the account's event log, never from the statement, which lags: all of them once
 * by a pass at start (flows/old_data/charged_entries.ts), and any the pass did not see (one an
 * older instance booked during a rolling deploy) on first use, when the store holds no charged
 * entry (ActorRuntime.coldSource). The notes read with an entry are counted up to the last seq
 * read (counted_through): a note posted after the read is counted by its own outbox item, once.
 */
import { foundOrNull } from "../../../runtime/actor.ts";
import type { ActorRuntime, ColdSource } from "../../../runtime/runtime.ts";
import {
  byKind,
  type ChargedEntry,
  chargedEntryOf,
  type HeldEntry,
  heldEntry,
} from "../../../../actors/courier/charged_entry/mod.ts";
import {
  courierClientActor,
  type CourierClientEvent,
} from "../../../../actors/courier/courier_client.ts";
import { entryOfEvent, factsOf } from "../../../../actors/courier/client_ledger/entry_outbox.ts";
import type { LedgerEntry } from "../../rules/ledger.ts";

/** The cold source of charged entries: each read from its account's log, for its tenant only. */
export function chargedEntryFill(runtime: ActorRuntime): ColdSource {
  return async (tenant, id) => {
    const named = chargedEntryOf(id);
    if (named === null) return null;
    // spec: courier 1.1: another tenant's account is read as missing.
    // A refused read (a full mailbox) is thrown, so the load fails for now: taken as missing,
    // the entry would be loaded empty and its first commit would store it so.
    const account = await runtime.read(courierClientActor, tenant, named.client, { kind: "get" });
    if (foundOrNull(account) === null) return null;
    const read = await entriesInLog(runtime, named.client, (r) => r === named.reference);
    const entries = read.get(named.reference);
    if (entries === undefined) return null;
    const state: ChargedEntry = { client: named.client, reference: named.reference, entries };
    return state;
  };
}

/**
 * The entries of an account's log by reference (those `wanted` only), each with the notes on it
 * counted up to the last entry read.
 */
export async function entriesInLog(
  runtime: ActorRuntime,
  client: string,
  wanted: (reference: string) => boolean,
): Promise<Map<string, HeldEntry[]>> {
  const entries = new Map<string, Map<string, HeldEntry>>();
  const notes: LedgerEntry[] = [];
  let through = 0;
  for await (const stored of runtime.events(courierClientActor, client)) {
    const entry = entryOfEvent(stored.event as CourierClientEvent);
    if (entry === null) continue;
    through = Math.max(through, entry.seq);
    if (wanted(entry.reference)) {
      const kinds = entries.get(entry.reference) ?? new Map<string, HeldEntry>();
      const held = kinds.get(entry.kind);
      // A conversion resolved: its new facts, the notes kept.
      kinds.set(entry.kind, held ? { ...held, ...factsOf(entry) } : heldEntry(factsOf(entry)));
      entries.set(entry.reference, kinds);
    }
    if (entry.corrects !== null && wanted(entry.corrects)) notes.push(entry);
  }
  const read = new Map<string, HeldEntry[]>();
  for (const [reference, kinds] of entries) {
    const on = notes.filter((n) => n.corrects === reference);
    read.set(reference, withNotes(byKind([...kinds.values()]), on, through));
  }
  return read;
}

/** The entries with the notes on them counted (one made before notes named the kind: the only). */
function withNotes(
  entries: readonly HeldEntry[],
  notes: readonly LedgerEntry[],
  through: number,
): HeldEntry[] {
  const only = (entries.find((e) => e.kind === "shipment") ?? entries[0])?.kind;
  return entries.map((e) => {
    const on = notes.filter((n) => (n.corrects_kind ?? only) === e.kind);
    const sum = on.reduce((total, n) => total + n.amount_minor, 0);
    return { ...e, notes_minor: sum, notes: on.length, counted_through: through };
  });
}

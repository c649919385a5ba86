/**
 * Charged entries of entries booked before accounts told them (courier 2.6 rule 5): filled on
 * first use from the store's truth, the account's event log, never from the statement, which
 * lags. The runtime asks this when the store holds no charged entry (ActorRuntime.coldSource):
 * its first commit stores what was read. A note posted after the read has a later seq than every
 * entry read (filled_through), so its own outbox item counts it, once.
 */
import type { ColdSource } from "../../../runtime/runtime.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import {
  byKind,
  type ChargedEntry,
  chargedEntryOf,
  heldEntry,
} from "../../../../actors/courier/charged_entry/mod.ts";
import {
  courierClientActor,
  type CourierClientEvent,
} from "../../../../actors/courier/courier_client.ts";
import { entryOfEvent, factsOf } from "../../../../actors/courier/client_ledger/entry_outbox.ts";
import type { HeldEntry } from "../../../../actors/courier/charged_entry/messages.ts";
import type { LedgerEntry } from "../../rules/ledger.ts";

/** The cold source of charged entries: each read from its account's log, for its tenant only. */
export function chargedEntryFill(runtime: ActorRuntime): ColdSource {
  return async (tenant, id) => {
    const named = chargedEntryOf(id);
    if (named === null) return null;
    // spec: courier 1.1: another tenant's account is read as missing.
    const account = await runtime.read(courierClientActor, tenant, named.client, { kind: "get" });
    if (!account.ok) return null;
    const entries = new Map<string, HeldEntry>();
    const notes: LedgerEntry[] = [];
    let through = 0;
    for await (const stored of runtime.events(courierClientActor, named.client)) {
      const entry = entryOfEvent(stored.event as CourierClientEvent);
      if (entry === null) continue;
      through = Math.max(through, entry.seq);
      if (entry.reference === named.reference) {
        const held = entries.get(entry.kind);
        // A conversion resolved: its new facts, the notes kept.
        entries.set(entry.kind, held ? { ...held, ...factsOf(entry) } : heldEntry(factsOf(entry)));
      }
      if (entry.corrects === named.reference) notes.push(entry);
    }
    if (entries.size === 0) return null;
    return withNotes({
      client: named.client,
      reference: named.reference,
      entries: byKind([...entries.values()]),
      filled_through: through,
    }, notes);
  };
}

/** The entries with the notes on them counted (one made before notes named the kind: the only). */
function withNotes(state: ChargedEntry, notes: readonly LedgerEntry[]): ChargedEntry {
  const entries = state.entries.map((e) => {
    const on = notes.filter((n) => (n.corrects_kind ?? onlyKind(state)) === e.kind);
    if (on.length === 0) return e;
    const sum = on.reduce((total, n) => total + n.amount_minor, 0);
    return { ...e, notes_minor: e.notes_minor + sum, notes: e.notes + on.length };
  });
  return { ...state, entries };
}

function onlyKind(state: ChargedEntry): string | undefined {
  return (state.entries.find((e) => e.kind === "shipment") ?? state.entries[0])?.kind;
}

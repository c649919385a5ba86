/** One client account driven through the actor's pure decide and evolve, and what the client account tests read of it. */
import assert from "node:assert/strict";
import {
  type ClientSettings,
  type CourierClient,
  courierClientActor,
  type CourierClientCommand,
  type CourierClientEvent,
  type CourierClientReply,
  type CourierClientState,
} from "../../../actors/courier/courier_client.ts";
import { type OriginalEntry } from "../../../actors/courier/client_ledger.ts";
import { type EntryStatus, type LedgerEntry } from "../../../src/courier/rules/ledger.ts";
import type { Rejection } from "../../../src/runtime/actor.ts";

export const T0 = Date.parse("2026-10-12T09:00:00Z");
export const DAY = 24 * 60 * 60 * 1000;

export type Answer =
  | { readonly ok: true; readonly reply: CourierClientReply; readonly events: CourierClientEvent[] }
  | Rejection;

/** One client account driven through the actor's pure decide and evolve: no KV, no HTTP. */
export class Account {
  state: CourierClientState = null;
  now = T0;
  /** Every event the account accepted, in order. */
  readonly events: CourierClientEvent[] = [];
  #ids = 0;

  constructor(settings: Partial<ClientSettings> = {}) {
    this.must({ kind: "create", client: newClient("cli_1", "biz_1", settings), by: "test" });
  }

  get client(): CourierClient {
    assert.ok(this.state);
    return this.state;
  }

  send(command: CourierClientCommand): Answer {
    const ctx = { now: this.now, newId: (p: string) => `${p}_${++this.#ids}` };
    const d = courierClientActor.decide(this.state, command, ctx);
    if (!d.ok) return d;
    let next = this.state;
    for (const e of d.events) next = courierClientActor.evolve(next, e);
    this.state = next;
    this.events.push(...d.events);
    return { ok: true, reply: d.reply ? d.reply(next) : undefined, events: [...d.events] };
  }

  must(command: CourierClientCommand): CourierClientReply {
    const a = this.send(command);
    if (!a.ok) throw new Error(`${command.kind} refused: ${a.code}: ${a.message}`);
    return a.reply;
  }

  refused(command: CourierClientCommand): string {
    const a = this.send(command);
    assert.equal(a.ok, false, `${command.kind} should be refused`);
    return a.ok ? "" : a.code;
  }

  charge(fields: Partial<Extract<CourierClientCommand, { kind: "post_charge" }>> = {}) {
    const reference = fields.reference ?? `CH-${this.events.length + 1}`;
    return this.send({
      kind: "post_charge",
      reference,
      entry_kind: "customs_admin",
      amount_minor: 7_500,
      currency: "BWP",
      reason: "customs administration",
      evidence_path: null,
      source_event: `customs.cleared:${reference}`,
      shipment: "WB1",
      recoverable: false,
      by: "test",
      ...fields,
    });
  }

  /** The entry that `reference` was last posted or resolved as. */
  entry(reference: string): LedgerEntry {
    const e = postedEntries(this.events).find((x) => x.reference === reference);
    assert.ok(e, `no entry ${reference}`);
    return e;
  }
}

export function newClient(id: string, business: string, settings: Partial<ClientSettings>) {
  return {
    id,
    business_id: business,
    name: "Molapo Pharmacy",
    code: "MOLAPO",
    email: "accounts@molapo.example",
    settings: {
      settlement_mode: "credit" as const,
      credit_limit_minor: 500_000,
      payment_days: 30,
      billing_currency: "BWP",
      external_system: null,
      unique_external_reference: false,
      rate_card_id: null,
      ...settings,
    },
    api_key: { hash: `hash-${id}`, hint: "abcd", created_at: T0 },
    users: [],
  };
}

/** Every entry the events carry, resolutions replacing what they resolve. */
export function postedEntries(events: readonly CourierClientEvent[]): LedgerEntry[] {
  const byRef = new Map<string, LedgerEntry>();
  for (const e of events) {
    switch (e.kind) {
      case "booking_charged":
      case "topped_up":
        if (e.entry) byRef.set(e.entry.reference, e.entry);
        break;
      case "entry_posted":
      case "payment_received":
      case "cod_remitted":
        byRef.set(e.entry.reference, e.entry);
        break;
      case "fx_resolved": {
        const before = byRef.get(e.resolution.reference);
        assert.ok(before);
        byRef.set(e.resolution.reference, { ...before, ...e.resolution });
        break;
      }
    }
  }
  return [...byRef.values()];
}

export function sumOf(entries: readonly LedgerEntry[], status: EntryStatus = "posted"): number {
  return entries.filter((e) => e.status === status).reduce((n, e) => n + e.amount_minor, 0);
}

export function original(a: Account, reference: string): OriginalEntry {
  const e = a.entry(reference);
  const notes = postedEntries(a.events).filter((x) => x.corrects === reference);
  return {
    reference: e.reference,
    kind: e.kind,
    amount_minor: e.amount_minor,
    currency: e.currency,
    status: e.status,
    recoverable: e.recoverable,
    shipment: e.shipment,
    net_minor: e.amount_minor + notes.reduce((n, x) => n + x.amount_minor, 0),
  };
}

export function invoices(reply: CourierClientReply) {
  assert.ok(reply && "invoices" in reply);
  return reply.invoices;
}

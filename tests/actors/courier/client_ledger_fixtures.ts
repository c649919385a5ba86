/** Fixtures shared by client_ledger_test.ts and client_ledger_cod_invoices_test.ts. */
import assert from "node:assert/strict";
import {
  type ClientSettings,
  courierClientActor,
  type CourierClientEvent,
} from "../../../actors/courier/courier_client.ts";
import { type LedgerCommand, type OriginalEntry } from "../../../actors/courier/client_ledger.ts";
import { type LedgerEntry } from "../../../src/courier/rules/ledger.ts";
import { ActorHarness } from "../../helpers/actor.ts";

export const T0 = Date.parse("2026-10-12T09:00:00Z");
export const DAY = 86_400_000;

export function account(settings: Partial<ClientSettings> = {}) {
  const h = new ActorHarness(courierClientActor, { now: T0 });
  h.must({
    kind: "create",
    client: {
      id: "cli_1",
      business_id: "biz_1",
      name: "Molapo Pharmacy",
      code: "MOLAPO",
      email: "accounts@molapo.example",
      settings: {
        settlement_mode: "credit",
        credit_limit_minor: 500_000,
        payment_days: 30,
        billing_currency: "BWP",
        external_system: null,
        unique_external_reference: false,
        rate_card_id: null,
        ...settings,
      },
      api_key: { hash: "h".repeat(64), hint: "abcd", created_at: T0 },
      users: [],
    },
    by: "test",
  });
  return h;
}

export type Account = ReturnType<typeof account>;

export function charge(fields: Partial<Extract<LedgerCommand, { kind: "post_charge" }>> = {}) {
  const reference = fields.reference ?? "CH-1";
  return {
    kind: "post_charge",
    reference,
    entry_kind: "waiting",
    amount_minor: 7_500,
    currency: "BWP",
    reason: "waiting at the depot",
    evidence_path: null,
    source_event: `run.waiting:${reference}`,
    shipment: "WB1",
    recoverable: false,
    by: "test",
    ...fields,
  } as const satisfies LedgerCommand;
}

export function pay(
  amount_minor: number,
  fields: Partial<Extract<LedgerCommand, { kind: "payment" }>> = {},
) {
  return {
    kind: "payment",
    amount_minor,
    currency: "BWP",
    reference: `PAY-${amount_minor}`,
    by: "test",
    ...fields,
  } as const satisfies LedgerCommand;
}

/** The entry each accepted event carries (a resolution: the converted entry). */
export function entriesOf(events: readonly CourierClientEvent[]): LedgerEntry[] {
  return events.flatMap((e): LedgerEntry[] => {
    switch (e.kind) {
      case "entry_posted":
      case "payment_received":
      case "cod_remitted":
        return [e.entry];
      case "booking_charged":
      case "topped_up":
        return e.entry ? [e.entry] : [];
      case "fx_resolved":
        return [
          {
            ...e.resolution,
            payer: "client",
            reason: null,
            source_event: null,
            corrects: null,
          } as LedgerEntry,
        ];
      default:
        return [];
    }
  });
}

export function original(h: Account, reference: string): OriginalEntry {
  const entries = entriesOf(h.log);
  const e = entries.find((x) => x.reference === reference && x.corrects === null);
  assert.ok(e, `no entry ${reference}`);
  const notes = entries.filter((x) => x.corrects === reference);
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

export function correct(
  h: Account,
  reference: string,
  amount_minor: number,
  fields: Partial<Extract<LedgerCommand, { kind: "correct" }>> = {},
) {
  return {
    kind: "correct",
    original: original(h, reference),
    seen_seq: h.state!.ledger.seq,
    amount_minor,
    reason: "price agreed again",
    by: "test",
    ...fields,
  } as const satisfies LedgerCommand;
}

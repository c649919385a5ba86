/** Which money facts of a client account order a billing event in their commit (courier 6.1). */
import assert from "node:assert/strict";
import {
  BILLING_CHARGE_OUTBOX,
  billingOutbox,
} from "../../../actors/courier/client_ledger/outbox.ts";
import type { CourierClient, CourierClientEvent } from "../../../actors/courier/courier_client.ts";
import { entryOf, type LedgerEntry } from "../../../src/courier/rules/ledger.ts";

const T0 = Date.parse("2026-10-12T09:00:00Z");
// Only who is billed is read of the account (its id, code and name).
const account = { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" } as CourierClient;

function entry(kind: LedgerEntry["kind"], reference: string): LedgerEntry {
  return entryOf({
    reference,
    seq: 1,
    kind,
    amount_minor: 8_892,
    currency: "BWP",
    status: "posted",
    created_at: T0,
  });
}

const posted = (e: LedgerEntry): CourierClientEvent => ({
  kind: "entry_posted",
  entry: e,
  effect: {} as never,
  invoiceable: true,
  by: "t",
});

Deno.test("client ledger outbox: a booking's charge orders its billing event, with the client billed and the event", () => {
  const charged: CourierClientEvent = {
    kind: "booking_charged",
    waybill: "WB1",
    amount_minor: 8_892,
    currency: "BWP",
    settlement_mode: "credit",
    posted: true,
    by: "t",
    entry: entry("shipment", "WB1"),
  };
  assert.deepEqual(billingOutbox(charged, account), [{
    outbox: BILLING_CHARGE_OUTBOX,
    payload: { client: { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" }, event: charged },
  }]);
  const { entry: _, ...before } = charged;
  assert.deepEqual(billingOutbox(before, account), [], "a charge kept before the ledger: none");
});

Deno.test("client ledger outbox: later charges and notes order one each; payments, top-ups and settings none", () => {
  for (const kind of ["redelivery", "duties", "debit_note", "credit_note"] as const) {
    assert.equal(billingOutbox(posted(entry(kind, `R-${kind}`)), account).length, 1, kind);
  }
  for (const kind of ["payment", "top_up"] as const) {
    assert.deepEqual(billingOutbox(posted(entry(kind, `R-${kind}`)), account), [], kind);
  }
  const settings: CourierClientEvent = { kind: "settings_changed", changes: {}, by: "t" };
  assert.deepEqual(billingOutbox(settings, account), []);
  assert.deepEqual(billingOutbox(posted(entry("redelivery", "R-9")), null), [], "no account");
});

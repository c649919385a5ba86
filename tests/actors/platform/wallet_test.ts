import assert from "node:assert/strict";
import { walletActor, type WalletState } from "../../../actors/platform/wallet.ts";

const ctx = { now: Date.parse("2026-11-02T08:00:00Z"), newId: (p: string) => `${p}_1` };

function refusal(state: WalletState, amount_minor: number, currency: string): string {
  const d = walletActor.decide(state, {
    kind: "debit",
    amount_minor,
    currency,
    reference: "R-1",
    by: "test",
  }, ctx);
  assert.ok(!d.ok, JSON.stringify(d));
  return d.message;
}

Deno.test("wallet: a refused debit states its amounts as decimals in the wallet's currency", () => {
  const state: WalletState = { balances: { BWP: 1_050, KWD: 1_500 }, recent: [] };
  // spec: courier 2.2, 9.4: amounts are decimals in the stated currency, never minor units.
  assert.equal(
    refusal(state, 2_000, "BWP"),
    "wallet balance too low: available 10.50 BWP, needed 20.00 BWP",
  );
  assert.equal(
    refusal(state, 1_501, "KWD"),
    "wallet balance too low: available 1.500 KWD, needed 1.501 KWD",
  );
  assert.equal(refusal(state, -250, "BWP"), "amount must be positive: -2.50 BWP");
});

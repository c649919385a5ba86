import assert from "node:assert/strict";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const set = (balance_minor: number) => ({
  kind: "set_balance" as const,
  balance_minor,
  currency: "BWP",
  reference: "sandbox:set_balance",
  by: "sandbox",
});

Deno.test("wallet: set_balance books the difference as a credit or a debit, none when equal", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 1_000 } } });
  const up = h.must(set(2_500));
  assert.deepEqual(up.events.map((e) => e.kind === "wallet_transaction" && e.transaction.kind), [
    "credit",
  ]);
  assert.equal(h.state.balances.BWP, 2_500);
  const down = h.must(set(0));
  const t = down.events[0];
  assert.ok(t?.kind === "wallet_transaction");
  assert.deepEqual([t.transaction.kind, t.transaction.amount_minor], ["debit", 2_500]);
  assert.equal(h.must(set(0)).events.length, 0);
  h.refused(set(-1), "validation_failed");
  assert.equal(h.state.balances.BWP, 0);
});

import assert from "node:assert/strict";
import { walletActor, type WalletState } from "../../../actors/platform/wallet.ts";
import { ActorHarness, kinds, replay } from "../../helpers/actor.ts";

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

Deno.test("wallet: a debit may go below zero within its credit limit, and no further", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 1_000 }, recent: [] } });
  const debit = (amount_minor: number) => ({
    kind: "debit" as const,
    amount_minor,
    currency: "BWP",
    reference: `R-${amount_minor}`,
    by: "test",
    limit_minor: 5_000,
  });
  h.must(debit(5_500));
  assert.equal(h.state.balances.BWP, -4_500);
  h.refused(debit(501), "insufficient_balance");
  h.must(debit(500));
  assert.equal(h.state.balances.BWP, -5_000);
});

Deno.test("wallet: low_balance is added to the outbox once, and again only after rising to it", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 10_000 }, recent: [] } });
  const watch = { threshold_minor: 5_000, business_id: "biz_1", outbox: "business_webhook" };
  const debit = (amount_minor: number) => ({
    kind: "debit" as const,
    amount_minor,
    currency: "BWP",
    reference: "R",
    by: "test",
    low_balance: watch,
  });
  const low = (events: readonly unknown[]) =>
    events.flatMap((e) => walletActor.outbox!(e as never, h.state)).map((a) => a.payload);
  assert.deepEqual(low(h.must(debit(4_000)).events), []);
  const fell = h.must(debit(2_000));
  assert.deepEqual(kinds(fell.events), ["wallet_transaction", "low_balance_reached"]);
  const [item] = low(fell.events) as { event: string; data: Record<string, unknown> }[];
  assert.equal(item?.event, "wallet.low_balance");
  assert.deepEqual(item?.data, { currency: "BWP", balance: 40, threshold: 50 });
  assert.deepEqual(low(h.must(debit(1_000)).events), []);
  const rose = h.must({
    kind: "credit",
    amount_minor: 3_000,
    currency: "BWP",
    reference: "T",
    by: "op",
  });
  assert.deepEqual(kinds(rose.events), ["wallet_transaction", "low_balance_cleared"]);
  assert.equal(low(h.must(debit(2_000)).events).length, 1);
  const stored = JSON.parse(JSON.stringify(h.log));
  assert.deepEqual(replay(walletActor, stored, { balances: { BWP: 10_000 }, recent: [] }), h.state);
});

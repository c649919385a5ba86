import assert from "node:assert/strict";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const set = (balance_minor: number) => ({
  kind: "set_balance" as const,
  balance_minor,
  currency: "BWP",
  reference: "sandbox:set_balance",
  by: "sandbox",
  low_balance: null,
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

Deno.test("wallet: a set_balance that books a debit below the threshold adds wallet.low_balance, once", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 10_000 } } });
  const low_balance = { threshold_minor: 5_000, business_id: "biz_1", outbox: "business_webhook" };
  const watched = (balance_minor: number) => ({ ...set(balance_minor), low_balance });
  const events = (balance_minor: number) => h.must(watched(balance_minor)).events;
  const sent = (e: readonly unknown[]) =>
    e.flatMap((x) => walletActor.outbox!(x as never, h.state))
      .map((a) => (a.payload as { event: string }).event);
  // spec: business 6 wallet.low_balance: a debit like any other, whatever booked it.
  assert.deepEqual(sent(events(4_000)), ["wallet.low_balance"]);
  assert.deepEqual(sent(events(3_000)), []);
  assert.deepEqual(events(6_000).map((e) => e.kind), ["wallet_transaction", "low_balance_cleared"]);
  assert.equal(sent(events(1_000)).length, 1);
});

// spec: business 8: a sandbox top-up, "to 100,000 when below 10,000", judged on the balance the
// wallet holds when it is asked, so a second top-up read before the first booked nothing.
Deno.test("wallet: a set_balance below a bound books only while the balance is below it", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 500 } } });
  const topUp = { ...set(10_000), below_minor: 1_000 };
  assert.equal(h.must(topUp).events.length, 1);
  assert.equal(h.must(topUp).events.length, 0, "the second finds the wallet topped up");
  assert.equal(h.state.balances.BWP, 10_000);
  h.must(set(1_000));
  assert.equal(h.must(topUp).events.length, 0, "at the bound: not below it");
  assert.equal(h.state.balances.BWP, 1_000);
});

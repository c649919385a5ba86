import assert from "node:assert/strict";
import { walletActor, type WalletState } from "../../../actors/platform/wallet.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { ActorHarness, kinds, replay } from "../../helpers/actor.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";

const ctx = { now: Date.parse("2026-11-02T08:00:00Z"), newId: (p: string) => `${p}_1` };

function refusal(state: WalletState, amount_minor: number, currency: string): string {
  const d = walletActor.decide(state, {
    kind: "debit",
    amount_minor,
    currency,
    reference: "R-1",
    by: "test",
    low_balance: null,
  }, ctx);
  assert.ok(!d.ok, JSON.stringify(d));
  return d.message;
}

Deno.test("wallet: a refused debit states its amounts as decimals in the wallet's currency", () => {
  const state: WalletState = { balances: { BWP: 1_050, KWD: 1_500 } };
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

Deno.test("wallet: a debit may go below zero within its credit limit, and no further; its refusal counts the limit", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 1_000 } } });
  const debit = (amount_minor: number) => ({
    kind: "debit" as const,
    amount_minor,
    currency: "BWP",
    reference: `R-${amount_minor}`,
    by: "test",
    limit_minor: 5_000,
    low_balance: null,
  });
  h.must(debit(5_500));
  assert.equal(h.state.balances.BWP, -4_500);
  // What is available counts the limit, as the decision does (it named the balance, -45.00).
  h.refused(
    debit(501),
    "insufficient_balance",
    "wallet balance too low: available 5.00 BWP (a credit limit of 50.00 BWP), needed 5.01 BWP",
  );
  h.must(debit(500));
  assert.equal(h.state.balances.BWP, -5_000);
});

Deno.test("wallet: low_balance is added to the outbox once, and again only after rising to it", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 10_000 } } });
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
  assert.deepEqual(replay(walletActor, stored, { balances: { BWP: 10_000 } }), h.state);
});

Deno.test("wallet: a charge's key keeps its transaction and balances; the wallet keeps no list of transactions", async () => {
  const rt = await openTestRuntime(":memory:", {
    clock: new ManualClock(ctx.now),
    definitions: [walletActor],
  });
  const { runtime } = rt;
  try {
    const ask = (kind: "credit" | "debit", amount_minor: number, reference: string) =>
      runtime.ask(walletActor, "biz_1", "biz_1", {
        kind,
        amount_minor,
        currency: "BWP",
        reference,
        by: "test",
        low_balance: null,
      }, { idempotencyKey: `${kind}:${reference}`, permanent: true });
    assert.ok((await ask("credit", 100_000, "T-0")).ok);
    for (let i = 1; i <= 60; i++) assert.ok((await ask("debit", 100, `trip:R-${i}`)).ok);
    const first = await ask("debit", 250, "trip:R-61");
    assert.ok(first.ok && !first.replayed);
    const again = await ask("debit", 250, "trip:R-61");
    assert.ok(again.ok && again.replayed);
    // What a replay's callers read: the transaction (its id) and the balance it left.
    assert.deepEqual(again.reply.transaction, first.reply.transaction);
    assert.deepEqual(again.reply.state.balances, { BWP: 100_000 - 6_000 - 250 });
    const kept = await runtime.replyUnder(walletActor, "biz_1", "debit:trip:R-61");
    assert.deepEqual(kept?.reply, again.reply);
    const keptBytes = JSON.stringify(kept?.reply).length;
    assert.ok(keptBytes < 400, `kept ${keptBytes} bytes`);
    // The wallet's state is its balances, however many transactions it made: the transactions
    // are the event log's, written once each.
    const got = await runtime.read(walletActor, "biz_1", "biz_1", { kind: "get" });
    assert.ok(got.ok);
    assert.deepEqual(got.reply.state, { balances: { BWP: 100_000 - 6_000 - 250 } });
    const logged = [];
    for await (const e of runtime.events(walletActor, "biz_1")) logged.push(e.event);
    assert.equal(logged.length, 62);
  } finally {
    await rt.close();
  }
});

// spec: business 6 wallet.low_balance "fell below the configured threshold": a threshold lowered
// after a notice is crossed on its own, once.
Deno.test("wallet: after the threshold is lowered below a notified one, falling below the new one is notified once", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 10_000 } } });
  const watch = (threshold_minor: number) => ({
    threshold_minor,
    business_id: "biz_1",
    outbox: "business_webhook",
  });
  const debit = (amount_minor: number, threshold_minor: number) => ({
    kind: "debit" as const,
    amount_minor,
    currency: "BWP",
    reference: "R",
    by: "test",
    low_balance: watch(threshold_minor),
  });
  const low = (events: readonly unknown[]) =>
    events.flatMap((e) => walletActor.outbox!(e as never, h.state)).map((a) => a.payload) as {
      data: Record<string, unknown>;
    }[];
  assert.equal(low(h.must(debit(6_000, 5_000)).events).length, 1, "below 50.00");
  // The business lowers its threshold to 20.00 while the balance is 40.00.
  assert.deepEqual(low(h.must(debit(1_000, 2_000)).events), [], "30.00 is above 20.00");
  const fell = low(h.must(debit(2_000, 2_000)).events);
  assert.deepEqual(fell.map((i) => i.data), [{ currency: "BWP", balance: 10, threshold: 20 }]);
  assert.deepEqual(low(h.must(debit(500, 2_000)).events), [], "once per fall");
  const rose = h.must({
    kind: "credit",
    amount_minor: 1_500,
    currency: "BWP",
    reference: "T",
    by: "op",
  });
  assert.deepEqual(kinds(rose.events), ["wallet_transaction", "low_balance_cleared"]);
  assert.equal(low(h.must(debit(1_000, 2_000)).events).length, 1, "a new fall");
});

// spec: business 4.3, 6 wallet.low_balance "fell below the configured threshold": once per
// crossing. A threshold raised above a balance already below it has not been fallen below.
Deno.test("wallet: after the threshold is raised above a notified balance, debits still below it notify nothing until it rises back", () => {
  const h = new ActorHarness(walletActor, { state: { balances: { BWP: 10_000 } } });
  const debit = (amount_minor: number, threshold_minor: number) => ({
    kind: "debit" as const,
    amount_minor,
    currency: "BWP",
    reference: "R",
    by: "test",
    low_balance: { threshold_minor, business_id: "biz_1", outbox: "business_webhook" },
  });
  const credit = (amount_minor: number) => ({
    kind: "credit" as const,
    amount_minor,
    currency: "BWP",
    reference: "T",
    by: "op",
  });
  const low = (events: readonly unknown[]) =>
    events.flatMap((e) => walletActor.outbox!(e as never, h.state)).map((a) => a.payload);
  assert.equal(low(h.must(debit(8_500, 2_000)).events).length, 1, "15.00 below 20.00");
  // The business raises its threshold to 50.00 while the balance is 15.00.
  assert.deepEqual(low(h.must(debit(500, 5_000)).events), [], "10.00: no new crossing");
  h.must(credit(2_000)); // 30.00: back above the 20.00 notified, still below 50.00
  assert.deepEqual(low(h.must(debit(500, 5_000)).events), [], "25.00: never rose to 50.00");
  h.must(credit(3_000)); // 55.00
  const fell = low(h.must(debit(1_000, 5_000)).events) as { data: Record<string, unknown> }[];
  assert.deepEqual(fell.map((i) => i.data), [{ currency: "BWP", balance: 45, threshold: 50 }]);
});

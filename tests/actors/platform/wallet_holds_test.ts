import assert from "node:assert/strict";
import {
  freeMinor,
  type LowBalanceWatch,
  walletActor,
  type WalletState,
} from "../../../actors/platform/wallet.ts";
import { ActorHarness, kinds, replay } from "../../helpers/actor.ts";

const HOUR = 60 * 60_000;

function reserve(
  amount_minor: number,
  o: { hold?: string; limit_minor?: number; replaces?: string } = {},
) {
  const { hold = "batch:BT-1", limit_minor, replaces } = o;
  return {
    kind: "reserve" as const,
    hold,
    amount_minor,
    currency: "BWP",
    hold_ms: HOUR,
    ...(limit_minor === undefined ? {} : { limit_minor }),
    ...(replaces === undefined ? {} : { replaces }),
  };
}

function debit(
  amount_minor: number,
  o: { hold?: string; reference?: string; low_balance?: LowBalanceWatch } = {},
) {
  return {
    kind: "debit" as const,
    amount_minor,
    currency: "BWP",
    reference: o.reference ?? `trip:R-${amount_minor}`,
    by: "test",
    low_balance: o.low_balance ?? null,
    ...(o.hold === undefined ? {} : { hold: o.hold }),
  };
}

function wallet(balance: number) {
  return new ActorHarness(walletActor, { now: 1_000, state: { balances: { BWP: balance } } });
}

Deno.test("wallet holds: a reserve holds money in one turn; other debits cannot spend it, the hold's own debits can", () => {
  const h = wallet(10_000);
  const placed = h.must(reserve(6_000));
  assert.deepEqual(kinds(placed.events), ["hold_placed"]);
  assert.deepEqual(placed.timers, [
    { op: "set", name: "hold:batch:BT-1", at: 1_000 + HOUR, payload: { hold: "batch:BT-1" } },
  ]);
  // The posted balance is untouched: the hold only keeps money from other debits.
  assert.deepEqual(h.state.balances, { BWP: 10_000 });
  assert.equal(freeMinor(h.state, "BWP", 0), 4_000);
  h.refused(
    debit(4_001),
    "insufficient_balance",
    "wallet balance too low: available 40.00 BWP, needed 40.01 BWP; " +
      "60.00 BWP held for bookings in progress",
  );
  h.must(debit(4_000));
  // Nothing is free any more, yet the hold's own debits are paid from it.
  h.refused(debit(1), "insufficient_balance");
  const drawn = h.must(debit(2_500, { hold: "batch:BT-1" }));
  assert.deepEqual((drawn.events[0] as { drawn?: unknown }).drawn, {
    hold: "batch:BT-1",
    amount_minor: 2_500,
  });
  h.must(debit(3_500, { hold: "batch:BT-1", reference: "trip:R-2" }));
  assert.deepEqual(h.state.balances, { BWP: 0 });
  assert.equal(h.state.holds?.["batch:BT-1"]?.amount_minor, 0);
  // Released, the spent hold leaves no trace in the state.
  assert.deepEqual(kinds(h.must({ kind: "release", hold: "batch:BT-1" }).events), [
    "hold_released",
  ]);
  assert.deepEqual(h.state, { balances: { BWP: 0 } });
  assert.deepEqual(
    replay(walletActor, JSON.parse(JSON.stringify(h.log)), {
      balances: { BWP: 10_000 },
    }),
    h.state,
  );
});

Deno.test("wallet holds: a reserve the free money cannot cover is refused and changes nothing", () => {
  const h = wallet(5_000);
  h.must(reserve(3_000, { hold: "batch:BT-0" }));
  h.refused(
    reserve(2_001),
    "insufficient_balance",
    "wallet balance too low: available 20.00 BWP, needed 20.01 BWP; " +
      "30.00 BWP held for bookings in progress",
  );
  // Within the credit limit it may go below zero, as a debit may.
  h.refused(reserve(4_001, { limit_minor: 2_000 }), "insufficient_balance");
  h.must(reserve(4_000, { limit_minor: 2_000 }));
  assert.equal(freeMinor(h.state, "BWP", 2_000), 0);
  h.refused(reserve(0, { hold: "batch:BT-9" }), "validation_failed");
});

Deno.test("wallet holds: a second reserve under the same hold is answered as it is, whatever it asks", () => {
  const h = wallet(10_000);
  h.must(reserve(6_000));
  h.must(debit(2_000, { hold: "batch:BT-1" }));
  const again = h.must(reserve(9_000));
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.timers, []);
  assert.deepEqual(h.state.holds, {
    "batch:BT-1": { currency: "BWP", amount_minor: 4_000, expires_at: 1_000 + HOUR },
  });
});

Deno.test("wallet holds: a debit larger than what is left of its hold takes the rest from the free money, or is refused", () => {
  const h = wallet(10_000);
  h.must(reserve(3_000));
  h.must(debit(6_000));
  // 1,000 free, 3,000 held: 4,001 asks one more than both.
  h.refused(debit(4_001, { hold: "batch:BT-1" }), "insufficient_balance");
  const took = h.must(debit(4_000, { hold: "batch:BT-1" }));
  assert.deepEqual((took.events[0] as { drawn?: unknown }).drawn, {
    hold: "batch:BT-1",
    amount_minor: 3_000,
  });
  assert.deepEqual(h.state.balances, { BWP: 0 });
  assert.equal(freeMinor(h.state, "BWP", 0), 0);
  // A hold of another currency pays nothing of a BWP debit.
  h.must({ kind: "credit", amount_minor: 500, currency: "BWP", reference: "T", by: "op" });
  h.must({ ...reserve(100, { hold: "zar" }), currency: "ZAR", limit_minor: 1_000 });
  h.refused(debit(501, { hold: "zar" }), "insufficient_balance");
});

Deno.test("wallet holds: a hold's timer frees what is left once expired; an early or stale timer changes nothing", () => {
  const h = wallet(10_000);
  h.must(reserve(6_000));
  h.must(debit(1_000, { hold: "batch:BT-1" }));
  h.now = 1_000 + HOUR - 1;
  assert.deepEqual(h.fire("hold:batch:BT-1", { hold: "batch:BT-1" }).events, []);
  h.now = 1_000 + HOUR;
  const expired = h.fire("hold:batch:BT-1", { hold: "batch:BT-1" });
  assert.deepEqual(expired.events, [{
    kind: "hold_released",
    hold: "batch:BT-1",
    amount_minor: 5_000,
    reason: "expired",
    at: 1_000 + HOUR,
  }]);
  assert.deepEqual(h.state, { balances: { BWP: 9_000 } });
  assert.equal(freeMinor(h.state, "BWP", 0), 9_000);
  // Gone, its debits are paid from the free money like any other.
  h.must(debit(9_000, { hold: "batch:BT-1" }));
  h.refused(debit(1, { hold: "batch:BT-1" }), "insufficient_balance");
  assert.deepEqual(h.fire("hold:batch:BT-1", { hold: "batch:BT-1" }).events, []);
  assert.deepEqual(h.fire("other", null).events, []);
});

Deno.test("wallet holds: a release cancels the timer, and releasing a hold that is gone changes nothing", () => {
  const h = wallet(10_000);
  h.must(reserve(6_000));
  const released = h.must({ kind: "release", hold: "batch:BT-1" });
  assert.deepEqual(released.timers, [{ op: "cancel", name: "hold:batch:BT-1" }]);
  assert.equal((released.events[0] as { amount_minor: number }).amount_minor, 6_000);
  const again = h.must({ kind: "release", hold: "batch:BT-1" });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.timers, []);
  assert.deepEqual(h.state, { balances: { BWP: 10_000 } } satisfies WalletState);
});

Deno.test("wallet holds: the sandbox's set_balance sets the balance asked, whatever is held", () => {
  const h = wallet(10_000);
  h.must(reserve(6_000));
  h.must({
    kind: "set_balance",
    balance_minor: 1_000,
    currency: "BWP",
    reference: "s",
    by: "t",
    low_balance: null,
  });
  assert.deepEqual(h.state.balances, { BWP: 1_000 });
  // The hold's own debits stay paid; the free money is what the hold leaves (here none).
  h.must(debit(6_000, { hold: "batch:BT-1" }));
  assert.equal(h.state.balances.BWP, -5_000);
});

Deno.test("wallet holds: a debit its hold pays passes the low-balance watch; the hold itself does not", () => {
  const h = wallet(10_000);
  const low_balance = { threshold_minor: 5_000, business_id: "biz_1", outbox: "business_webhook" };
  const sent = (e: readonly unknown[]) =>
    e.flatMap((x) => walletActor.outbox!(x as never, h.state))
      .map((a) => (a.payload as { event: string; data: unknown }));
  // Held, the posted balance (what GET /business/wallet and the webhook show) has not moved.
  assert.deepEqual(sent(h.must(reserve(8_000)).events), []);
  assert.deepEqual(sent(h.must(debit(4_000, { hold: "batch:BT-1", low_balance })).events), []);
  // spec: business 6 wallet.low_balance: the stop's charge takes the balance below, whoever pays.
  const crossed = h.must(debit(2_000, { hold: "batch:BT-1", low_balance }));
  assert.deepEqual(kinds(crossed.events), ["wallet_transaction", "low_balance_reached"]);
  assert.deepEqual(sent(crossed.events).map((p) => p.data), [
    { currency: "BWP", balance: 40, threshold: 50 },
  ]);
  // Once, until the balance rises back; releasing what is left re-arms nothing.
  assert.deepEqual(sent(h.must(debit(2_000, { hold: "batch:BT-1", low_balance })).events), []);
  assert.deepEqual(kinds(h.must({ kind: "release", hold: "batch:BT-1" }).events), [
    "hold_released",
  ]);
  assert.equal(h.state.low?.BWP, 5_000);
});

Deno.test("wallet holds: a reserve replacing an earlier hold moves its money in one turn, or changes nothing when refused", () => {
  const h = wallet(10_000);
  h.must(reserve(6_000, { hold: "batch:BT-1:c1" }));
  h.must(debit(4_000));
  // Nothing is free: only the replaced hold's money pays the new one.
  const moved = h.must(reserve(6_000, { hold: "batch:BT-1:c2", replaces: "batch:BT-1:c1" }));
  assert.deepEqual(kinds(moved.events), ["hold_released", "hold_placed"]);
  assert.deepEqual(moved.timers, [
    { op: "cancel", name: "hold:batch:BT-1:c1" },
    { op: "set", name: "hold:batch:BT-1:c2", at: 1_000 + HOUR, payload: { hold: "batch:BT-1:c2" } },
  ]);
  assert.deepEqual(Object.keys(h.state.holds ?? {}), ["batch:BT-1:c2"]);
  assert.equal(freeMinor(h.state, "BWP", 0), 0);
  // More than the two together: refused, the earlier hold stays.
  h.refused(
    reserve(6_001, { hold: "batch:BT-1:c3", replaces: "batch:BT-1:c2" }),
    "insufficient_balance",
  );
  assert.deepEqual(Object.keys(h.state.holds ?? {}), ["batch:BT-1:c2"]);
  // A hold already placed under the id is kept as it is; the replaced one is given back.
  h.must({ kind: "credit", amount_minor: 1_000, currency: "BWP", reference: "C", by: "op" });
  h.must(reserve(1_000, { hold: "batch:BT-1:c4" }));
  const kept = h.must(reserve(9_000, { hold: "batch:BT-1:c4", replaces: "batch:BT-1:c2" }));
  assert.deepEqual(kinds(kept.events), ["hold_released"]);
  assert.deepEqual(h.state.holds, {
    "batch:BT-1:c4": { currency: "BWP", amount_minor: 1_000, expires_at: 1_000 + HOUR },
  });
  assert.equal(freeMinor(h.state, "BWP", 0), 6_000);
});

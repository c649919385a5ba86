/**
 * A business's wallet (Business API 4.3 wallet; CONTRACT operator wallet credit): balances per
 * currency in integer minor units. Credits are idempotent by reference (the runtime's
 * idempotency key), so the same operator credit twice books once. A hold reserves part of the
 * money for one purpose (a batch's stops, Business API 4.2, 7): no other debit may spend it, the
 * debits naming it draw from it, and what is left goes back when it is released or expires.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  type OutboxAdd,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { decimal } from "../../src/domain/money.ts";
import {
  drawnOf,
  expire,
  freeMinor,
  notPositive,
  release,
  replyOf,
  reserve,
  tooLow,
  withHolds,
} from "./wallet_holds.ts";
import type { WalletCommand, WalletEvent, WalletReply, WalletState } from "./wallet_types.ts";

export type * from "./wallet_types.ts";
export { freeMinor, heldMinor } from "./wallet_holds.ts";

/**
 * What a transaction's idempotency key keeps of its reply: the transaction and the balances it
 * left, all that a replay's callers read (the charge's transaction id, a credit's new balance);
 * kept for ever, one a charge (issue 36: replies kept for idempotency are small).
 */
export function keptWalletReply(reply: WalletReply): WalletReply {
  const { transaction, state } = reply;
  return { state: { balances: state.balances }, transaction };
}

export const walletActor: ActorDefinition<WalletState, WalletCommand, WalletEvent, WalletReply> = {
  type: "wallet",
  version: 1,
  initial: { balances: {} },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "credit":
      case "debit":
        return transact(state, command, ctx);
      case "set_balance":
        return setBalance(state, command, ctx);
      case "reserve":
        return reserve(state, command, ctx);
      case "release":
        return release(state, command.hold, ctx);
      case "timer":
        return expire(state, command.payload, ctx);
      case "get":
        return accept([], replyOf);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "low_balance_reached":
        return { ...state, low: { ...state.low, [event.currency]: event.threshold_minor } };
      case "low_balance_cleared": {
        const { [event.currency]: _, ...low } = state.low ?? {};
        return { ...state, low };
      }
      case "hold_placed": {
        const { currency, amount_minor, expires_at } = event;
        return withHolds(state, {
          ...state.holds,
          [event.hold]: { currency, amount_minor, expires_at },
        });
      }
      case "hold_released": {
        const { [event.hold]: _, ...holds } = state.holds ?? {};
        return withHolds(state, holds);
      }
      case "wallet_transaction":
        return posted(state, event);
      default:
        return unreachable(event);
    }
  },
  outbox: (e) => e.kind === "low_balance_reached" ? [lowBalanceItem(e)] : [],
  project: (s) => ({ balances: s.balances }),
  keptReply: keptWalletReply,
};

/** A transaction's effect on its balance, and on the hold it drew from. */
function posted(
  state: WalletState,
  event: Extract<WalletEvent, { kind: "wallet_transaction" }>,
): WalletState {
  const t = event.transaction;
  const delta = t.kind === "credit" ? t.amount_minor : -t.amount_minor;
  // The transactions themselves are the event log's (GET /business/wallet/transactions reads
  // it): a list of them here would be written again at every charge, and nothing reads it.
  const next = {
    ...state,
    balances: { ...state.balances, [t.currency]: (state.balances[t.currency] ?? 0) + delta },
  };
  const hold = event.drawn && state.holds?.[event.drawn.hold];
  if (!event.drawn || !hold) return next;
  const left = { ...hold, amount_minor: hold.amount_minor - event.drawn.amount_minor };
  return withHolds(next, { ...state.holds, [event.drawn.hold]: left });
}

/**
 * A credit, or a debit within the free money and the credit limit (Business API 4.3, 3.1): the
 * part its hold pays was set aside for it, the rest must not spend another hold's money.
 */
function transact(
  state: WalletState,
  command: Extract<WalletCommand, { kind: "credit" | "debit" }>,
  ctx: Ctx,
): Decision<WalletState, WalletEvent, WalletReply> {
  const cur = command.currency, amount = command.amount_minor;
  if (!Number.isSafeInteger(amount) || amount <= 0) return notPositive(amount, cur);
  if (command.kind === "credit") return post(state, command, null, ctx);
  const drawn = drawnOf(state, command, amount);
  const fromFree = amount - (drawn?.amount_minor ?? 0);
  const limitMinor = command.limit_minor ?? 0;
  const free = freeMinor(state, cur, limitMinor);
  if (fromFree > 0 && free < fromFree) return tooLow(state, cur, fromFree, { free, limitMinor });
  return post(state, command, drawn, ctx);
}

/**
 * One transaction to book, as a credit or a debit command asks it: a debit always carries its
 * low-balance watch (a watch or null), whether its hold or the free money pays it.
 */
type Posting =
  | Extract<WalletCommand, { kind: "credit" }>
  | Omit<Extract<WalletCommand, { kind: "debit" }>, "limit_minor" | "hold">;

/** Books one transaction (checked by the caller), with the low-balance notice it calls for. */
function post(
  state: WalletState,
  command: Posting,
  drawn: { hold: string; amount_minor: number } | null,
  ctx: Ctx,
): Decision<WalletState, WalletEvent, WalletReply> {
  const { kind, amount_minor, currency, reference, by } = command;
  const transaction = {
    id: ctx.newId("wtx"),
    kind,
    amount_minor,
    currency,
    reference,
    by,
    at: ctx.now,
  };
  const after = (state.balances[currency] ?? 0) +
    (kind === "credit" ? amount_minor : -amount_minor);
  return accept(
    [
      { kind: "wallet_transaction", transaction, ...(drawn ? { drawn } : {}) },
      ...lowBalance(state, command, after, { at: ctx.now, transaction_id: transaction.id }),
    ],
    (s) => ({ state: s, transaction }),
  );
}

/**
 * The adjustment that brings one balance to the value asked; none when it is already there. The
 * sandbox's test wallet (4.4) is set as asked, whatever holds it has.
 */
function setBalance(
  state: WalletState,
  command: Extract<WalletCommand, { kind: "set_balance" }>,
  ctx: Ctx,
): Decision<WalletState, WalletEvent, WalletReply> {
  const { balance_minor, currency, reference, by, low_balance } = command;
  if (!Number.isSafeInteger(balance_minor) || balance_minor < 0) {
    return reject("validation_failed", `balance must not be negative: ${balance_minor}`);
  }
  const now = state.balances[currency] ?? 0;
  const delta = balance_minor - now;
  if (delta === 0) return accept([], replyOf);
  if (command.below_minor !== undefined && now >= command.below_minor) return accept([], replyOf);
  const booked = { amount_minor: Math.abs(delta), currency, reference, by };
  return post(
    state,
    delta > 0 ? { kind: "credit", ...booked } : { kind: "debit", ...booked, low_balance },
    null,
    ctx,
  );
}

/**
 * spec: business 4.3, 6 wallet.low_balance ("fell below the configured threshold"): a debit that
 * takes the balance from at or above the threshold to below it is notified, once per crossing;
 * any transaction that brings it back to the threshold notified re-arms it. A threshold changed
 * since the notice is a threshold of its own: lowered, a fall below it is a new crossing; raised
 * above a balance already below it, nothing has fallen until the balance rises to it again.
 */
function lowBalance(
  state: WalletState,
  command: Posting,
  after: number,
  fall: { readonly at: number; readonly transaction_id: string },
): WalletEvent[] {
  const cur = command.currency;
  const notified = state.low?.[cur];
  const watch = command.kind === "debit" ? command.low_balance : null;
  if (notified !== undefined && after >= notified) {
    return [{ kind: "low_balance_cleared", currency: cur }];
  }
  const before = state.balances[cur] ?? 0;
  if (!watch || before < watch.threshold_minor || after >= watch.threshold_minor) return [];
  return [{
    kind: "low_balance_reached",
    currency: cur,
    balance_minor: after,
    threshold_minor: watch.threshold_minor,
    watch,
    ...fall,
  }];
}

/** The business webhook item (Business API 2.7 envelope fields) of a low balance. */
function lowBalanceItem(e: Extract<WalletEvent, { kind: "low_balance_reached" }>): OutboxAdd {
  return {
    outbox: e.watch.outbox,
    payload: {
      business_id: e.watch.business_id,
      // One fall, one id: named by the debit that made it, as two falls (a refund between them)
      // may share a millisecond, and an id named by the time alone sent the second as the first.
      event_id: e.transaction_id === undefined
        ? `wallet:${e.currency}:low_balance:${e.at}`
        : `wallet:${e.currency}:low_balance:${e.transaction_id}`,
      event: "wallet.low_balance",
      external_reference: null,
      occurred_at: e.at,
      data: {
        currency: e.currency,
        balance: decimal(e.balance_minor, e.currency),
        threshold: decimal(e.threshold_minor, e.currency),
      },
    },
  };
}

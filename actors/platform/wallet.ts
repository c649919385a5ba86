/**
 * A business's wallet (Business API 4.3 wallet; CONTRACT operator wallet credit): balances per
 * currency in integer minor units. Credits are idempotent by reference (the runtime's
 * idempotency key), so the same operator credit twice books once.
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
import { decimal, formatMinor } from "../../src/domain/money.ts";

export interface WalletTransaction {
  readonly id: string;
  readonly kind: "credit" | "debit";
  readonly amount_minor: number;
  readonly currency: string;
  readonly reference: string;
  readonly by: string;
  readonly at: number;
}

export interface WalletState {
  readonly balances: Readonly<Record<string, number>>;
  /**
   * The threshold each currency fell below and was notified of (Business API 6 wallet.low_balance):
   * notified once, and again only after the balance has risen to it.
   */
  readonly low?: Readonly<Record<string, number>>;
}

/** Who hears that a debit took the balance below the business's threshold, and how. */
export interface LowBalanceWatch {
  readonly threshold_minor: number;
  readonly business_id: string;
  /** The outbox of the business's webhook events (the wallet names no document). */
  readonly outbox: string;
}

export type WalletCommand =
  | { kind: "credit"; amount_minor: number; currency: string; reference: string; by: string }
  | {
    kind: "debit";
    amount_minor: number;
    currency: string;
    reference: string;
    by: string;
    /** How far below zero the balance may go (billing on credit); default 0. */
    limit_minor?: number;
    /**
     * Who hears that this debit took the balance below the business's threshold; null when none
     * is set. Never left out: every debit of a business wallet is watched (Business API 6).
     */
    low_balance: LowBalanceWatch | null;
  }
  | {
    /**
     * Sets one currency's balance exactly (the sandbox test wallet, Business API 4.4): the
     * difference is booked as a credit or a debit, so the ledger explains the new balance.
     */
    kind: "set_balance";
    balance_minor: number;
    currency: string;
    reference: string;
    by: string;
    /** The watch of the debit it may book (as a debit's). */
    low_balance: LowBalanceWatch | null;
  }
  | { kind: "get" };

export type WalletEvent =
  | { kind: "wallet_transaction"; transaction: WalletTransaction }
  | {
    kind: "low_balance_reached";
    currency: string;
    balance_minor: number;
    threshold_minor: number;
    watch: LowBalanceWatch;
    at: number;
  }
  | { kind: "low_balance_cleared"; currency: string };

export type WalletReply = { state: WalletState; transaction: WalletTransaction | null };

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
      case "get":
      case "timer":
        return accept([], (s) => ({ state: s, transaction: null }));
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    if (event.kind === "low_balance_reached") {
      return { ...state, low: { ...state.low, [event.currency]: event.threshold_minor } };
    }
    if (event.kind === "low_balance_cleared") {
      const { [event.currency]: _, ...low } = state.low ?? {};
      return { ...state, low };
    }
    const t = event.transaction;
    const delta = t.kind === "credit" ? t.amount_minor : -t.amount_minor;
    // The transactions themselves are the event log's (GET /business/wallet/transactions reads
    // it): a list of them here would be written again at every charge, and nothing reads it.
    return {
      balances: { ...state.balances, [t.currency]: (state.balances[t.currency] ?? 0) + delta },
      ...(state.low ? { low: state.low } : {}),
    };
  },
  outbox: (e) => e.kind === "low_balance_reached" ? [lowBalanceItem(e)] : [],
  project: (s) => ({ balances: s.balances }),
  keptReply: keptWalletReply,
};

/** A credit, or a debit within the balance and the credit limit (Business API 4.3, 3.1). */
function transact(
  state: WalletState,
  command: Extract<WalletCommand, { kind: "credit" | "debit" }>,
  ctx: Ctx,
): Decision<WalletState, WalletEvent, WalletReply> {
  // spec: courier 9.4: amounts are decimals in the stated currency, in refusals too.
  const cur = command.currency;
  const money = (minor: number) => `${formatMinor(minor, cur)} ${cur}`;
  if (!Number.isSafeInteger(command.amount_minor) || command.amount_minor <= 0) {
    const given = Number.isSafeInteger(command.amount_minor)
      ? money(command.amount_minor)
      : `${command.amount_minor}`;
    return reject("validation_failed", `amount must be positive: ${given}`);
  }
  const balance = state.balances[cur] ?? 0;
  const limit = command.kind === "debit" ? command.limit_minor ?? 0 : 0;
  if (command.kind === "debit" && balance + limit < command.amount_minor) {
    return reject(
      "insufficient_balance",
      `wallet balance too low: available ${money(balance)}, needed ${money(command.amount_minor)}`,
    );
  }
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
  const after = balance + (kind === "credit" ? amount_minor : -amount_minor);
  return accept(
    [
      { kind: "wallet_transaction", transaction },
      ...lowBalance(state, command, after, ctx.now),
    ],
    (s) => ({ state: s, transaction }),
  );
}

/** The adjustment that brings one balance to the value asked; none when it is already there. */
function setBalance(
  state: WalletState,
  command: Extract<WalletCommand, { kind: "set_balance" }>,
  ctx: Ctx,
): Decision<WalletState, WalletEvent, WalletReply> {
  const { balance_minor, currency, reference, by, low_balance } = command;
  if (!Number.isSafeInteger(balance_minor) || balance_minor < 0) {
    return reject("validation_failed", `balance must not be negative: ${balance_minor}`);
  }
  const delta = balance_minor - (state.balances[currency] ?? 0);
  if (delta === 0) return accept([], (s) => ({ state: s, transaction: null }));
  const booked = { amount_minor: Math.abs(delta), currency, reference, by };
  return transact(
    state,
    delta > 0 ? { kind: "credit", ...booked } : { kind: "debit", ...booked, low_balance },
    ctx,
  );
}

/**
 * spec: business 6 wallet.low_balance: a debit that takes the balance below the threshold is
 * notified once; any transaction that brings it back to the threshold re-arms it.
 */
function lowBalance(
  state: WalletState,
  command: Extract<WalletCommand, { kind: "credit" | "debit" }>,
  after: number,
  at: number,
): WalletEvent[] {
  const cur = command.currency;
  const notified = state.low?.[cur];
  if (notified !== undefined) {
    return after >= notified ? [{ kind: "low_balance_cleared", currency: cur }] : [];
  }
  const watch = command.kind === "debit" ? command.low_balance : null;
  if (!watch || after >= watch.threshold_minor) return [];
  return [{
    kind: "low_balance_reached",
    currency: cur,
    balance_minor: after,
    threshold_minor: watch.threshold_minor,
    watch,
    at,
  }];
}

/** The business webhook item (Business API 2.7 envelope fields) of a low balance. */
function lowBalanceItem(e: Extract<WalletEvent, { kind: "low_balance_reached" }>): OutboxAdd {
  return {
    outbox: e.watch.outbox,
    payload: {
      business_id: e.watch.business_id,
      event_id: `wallet:${e.currency}:low_balance:${e.at}`,
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

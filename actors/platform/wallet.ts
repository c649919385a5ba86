/**
 * A business's wallet (Business API 4.3 wallet; CONTRACT operator wallet credit): balances per
 * currency in integer minor units. Credits are idempotent by reference (the runtime's
 * idempotency key), so the same operator credit twice books once.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import { formatMinor } from "../../src/domain/money.ts";

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
  /** The most recent transactions; the full list is in the event log and Postgres. */
  readonly recent: readonly WalletTransaction[];
}

const RECENT_MAX = 50;

export type WalletCommand =
  | { kind: "credit"; amount_minor: number; currency: string; reference: string; by: string }
  | { kind: "debit"; amount_minor: number; currency: string; reference: string; by: string }
  | { kind: "get" };

export type WalletEvent = { kind: "wallet_transaction"; transaction: WalletTransaction };

export type WalletReply = { state: WalletState; transaction: WalletTransaction | null };

export const walletActor: ActorDefinition<WalletState, WalletCommand, WalletEvent, WalletReply> = {
  type: "wallet",
  version: 1,
  initial: { balances: {}, recent: [] },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "credit":
      case "debit": {
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
        if (command.kind === "debit" && balance < command.amount_minor) {
          return reject(
            "insufficient_balance",
            `wallet balance too low: available ${money(balance)}, needed ${
              money(command.amount_minor)
            }`,
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
        return accept(
          [{ kind: "wallet_transaction", transaction }],
          (s) => ({ state: s, transaction }),
        );
      }
      case "get":
      case "timer":
        return accept([], (s) => ({ state: s, transaction: null }));
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    const t = event.transaction;
    const delta = t.kind === "credit" ? t.amount_minor : -t.amount_minor;
    return {
      balances: { ...state.balances, [t.currency]: (state.balances[t.currency] ?? 0) + delta },
      recent: [t, ...state.recent].slice(0, RECENT_MAX),
    };
  },
  project: (s) => ({ balances: s.balances }),
};

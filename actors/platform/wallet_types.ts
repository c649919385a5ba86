/**
 * The wallet's messages and state (actors/platform/wallet.ts): balances per currency in integer
 * minor units, the holds on them, and the transactions that move them (Business API 4.3).
 */

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
  /** Money held for one purpose, by the hold's id (absent: none). */
  readonly holds?: Readonly<Record<string, WalletHold>>;
}

/** Money reserved in one currency: spendable only by the debits that name the hold. */
export interface WalletHold {
  readonly currency: string;
  /** What is left of it: the debits naming it have drawn the rest. */
  readonly amount_minor: number;
  /** Its timer releases what is left then, so an abandoned purpose locks nothing for good. */
  readonly expires_at: number;
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
     * is set. Never left out: every debit of a business wallet is watched (Business API 6), one
     * its hold pays too (the posted balance falls all the same).
     */
    low_balance: LowBalanceWatch | null;
    /** The hold the debit draws from first (a batch's stop); absent or spent: the free money. */
    hold?: string;
  }
  | {
    /**
     * Holds `amount_minor` out of the free money (balance + limit - other holds) for `hold_ms`,
     * or is refused insufficient_balance; a hold already placed under the id is answered as is.
     */
    kind: "reserve";
    hold: string;
    amount_minor: number;
    currency: string;
    limit_minor?: number;
    hold_ms: number;
    /**
     * A hold of the same purpose's earlier attempt (a batch's claim released and claimed again):
     * given back in this same turn, its money counted free for this one, so the money moves to
     * the new hold without another booking taking it in between.
     */
    replaces?: string;
  }
  | { kind: "release"; hold: string }
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
    /**
     * Only when the balance is below this (a sandbox top-up, Business API 8), judged in the
     * wallet's turn: two top-ups at once book one credit, not two of the difference each read.
     */
    below_minor?: number;
  }
  | { kind: "get" };

export type WalletEvent =
  | {
    kind: "wallet_transaction";
    transaction: WalletTransaction;
    /** The part of a debit its hold paid (the rest came from the free money). */
    drawn?: { readonly hold: string; readonly amount_minor: number };
  }
  | {
    kind: "hold_placed";
    hold: string;
    currency: string;
    amount_minor: number;
    expires_at: number;
    at: number;
  }
  | {
    kind: "hold_released";
    hold: string;
    /** What was left of it, free again. */
    amount_minor: number;
    reason: "released" | "expired";
    at: number;
  }
  | {
    kind: "low_balance_reached";
    currency: string;
    balance_minor: number;
    threshold_minor: number;
    watch: LowBalanceWatch;
    at: number;
    /** The debit that took the balance below (absent on events stored before it was kept). */
    transaction_id?: string;
  }
  | { kind: "low_balance_cleared"; currency: string };

export type WalletReply = { state: WalletState; transaction: WalletTransaction | null };

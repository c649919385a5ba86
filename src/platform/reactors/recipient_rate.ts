/**
 * How many pumped attempts one recipient of one tenant has been sent this second (issue 42 item
 * 4): a backlog made due at once (an endpoint set hours into a wait) goes out at a bounded rate.
 * Counted by the clock's second, on the injected clock; only this second's counts are kept.
 */

/**
 * The pace the engine's synchronous selection asks (deliver.ts): `take` decides at once. A pace
 * shared by several instances (shared_recipient_rate.ts) is given, before a pump, the backlog
 * waiting per recipient (`reserve`), and takes from the database the budget `take` then spends.
 */
export interface RecipientPace {
  /** Counts one attempt to `recipient` at `now`; false, counting none, when none may go now. */
  take(recipient: string, now: number): boolean;
  /** Before a pump: `waiting` backlog attempts per recipient (never rejects). */
  reserve?(waiting: ReadonlyMap<string, number>, now: number): Promise<void>;
}

export class RecipientRate implements RecipientPace {
  readonly #perSecond: number;
  #second = Number.NaN;
  readonly #counts = new Map<string, number>();

  constructor(perSecond: number) {
    this.#perSecond = perSecond;
  }

  take(recipient: string, now: number): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#counts.clear();
    }
    const sent = this.#counts.get(recipient) ?? 0;
    if (sent >= this.#perSecond) return false;
    this.#counts.set(recipient, sent + 1);
    return true;
  }
}

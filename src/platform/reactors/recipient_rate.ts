/**
 * How many pumped attempts one recipient of one tenant has been sent this second (issue 42 item
 * 4): a backlog made due at once (an endpoint set hours into a wait) goes out at a bounded rate.
 * Counted by the clock's second, on the injected clock; only this second's counts are kept.
 */
export class RecipientRate {
  readonly #perSecond: number;
  #second = Number.NaN;
  readonly #counts = new Map<string, number>();

  constructor(perSecond: number) {
    this.#perSecond = perSecond;
  }

  /** Counts one attempt to `recipient` at `now`; false, counting none, when its second's are spent. */
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

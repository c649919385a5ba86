/** The injected clock: `system` in production, `manual` in tests and under CLOCK=manual. */
export interface Clock {
  readonly kind: "system" | "manual";
  now(): number;
}

export class SystemClock implements Clock {
  readonly kind = "system";
  now(): number {
    return Date.now();
  }
}

/** Time moves only when told to; the scheduler fires due timers after each advance. */
export class ManualClock implements Clock {
  readonly kind = "manual";
  #now: number;
  constructor(start: number = Date.parse("2026-11-02T08:00:00Z")) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  /** Moves time forward; never backwards, so deadlines stay monotonic. */
  advanceBy(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance must be >= 0: ${ms}`);
    this.#now += Math.floor(ms);
    return this.#now;
  }
}

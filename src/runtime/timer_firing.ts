/**
 * Firing the due timers (the runtime's fireDueTimers), one firing at a time. A caller during a
 * firing waits for it and then for one more, shared by every caller meanwhile: its clock's now may
 * be past what the firing under way read. Never answered at once while due timers wait on the
 * store: a caller polling in a loop (a bench, the sandbox clock) would then run on settled promises
 * only, the event loop would never deliver the store's answers, and the firing's own commits would
 * wait as long as the loop ran (issue 39: the sandbox inbox bench stalled so).
 */
import type { Clock } from "./clock.ts";
import type { ActorStore, DueTimer, HeldPartitions } from "./store.ts";

/** Due timers read per store listing, and listings per firing (one firing's work is bounded). */
const TIMERS_PER_ROUND = 500;
const ROUNDS_MAX = 1_000;

export interface TimerFiringDeps {
  readonly store: ActorStore;
  readonly clock: Clock;
  /** Fires one due timer: its actor's command, or the timer dropped (an unknown actor type). */
  readonly fire: (t: DueTimer) => Promise<unknown>;
  readonly onError: (error: unknown, where: string) => void;
  /** Whether the runtime is closed: a firing stops at its next round. */
  readonly closed: () => boolean;
  /** The outbox sweep, after each firing on a manual clock (no sweep loop runs there). */
  readonly sweepOutboxes: () => Promise<unknown>;
  /** The partitions whose timers this instance fires: those it holds (issue 43 item 3). */
  readonly held: () => HeldPartitions;
}

export class TimerFiring {
  readonly #deps: TimerFiringDeps;
  #running: Promise<number> | null = null;
  /** The one more firing that callers during the one under way wait for. */
  #next: Promise<number> | null = null;

  constructor(deps: TimerFiringDeps) {
    this.#deps = deps;
  }

  /** No firing under way nor waited for. */
  get idle(): boolean {
    return this.#running === null && this.#next === null;
  }

  /** Fires every timer due by the clock's now, repeatedly, until none is due; answers how many. */
  fire(): Promise<number> {
    if (this.#running === null) {
      this.#running = this.#fireAllDue().finally(() => {
        this.#running = null;
      });
      return this.#running;
    }
    this.#next ??= this.#running.then(() => {}, () => {}).then(() => {
      this.#next = null;
      return this.fire();
    });
    return this.#next;
  }

  async #fireAllDue(): Promise<number> {
    const { store, clock, onError, closed } = this.#deps;
    let fired = 0;
    // A timer whose firing failed stays stored: tried again by the next firing, not at once (it
    // would fail as often as there are rounds), nor keeping the timers due after it waiting.
    const failed = new Set<string>();
    for (let round = 0; round < ROUNDS_MAX && !closed(); round++) {
      const listed = TIMERS_PER_ROUND + failed.size;
      const due = (await store.dueTimers(clock.now(), listed, this.#deps.held()))
        .filter((t) => !failed.has(timerKey(t)));
      if (due.length === 0) break;
      const results = await Promise.allSettled(due.map((t) => this.#deps.fire(t)));
      results.forEach((r, i) => {
        if (r.status === "fulfilled") return;
        failed.add(timerKey(due[i]!));
        onError(r.reason, "timer");
      });
      fired += due.length;
    }
    if (clock.kind !== "system" && !closed()) await this.#deps.sweepOutboxes();
    return fired;
  }
}

function timerKey(t: DueTimer): string {
  return `${t.at}\u0000${t.type}\u0000${t.id}\u0000${t.name}`;
}

/**
 * The runtime's periodic sweeps (runtime.ts `start`): recovery markers every MARKER_SWEEP_MS; on
 * a system clock, outbox items every OUTBOX_SWEEP_MS and due timers every `timerPollMs`. On a
 * manual clock, timers fire and failed outbox items are tried again when time is advanced.
 */
import { MARKER_SWEEP_MS, OUTBOX_SWEEP_MS } from "../limits.ts";
import type { Clock } from "./clock.ts";

/** What the loops run: the runtime's sweeps. */
export interface SweepWork {
  readonly clock: Clock;
  sweepOutboxes(): Promise<unknown>;
  sweepMarkers(minAgeMs?: number): Promise<unknown>;
  fireDueTimers(): Promise<unknown>;
}

type Loop = ReturnType<typeof setInterval>;

export class SweepLoops {
  #timers: Loop | undefined;
  #markers: Loop | undefined;
  #outboxes: Loop | undefined;

  start(
    w: SweepWork,
    onError: (error: unknown, where: string) => void,
    timerPollMs: number | undefined,
  ): void {
    const every = (ms: number, run: () => Promise<unknown>, where: string): Loop =>
      setInterval(() => run().catch((e) => onError(e, where)), ms);
    if (w.clock.kind === "system") {
      this.#outboxes = every(OUTBOX_SWEEP_MS, () => w.sweepOutboxes(), "outboxes");
    }
    // An actor that committed within the last interval is left to the next (markers.ts).
    const markers = () => w.sweepMarkers(MARKER_SWEEP_MS);
    this.#markers = every(MARKER_SWEEP_MS, markers, "recovery markers");
    if (w.clock.kind === "system" && timerPollMs !== undefined) {
      this.#timers = every(timerPollMs, () => w.fireDueTimers(), "timers");
    }
  }

  /** Stops firing timers and sweeping markers (a closing runtime, before its actors settle). */
  stopTimersAndMarkers(): void {
    clearInterval(this.#timers);
    clearInterval(this.#markers);
  }

  /** Stops sweeping outboxes (a closing runtime, once its actors settled). */
  stopOutboxes(): void {
    clearInterval(this.#outboxes);
  }
}

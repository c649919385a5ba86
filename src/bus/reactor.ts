/**
 * The one base of the work that follows a commit (ARCHITECTURE "Layout": reactors): a named
 * worker over the changes of one actor type, each change calling for units of work (an alert, a
 * crossing, a webhook event). Units are retried within the delivery, a unit still failing is
 * reported and its change deferred under the worker's name (src/bus/keyed.ts), so a crash or a
 * failure of minutes loses nothing, and work is idempotent by what it reports.
 *
 * A reactor's work is done once across the cluster (issue 43 item 3): it takes only the changes
 * of the partitions its runtime's placement holds (bus.ts HandledBy), in order per actor.
 */
import type { ActorChange, Bus, Holding } from "./bus.ts";
import { subjectPattern } from "./bus.ts";
import { type Deferral, type KeyedSubscription, subscribeUnits } from "./keyed.ts";
import type { RetryPolicy } from "./retry.ts";

/** What every reactor is built with. */
export interface ReactorOptions {
  /**
   * The runtime whose changes it hears (its bus prefix names them), and the partitions it holds:
   * the reactor handles those changes only (absent: every change, one instance alone).
   */
  readonly runtime: { readonly busPrefix: string; readonly placement?: Holding };
  readonly bus: Bus;
  /** Where a unit still failing after its retries is reported; `console.error` by default. */
  readonly onError?: (error: unknown, where: string) => void;
  readonly retry?: RetryPolicy;
  /** Where a change whose units still fail is kept to be tried again later. */
  readonly deferral?: Deferral;
}

/** What a reactor does with the changes of one actor type. */
export interface Reaction<T> {
  /** The worker's name, stable across versions: deferred work waits under it. */
  readonly worker: string;
  /** The actor type whose changes it hears. */
  readonly actorType: string;
  /** What one change calls for: a cheap look at its events. */
  unitsOf(change: ActorChange): readonly T[];
  work(unit: T, change: ActorChange): Promise<unknown>;
  /** The unit in a failure's report (`crossing of WB...`). */
  describe(unit: T, change: ActorChange): string;
  /**
   * A look at every change as it is heard, before its units (UnitWorker.observe): what must not
   * be repeated late. Deferred tries skip it.
   */
  observe?(change: ActorChange): void;
}

/** Reports a reactor's failure where its options say, else on the console under its name. */
export function reporter(
  options: Pick<ReactorOptions, "onError">,
  name: string,
): (error: unknown, where: string) => void {
  return (error, where) => {
    if (options.onError) options.onError(error, where);
    else console.error(`${name}: ${where}:`, error);
  };
}

/**
 * A reactor: subscribed at construction (before the runtime starts, so changes it republishes
 * reach it), one actor's changes in order and different actors side by side; close() stops
 * taking changes and waits for the work under way (retries included).
 */
export class UnitReactor<T> {
  readonly #changes: KeyedSubscription;

  constructor(options: ReactorOptions, reaction: Reaction<T>) {
    const report = reporter(options, reaction.worker.replaceAll("_", " "));
    this.#changes = subscribeUnits({
      bus: options.bus,
      pattern: subjectPattern(options.runtime.busPrefix, "*", reaction.actorType),
      worker: reaction.worker,
      unitsOf: (change) => reaction.unitsOf(change),
      work: (unit, change) => reaction.work(unit, change),
      report: (error, unit, change) => report(error, reaction.describe(unit, change)),
      retry: options.retry,
      deferral: options.deferral,
      observe: reaction.observe ? (change) => reaction.observe!(change) : undefined,
      handledBy: options.runtime.placement,
    });
  }

  async close(): Promise<void> {
    await this.#changes.close();
  }
}

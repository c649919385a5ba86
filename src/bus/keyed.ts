/**
 * A pipelined subscriber that handles the messages of different keys side by side and those of
 * one key in order: for workers whose every message costs round trips of its own (creating a
 * billing event, raising an alert), which taken one at a time fall further behind with every
 * booking once bookings come faster than one round trip each.
 */
import type { ActorChange, Bus, BusMessage, HandledBy } from "./bus.ts";
import { eachRetried, type RetryPolicy } from "./retry.ts";

/** A worker's work on one message; throws when it is not (all) done. */
export type WorkerRun = (message: BusMessage) => Promise<void>;

/**
 * Where a named worker's failed work is kept to be tried again on a durable schedule (the port;
 * the platform's deferred work implements it).
 */
export interface Deferral {
  register(worker: string, run: WorkerRun): void;
  defer(worker: string, message: BusMessage, error: unknown): Promise<void>;
}

/** Messages handled at once: enough to share group commits and batched lookups, bounded. */
const IN_FLIGHT_MAX = 256;

/** One actor's changes in order: the key of a change is its tenant and actor id. */
export function actorKeyOf(message: BusMessage): string {
  const change = message.payload as Partial<ActorChange>;
  return `${change.tenant}/${change.id}`;
}

export class KeyedHandler {
  readonly #run: (message: BusMessage) => Promise<void>;
  readonly #keyOf: (message: BusMessage) => string;
  /** What becomes of a message still waiting for a slot at close; dropped when unset. */
  readonly #onClosed: ((message: BusMessage) => Promise<void>) | undefined;
  /** The last message of each key being handled: the next one of that key waits for it. */
  readonly #byKey = new Map<string, Promise<void>>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #slots: (() => void)[] = [];
  #running = 0;
  #closed = false;

  constructor(
    run: (message: BusMessage) => Promise<void>,
    keyOf: (message: BusMessage) => string = actorKeyOf,
    onClosed?: (message: BusMessage) => Promise<void>,
  ) {
    this.#run = run;
    this.#keyOf = keyOf;
    this.#onClosed = onClosed;
  }

  /** The handler to subscribe with `{ pipelined: true }`: done with a message once it settles. */
  readonly handle = (message: BusMessage): Promise<void> => {
    const key = this.#keyOf(message);
    const handled = (this.#byKey.get(key) ?? Promise.resolve()).then(() => this.#slot(message));
    // The next message of the key waits for this one to settle, failed or not (the bus logs a
    // failure from the promise answered to it): one failure never takes the key's later ones.
    const settled = handled.then(() => {}, () => {});
    this.#byKey.set(key, settled);
    this.#inflight.add(settled);
    return handled.finally(() => {
      this.#inflight.delete(settled);
      if (this.#byKey.get(key) === settled) this.#byKey.delete(key);
    });
  };

  /**
   * Gives the messages still waiting for a slot to `onClosed` (or drops them) and waits for the
   * rest; unsubscribe first.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const release of this.#slots.splice(0)) release();
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  async #slot(message: BusMessage): Promise<void> {
    while (this.#running >= IN_FLIGHT_MAX && !this.#closed) {
      await new Promise<void>((resolve) => this.#slots.push(resolve));
    }
    if (this.#closed) {
      await this.#onClosed?.(message);
      return;
    }
    this.#running++;
    try {
      await this.#run(message);
    } finally {
      this.#running--;
      this.#slots.shift()?.();
    }
  }
}

/** A keyed subscription: closing it stops taking messages and waits for those under way. */
export interface KeyedSubscription {
  close(): Promise<void>;
}

/** A named worker whose failed work is deferred (src/platform/reactors/deferred.ts). */
export interface DeferredAs {
  readonly by: Deferral;
  /** The worker's name, stable across versions: deferred work waits under it. */
  readonly worker: string;
  /**
   * What a deferred try does with the message, when not all of what the subscription does (work
   * that must not be repeated late, such as noting a delivery due): the part that can fail.
   */
  readonly retry?: (message: BusMessage) => Promise<void>;
  /**
   * Whether the worker has anything to do with a message (a cheap look at its events): one a
   * close leaves waiting is deferred only then. Absent: every such message is.
   */
  readonly wants?: (message: BusMessage) => boolean;
}

/**
 * Subscribes `run` to `pattern` through a KeyedHandler (pipelined): different keys side by side,
 * one key's messages in order. With `deferred`, a message whose `run` throws (its work still
 * failing after its own retries), or that a close leaves waiting, is kept and tried again later
 * instead of being counted handled and lost. `handledBy`: who handles a change (bus.ts HandledBy;
 * absent, every instance).
 */
export function subscribeKeyed(
  bus: Bus,
  pattern: string,
  run: (message: BusMessage) => Promise<void>,
  deferred?: DeferredAs,
  handledBy?: HandledBy,
): KeyedSubscription {
  let keyed: KeyedHandler;
  if (deferred) {
    const { by, worker } = deferred;
    by.register(worker, deferred.retry ?? run);
    keyed = new KeyedHandler(
      async (message) => {
        try {
          await run(message);
        } catch (error) {
          await by.defer(worker, message, error);
        }
      },
      actorKeyOf,
      async (message) => {
        if (deferred.wants && !deferred.wants(message)) return;
        await by.defer(worker, message, new Error("stopped before it was handled"));
      },
    );
  } else keyed = new KeyedHandler(run);
  const subscription = bus.subscribe(
    pattern,
    keyed.handle,
    handledBy === undefined ? { pipelined: true } : { pipelined: true, handledBy },
  );
  return {
    async close() {
      subscription.unsubscribe();
      await keyed.close();
    },
  };
}

/** A worker over the units of work each change of its pattern calls for (subscribeUnits). */
export interface UnitWorker<T> {
  readonly bus: Bus;
  readonly pattern: string;
  /** Its name, stable across versions: deferred work waits under it. */
  readonly worker: string;
  /** What one change calls for (an alert, an event, a crossing); a cheap look at its events. */
  readonly unitsOf: (change: ActorChange) => readonly T[];
  readonly work: (unit: T, change: ActorChange) => Promise<unknown>;
  /** Where a unit still failing after its retries is reported. */
  readonly report: (error: unknown, unit: T, change: ActorChange) => void;
  readonly retry?: RetryPolicy | undefined;
  /** Where a message whose units still fail is kept to be tried again; absent: reported only. */
  readonly deferral?: Deferral | undefined;
  /**
   * A look at every change as it is heard, before its units: work that must not be repeated
   * late (noting an attempt due). A deferred try does the units only.
   */
  readonly observe?: ((change: ActorChange) => void) | undefined;
  /** Who handles a change (bus.ts HandledBy): a worker's, the partition's holder alone. */
  readonly handledBy?: HandledBy | undefined;
}

/**
 * Subscribes a worker keyed (subscribeKeyed): each unit of a change is retried and reported
 * (eachRetried), and with a deferral a change whose units still fail, or that a close leaves
 * waiting with units to do, is deferred under the worker's name.
 */
export function subscribeUnits<T>(w: UnitWorker<T>): KeyedSubscription {
  const units = (m: BusMessage) => {
    const change = m.payload as ActorChange;
    return eachRetried(
      w.unitsOf(change),
      (unit) => w.work(unit, change),
      (error, unit) => w.report(error, unit, change),
      `${w.worker} units of ${change.id}`,
      w.retry,
    );
  };
  const observe = w.observe;
  const run = observe
    ? (m: BusMessage) => {
      observe(m.payload as ActorChange);
      return units(m);
    }
    : units;
  return subscribeKeyed(
    w.bus,
    w.pattern,
    run,
    w.deferral
      ? {
        by: w.deferral,
        worker: w.worker,
        retry: units,
        wants: (m) => w.unitsOf(m.payload as ActorChange).length > 0,
      }
      : undefined,
    w.handledBy,
  );
}

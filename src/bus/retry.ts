/**
 * Bounded retries of what a bus handler does for one message, inside the delivery that brought
 * it. The bus counts a message handled (for `flush`) only once its handler settles, and the
 * runtime drops an actor's recovery marker only after a flush: so while the work is retried the
 * change stays covered, and a crash meanwhile republishes it at start. Before, a handler that
 * caught a transient failure (a dropped connection, a busy actor) logged it and the message
 * counted handled: the alert, the webhook event, the completion billing event was lost for good.
 *
 * The retry sits around each unit of work (one alert, one event), not around the whole handler in
 * the bus: a change carries several independent effects, and those already made are not made
 * again; and a pipelined handler (KeyedHandler) cannot be called again by the bus without putting
 * the message behind later ones of its key. Run inside a KeyedHandler, a retry holds only its own
 * key's later messages, never another key's nor another subscription's.
 *
 * Bounded (HANDLER_RETRY_DELAYS_MS): a lasting failure must not hold a flush, and so every
 * recovery marker, for ever. What still fails is reported and thrown (eachRetried), and the
 * worker's subscription defers the message (src/platform/reactors/deferred.ts): kept and tried again on a
 * durable schedule.
 */
import { HANDLER_RETRY_DELAYS_MS } from "../limits.ts";

export interface RetryPolicy {
  /** The wait before each further attempt, in order: one attempt more than there are waits. */
  readonly delaysMs: readonly number[];
}

export const HANDLER_RETRY: RetryPolicy = { delaysMs: HANDLER_RETRY_DELAYS_MS };

/** Every attempt failed; `cause` is the last failure. */
export class RetriesExhausted extends Error {
  override readonly name = "RetriesExhausted";
  constructor(readonly attempts: number, cause: unknown) {
    super(
      `failed ${attempts} times, last: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** Runs `work` until it succeeds or the policy's waits run out (then throws RetriesExhausted). */
export async function retried<T>(
  work: () => Promise<T>,
  policy: RetryPolicy = HANDLER_RETRY,
): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await work();
    } catch (error) {
      const wait = policy.delaysMs[attempt];
      if (wait === undefined) throw new RetriesExhausted(attempt + 1, error);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * The loop of a worker the bus feeds, over the units of work one message calls for (an alert,
 * an event, a crossing): each is retried (`retried`), each failure reported as it happens, and
 * all of them thrown once every unit was tried, so one failure never keeps the others from being
 * done; the message's subscription then defers it (src/platform/reactors/deferred.ts).
 */
export async function eachRetried<T>(
  units: readonly T[],
  work: (unit: T) => Promise<unknown>,
  report: (error: unknown, unit: T) => void,
  what: string,
  policy: RetryPolicy = HANDLER_RETRY,
): Promise<void> {
  const failures: unknown[] = [];
  for (const unit of units) {
    try {
      await retried(() => work(unit), policy);
    } catch (error) {
      report(error, unit);
      failures.push(error);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} ${what} failed`);
}

/**
 * A sync point on the change feed: a sentinel published after some changes reaches each
 * projection after them (one publisher's messages arrive in order, on NATS as in process), so
 * when a projection has written everything before the sentinel, a reader can rely on it.
 */
import { PROJECTION_WRITE_PACE_MS } from "../limits.ts";

const SYNC_TENANT = "__sync";
/** Matches every projection's subscription, the ledger's (`*.courier_client.*`) included. */
const SYNC_TYPE = "courier_client";

export function syncSubject(env: string, id: string): string {
  return `${env}.${SYNC_TENANT}.${SYNC_TYPE}.${id}`;
}

/** The sync id a payload carries, or null for an ordinary change. */
export function syncIdOf(payload: unknown): string | null {
  if (typeof payload !== "object" || payload === null || !("sync" in payload)) return null;
  const id = (payload as { sync: unknown }).sync;
  return typeof id === "string" ? id : null;
}

/** Waiters for sync sentinels, by id. */
export class SyncWaiters {
  readonly #waiting = new Map<string, () => void>();

  /** Resolves when `reached(id)` is called; register before publishing the sentinel. */
  wait(id: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }

  reached(id: string): void {
    this.#waiting.get(id)?.();
    this.#waiting.delete(id);
  }
}

/** How large one batch of a `WriteQueue` may grow (its first change always goes). */
export interface BatchLimits<T> {
  readonly itemsMax: number;
  /** A bound on the summed weight of the batch's changes, when each weighs `weightOf`. */
  readonly weightMax?: number;
  readonly weightOf?: (item: T) => number;
}

/**
 * SQLSTATE classes a later attempt can get past: connection, rollback (serialization, deadlock),
 * insufficient resources, operator intervention (shutdown, cancel), system error.
 */
const TRANSIENT_SQLSTATE_CLASSES: ReadonlySet<string> = new Set(["08", "40", "53", "57", "58"]);
/** The driver's and the socket's codes for a lost or refused connection. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
]);

/**
 * True for a failure that a later attempt can get past (the database restarting, a dropped
 * connection, a deadlock), false for one that would fail the same way again (bad data, a bug).
 */
export function isTransient(error: unknown): boolean {
  if (
    error instanceof Deno.errors.ConnectionRefused ||
    error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.ConnectionAborted || error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.NotConnected || error instanceof Deno.errors.TimedOut
  ) return true;
  const code = typeof error === "object" && error !== null && "code" in error
    ? (error as { code: unknown }).code
    : undefined;
  if (typeof code !== "string") return false;
  if (TRANSIENT_CODES.has(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
}

/** Wait before each retry of a batch that failed for a transient reason: 50 ms doubling to 5 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(5_000, 50 * 2 ** Math.min(attempt, 7));
}

/**
 * Writes a batch whole; should it fail for a lasting reason, writes its items one by one, so one
 * bad change keeps no other out, and reports each that still fails (the projections park it, see
 * parked_changes.ts). A transient failure, to write or to report, is thrown (`isTransient`): the
 * `WriteQueue` writes the batch again, and no change is lost.
 */
export async function writeFindingBad<T>(
  batch: readonly T[],
  write: (items: readonly T[]) => Promise<void>,
  report: (error: unknown, item: T) => void | Promise<void>,
): Promise<void> {
  try {
    return await write(batch);
  } catch (error) {
    if (isTransient(error)) throw error;
    if (batch.length === 1) return await report(error, batch[0]!);
  }
  for (const item of batch) {
    try {
      await write([item]);
    } catch (error) {
      if (isTransient(error)) throw error;
      await report(error, item);
    }
  }
}

/**
 * What a projection has received and not yet written, in delivery order, with the sync
 * sentinels among it. One batch is written at a time: the changes at the head, up to the next
 * sentinel, within the limits; `write` must report its own failures, except transient ones
 * (`isTransient`), which it throws: the batch is then written again after a wait, as often as it
 * takes, since a change counts as handled (and its recovery marker goes) only once written.
 * Each push answers once its change is written, and a sentinel is reached once everything before
 * it is.
 */
export class WriteQueue<T> {
  readonly #limits: BatchLimits<T>;
  readonly #write: (batch: T[]) => Promise<void>;
  readonly #delayMs: (attempt: number) => number;
  readonly #paceMs: number;
  readonly #syncs = new SyncWaiters();
  #queue: Queued<T>[] = [];
  /** The changes in the queue (its sentinels not counted), kept so backlog() is O(1). */
  #changes = 0;
  #writing: Promise<void> | null = null;
  #stopping = false;
  /** When the last batch began (performance.now), for the pace. */
  #lastWrite = -Infinity;
  /** Ends the pace's wait early: a sync (a flush) is never held back. */
  #endPace: (() => void) | null = null;

  constructor(
    limits: BatchLimits<T>,
    write: (batch: T[]) => Promise<void>,
    options: {
      retryDelayMs?: ((attempt: number) => number) | undefined;
      /** The pace (PROJECTION_WRITE_PACE_MS unless given). */
      paceMs?: number | undefined;
    } = {},
  ) {
    this.#limits = limits;
    this.#write = write;
    this.#delayMs = options.retryDelayMs ?? retryDelayMs;
    this.#paceMs = options.paceMs ?? PROJECTION_WRITE_PACE_MS;
  }

  push(item: T): Promise<void> {
    return this.#push((written) => ({ item, written, since: performance.now() }));
  }

  pushSync(id: string): Promise<void> {
    return this.#push((written) => ({ sync: id, written }));
  }

  /** The projection lag: changes received and not yet written, and how long the oldest waits. */
  backlog(): { changes: number; oldestMs: number } {
    const changes = this.#changes;
    // Asked before every write request (the lag's bound, app.ts): only sentinels come first.
    const oldest = changes === 0 ? undefined : this.#queue.find((q) => !("sync" in q));
    return {
      changes,
      oldestMs: oldest && "since" in oldest ? performance.now() - oldest.since : 0,
    };
  }

  /** Resolves once every change published before the sentinel `id` is written. */
  synced(id: string): Promise<void> {
    return this.#syncs.wait(id);
  }

  /** Resolves once everything pushed is written (or reported, or given up by `stop`). */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /**
   * Writes what succeeds, but retries no more: a change still failing is given up without
   * answering its push, so the bus never counts it handled and its recovery marker republishes
   * it after a restart.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#endPace?.();
    await this.idle();
  }

  #push(entry: (written: () => void) => Queued<T>): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const queued = entry(resolve);
    this.#queue.push(queued);
    if (!("sync" in queued)) this.#changes++;
    if ("sync" in queued) this.#endPace?.();
    this.#kick();
    return promise;
  }

  #kick(): void {
    if (this.#writing) return;
    this.#writing = this.#drain().finally(() => {
      this.#writing = null;
      // Pushed after the drain found the queue empty but before this ran: it saw a drain under
      // way and started none, so without this its change (or a sentinel) would wait for ever.
      if (this.#queue.length > 0) this.#kick();
    });
  }

  /**
   * Waits while the last batch began less than the pace ago, unless the queue
   * holds a full batch or a sync, or the queue is stopping: what arrives meanwhile joins the batch.
   */
  async #pace(): Promise<void> {
    const wait = this.#lastWrite + this.#paceMs - performance.now();
    if (wait <= 0 || this.#stopping || this.#queue.length >= this.#limits.itemsMax) return;
    if (this.#queue.some((q) => "sync" in q)) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.#endPace = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#endPace = null;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      if ("sync" in head) {
        this.#queue.shift();
        this.#syncs.reached(head.sync);
        head.written();
        continue;
      }
      await this.#pace();
      const { itemsMax, weightMax = Infinity, weightOf = () => 0 } = this.#limits;
      const batch: T[] = [];
      let weight = 0;
      for (const q of this.#queue) {
        if ("sync" in q || batch.length >= itemsMax) break;
        const w = weightOf(q.item);
        if (batch.length > 0 && weight + w > weightMax) break;
        batch.push(q.item);
        weight += w;
      }
      this.#lastWrite = performance.now();
      for (let attempt = 0;; attempt++) {
        try {
          await this.#write(batch);
          break;
        } catch (error) {
          if (this.#stopping) {
            this.#queue = [];
            this.#changes = 0;
            return;
          }
          console.warn(`projection write failed (attempt ${attempt + 1}), retrying:`, error);
          await new Promise((r) => setTimeout(r, this.#delayMs(attempt)));
        }
      }
      this.#changes -= batch.length;
      for (const t of this.#queue.splice(0, batch.length)) t.written();
    }
  }
}

type Queued<T> =
  | { readonly item: T; readonly written: () => void; readonly since: number }
  | { readonly sync: string; readonly written: () => void };

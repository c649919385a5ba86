/**
 * A sync point on the change feed: a sentinel published after some changes reaches each
 * projection after them (one publisher's messages arrive in order, on NATS as in process), so
 * when a projection has written everything before the sentinel, a reader can rely on it.
 */

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
 * What a projection has received and not yet written, in delivery order, with the sync
 * sentinels among it. One batch is written at a time: the changes at the head, up to the next
 * sentinel, within the limits; `write` must report its own failures. Each push answers once its
 * change is written, and a sentinel is reached once everything before it is.
 */
export class WriteQueue<T> {
  readonly #limits: BatchLimits<T>;
  readonly #write: (batch: T[]) => Promise<void>;
  readonly #syncs = new SyncWaiters();
  #queue: Queued<T>[] = [];
  #writing: Promise<void> | null = null;

  constructor(limits: BatchLimits<T>, write: (batch: T[]) => Promise<void>) {
    this.#limits = limits;
    this.#write = write;
  }

  push(item: T): Promise<void> {
    return this.#push((written) => ({ item, written }));
  }

  pushSync(id: string): Promise<void> {
    return this.#push((written) => ({ sync: id, written }));
  }

  /** Resolves once every change published before the sentinel `id` is written. */
  synced(id: string): Promise<void> {
    return this.#syncs.wait(id);
  }

  /** Resolves once everything pushed is written (or reported). */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #push(entry: (written: () => void) => Queued<T>): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#queue.push(entry(resolve));
    this.#writing ??= this.#drain().finally(() => {
      this.#writing = null;
    });
    return promise;
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
      const taken = this.#queue.splice(0, batch.length);
      try {
        await this.#write(batch);
      } finally {
        for (const t of taken) t.written();
      }
    }
  }
}

type Queued<T> =
  | { readonly item: T; readonly written: () => void }
  | { readonly sync: string; readonly written: () => void };

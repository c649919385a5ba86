/**
 * One outbox handled by a feature's reactor until it closes: `close()` stops taking items (they
 * wait in the store for the sweep or the next start) and waits for those being handled, so a
 * closing environment never cuts a handling short.
 */
import type { OutboxHandler, OutboxRetry } from "./outbox.ts";

/** What registers an outbox's handler (the actor runtime); answers the release. */
export interface OutboxRegistrar {
  handleOutbox(outbox: string, handler: OutboxHandler, retry?: OutboxRetry): () => void;
}

export class OutboxHandling {
  readonly #release: () => void;
  readonly #handling = new Set<Promise<void>>();

  constructor(
    runtime: OutboxRegistrar,
    outbox: string,
    handler: OutboxHandler,
    retry?: OutboxRetry,
  ) {
    this.#release = runtime.handleOutbox(outbox, (item) => this.#tracked(handler(item)), retry);
  }

  /** Stops taking items and waits for those being handled. */
  async close(): Promise<void> {
    this.#release();
    await Promise.all([...this.#handling]);
  }

  async #tracked(work: Promise<void>): Promise<void> {
    this.#handling.add(work);
    try {
      await work;
    } finally {
      this.#handling.delete(work);
    }
  }
}

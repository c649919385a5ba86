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

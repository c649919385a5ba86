/**
 * The replies kept under idempotency keys, as an actor's batch needs them: read from the store,
 * ahead of time while the actor is busy, and completed from the replies of its latest commits.
 */
import type { Cell } from "./cell.ts";
import type { Envelope, Prefetched } from "./plan.ts";
import type { ActorStore } from "./store.ts";

/**
 * Stored replies for the batch's idempotency keys. A busy actor reads them ahead, while its
 * previous commit is in flight (prefetchSoon); otherwise the read would queue behind the next
 * group commit and the actor would make only every other one. A read made ahead may predate
 * this actor's latest commits: their replies are added from memory. A retry reads afresh.
 */
export async function storedReplies(
  store: ActorStore,
  cell: Cell,
  batch: readonly Envelope[],
  attempt: number,
): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  const unread: string[] = [];
  for (const e of batch) {
    const key = e.idempotencyKey;
    if (key === undefined) continue;
    const ahead = attempt === 0 && e.prefetched ? await e.prefetched : null;
    // Usable when every commit made since the read is still remembered.
    if (ahead === null || cell.forgottenUpTo > ahead.since) {
      unread.push(key);
      continue;
    }
    if (ahead.found.has(key)) found.set(key, ahead.found.get(key));
    for (const r of cell.recentReplies) {
      if (r.n > ahead.since && r.replies.has(key)) found.set(key, r.replies.get(key));
    }
  }
  if (unread.length > 0) {
    for (const [k, v] of await store.replies(cell.key, unread)) found.set(k, v);
  }
  return found;
}

/** Reads ahead, in one store read per turn of the event loop, the replies of waiting commands. */
export function prefetchSoon(store: ActorStore, cell: Cell, envelope: Envelope): void {
  cell.toPrefetch.push(envelope);
  if (cell.toPrefetch.length > 1) return;
  queueMicrotask(() => {
    const waiting = cell.toPrefetch;
    cell.toPrefetch = [];
    const since = cell.committed;
    const read: Promise<Prefetched | null> = store
      .replies(cell.key, waiting.map((e) => e.idempotencyKey!))
      .then((found) => ({ since, found }), () => null); // a failed read is made again in turn
    for (const e of waiting) e.prefetched = read;
  });
}

/**
 * The durable outbox on Deno KV (ActorStore's outbox methods): items as the actor's commit wrote
 * them under outboxKey, and those waiting after a failed attempt under deferredKey, by when they
 * are next due, so a sweep lists the live ones and only the deferred ones due by then.
 */
import { lockRetried } from "./kv_file.ts";
import {
  deferredItemOf,
  deferredKey,
  OUTBOX,
  OUTBOX_DEFERRED,
  outboxItemOf,
  outboxKey,
  type StoredOutboxItem,
} from "./kv_layout.ts";
import type { ActorKey, OutboxItem } from "./store.ts";

/**
 * Items of one outbox, at most `limit`, in key order (by actor, then seq) among those read: up
 * to `limit` live ones and up to `limit` deferred ones due by `due` (all without it).
 */
export async function outboxItemsOf(
  kv: Deno.Kv,
  outbox: string,
  limit: number,
  holds: ((key: ActorKey) => boolean) | undefined,
  due?: number,
): Promise<OutboxItem[]> {
  const keep = (item: OutboxItem) => holds === undefined || holds(item);
  // Live items are due unless earlier code kept a later nextAt in their value: filtered here, in
  // memory, reading on until `limit` are kept.
  const filtered = holds !== undefined || due !== undefined;
  const live = await listed(
    kv.list<StoredOutboxItem>({ prefix: [OUTBOX, outbox] }, filtered ? {} : { limit }),
    outboxItemOf,
    (i) => keep(i) && (due === undefined || (i.nextAt ?? 0) <= due),
    limit,
  );
  const selector = due === undefined
    ? { prefix: [OUTBOX_DEFERRED, outbox] }
    : { start: [OUTBOX_DEFERRED, outbox], end: [OUTBOX_DEFERRED, outbox, due + 1] };
  const deferred = await listed(
    kv.list<StoredOutboxItem>(selector, holds ? {} : { limit }),
    deferredItemOf,
    keep,
    limit,
  );
  return [...live, ...deferred].sort(byKey).slice(0, limit);
}

async function listed(
  iter: Deno.KvListIterator<StoredOutboxItem>,
  itemOf: (key: Deno.KvKey, value: StoredOutboxItem) => OutboxItem,
  keep: (item: OutboxItem) => boolean,
  limit: number,
): Promise<OutboxItem[]> {
  const found: OutboxItem[] = [];
  for await (const e of iter) {
    const item = itemOf(e.key, e.value);
    if (!keep(item)) continue;
    found.push(item);
    if (found.length >= limit) break;
  }
  return found;
}

function byKey(a: OutboxItem, b: OutboxItem): number {
  if (a.type !== b.type) return a.type < b.type ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.seq - b.seq || a.n - b.n;
}

/** The keys an item may be stored under: live, and deferred when it was read with a nextAt. */
function keysOf(item: OutboxItem): Deno.KvKey[] {
  const live = outboxKey(item);
  return item.nextAt === undefined ? [live] : [live, deferredKey(item, item.nextAt)];
}

/** Removes handled items wherever they are: one first handled is one delete, as ever. */
export async function removeOutboxItemsOf(kv: Deno.Kv, items: readonly OutboxItem[]) {
  // Deno KV takes at most 1,000 mutations in one atomic operation (two keys an item at most).
  for (let i = 0; i < items.length; i += 500) {
    await lockRetried(() => {
      const op = kv.atomic();
      for (const item of items.slice(i, i + 500)) for (const k of keysOf(item)) op.delete(k);
      return op.commit();
    });
  }
}

/**
 * Moves a failed item to wait under its next due time, in one atomic operation checked on where
 * it was: an item removed (handled) or written anew meanwhile is left as it is.
 */
export async function retryOutboxItemOf(
  kv: Deno.Kv,
  item: OutboxItem,
  attempts: number,
  nextAt: number,
): Promise<void> {
  const to = deferredKey(item, nextAt);
  await lockRetried(async () => {
    const found = (await kv.getMany<StoredOutboxItem[]>(keysOf(item)))
      .filter((e) => e.versionstamp !== null);
    if (found.length === 0) return; // handled and removed meanwhile: stays gone
    const op = kv.atomic();
    for (const e of found) {
      op.check(e);
      if (item.nextAt !== nextAt || e.key[0] !== OUTBOX_DEFERRED) op.delete(e.key);
    }
    await op.set(to, { ...found[0]!.value, attempts, nextAt }).commit();
  });
}

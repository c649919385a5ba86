/**
 * What one write adds to one transaction of the actor store on Postgres (pg_store.ts), in the
 * terms the group committer sums against the store limits (src/limits.ts GROUP_COMMIT_*):
 *
 * - `checks`: rows whose version or absence the commit checks (the actor, each unique key it
 *   claims): each is a row lock the transaction holds to its end.
 * - `mutations`: rows inserted, updated or deleted (the events of a write are one row).
 * - `bytes`: UTF-8 bytes of every value and key the transaction sends.
 * - `keyBytes`, `keyMax`: UTF-8 bytes of the keys set, and the longest: an index entry is one
 *   btree row of (index, key), which Postgres refuses past 2,704 bytes (STORE_KEY_BYTES_MAX
 *   keeps below it).
 *
 * Postgres itself would take far more in one transaction; these bounds keep one short, which a
 * distributed engine asks for: CockroachDB and YugabyteDB advise transactions of at most about a
 * thousand rows and a few MB, as one that holds its locks longer makes every other writer of
 * those rows wait or retry. So the limits Deno KV needs (900 rows, 100 checks, 700 KB) are also
 * the ones chosen here, and one command refused `too_large` on one store is refused on the other.
 */
import type { ActorWrite, CommitCost } from "./store.ts";

const encoder = new TextEncoder();
const ASCII = /^[\0-\x7f]*$/;

/** A string's UTF-8 length (ASCII, the usual key, counted without encoding it). */
export function utf8Bytes(s: string): number {
  return ASCII.test(s) ? s.length : encoder.encode(s).length;
}

/** Bytes of the fixed-width columns a row carries beside its strings (seq, at, bytes, version). */
const ROW_FIXED_BYTES = 24;
/** What an event's JSON in a row of events carries beside the event: its seq, at and bytes. */
const EVENT_FIELDS_BYTES = 64;

const replyCache = new WeakMap<ActorWrite, (string | null)[]>();

/** The write's kept replies as JSON text, made once (null: a reply of no value). */
export function replyTextsOf(w: ActorWrite): (string | null)[] {
  let texts = replyCache.get(w);
  if (!texts) {
    texts = w.replies.map((r) => r.reply === undefined ? null : JSON.stringify(r.reply));
    replyCache.set(w, texts);
  }
  return texts;
}

/** What one write costs in one Postgres transaction. */
export function pgWriteCost(w: ActorWrite): CommitCost {
  const actor = utf8Bytes(w.type) + utf8Bytes(w.id);
  let mutations = 1;
  let keyBytes = 0;
  let keyMax = actor;
  let bytes = actor + utf8Bytes(w.recordJson) + ROW_FIXED_BYTES;
  const key = (k: number) => {
    keyBytes += k;
    if (k > keyMax) keyMax = k;
  };
  if (w.events.length > 0) {
    // One row of the commit's events: each event's JSON as measured once when made (storedBytes,
    // at least its UTF-16 length), and its seq, at and bytes beside it.
    mutations++;
    bytes += actor + ROW_FIXED_BYTES;
    for (const e of w.events) bytes += e.bytes + EVENT_FIELDS_BYTES;
  }
  for (const i of w.indexSet) {
    mutations++;
    const k = utf8Bytes(i.index) + utf8Bytes(i.key);
    key(k);
    bytes += k + actor;
  }
  for (const i of w.indexDelete) {
    mutations++;
    bytes += utf8Bytes(i.index) + utf8Bytes(i.key);
  }
  for (const t of [...w.timerSet, ...w.timerDelete]) {
    mutations++;
    bytes += actor + utf8Bytes(t.name) + ROW_FIXED_BYTES;
  }
  for (const [i, r] of w.replies.entries()) {
    mutations++;
    const k = actor + utf8Bytes(r.key);
    key(k);
    bytes += k + utf8Bytes(replyTextsOf(w)[i] ?? "") + ROW_FIXED_BYTES;
  }
  if (w.unpublishedFrom !== null) {
    mutations++;
    bytes += actor + ROW_FIXED_BYTES;
  }
  for (const o of w.outbox ?? []) {
    mutations++;
    const k = utf8Bytes(o.outbox) + actor;
    key(k);
    bytes += k + utf8Bytes(o.tenant) + o.bytes + ROW_FIXED_BYTES;
  }
  // Its lease row, locked by the commit (pg_commit.ts fenceStatement): counted for each write.
  const checks = 1 + (w.indexClaims?.length ?? 0) + (w.fence ? 1 : 0);
  return { mutations, checks, bytes, keyBytes, keyMax };
}

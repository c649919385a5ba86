/**
 * How the actor store lays an actor out in Deno KV (values at most 64 KiB): the keys, a record
 * split into parts when it outgrows one value, events in chunks (a large one split too), the
 * kept replies split as a record is, and the mutations one write adds to an atomic commit (what
 * they cost: kv_cost.ts).
 */
import {
  EVENT_CHUNK_BYTES_MAX,
  IDEMPOTENCY_TTL_MS,
  REPLY_INLINE_BYTES_MAX,
  STATE_PART_BYTES,
} from "../limits.ts";
import {
  type ActorKey,
  type ActorWrite,
  type IndexTarget,
  type OutboxItem,
  storedBytes,
  type StoredEvent,
} from "./store.ts";

export const ACTOR = "a";
export const EVENTS = "e";
export const INDEX = "i";
export const TIMER = "t";
export const REPLY = "r";
export const UNPUBLISHED = "u";
export const STATE_PART = "p";
export const OUTBOX = "o";
/** Outbox items waiting after a failed attempt, by when they are next due (deferredKey). */
export const OUTBOX_DEFERRED = "d";
/** The UTF-8 parts of a kept reply too large for one value (keptRepliesOf). */
export const REPLY_PART = "q";
/** One-time passes over the store completed (ActorStore.passDone). */
export const PASS_DONE = "m";
/** A partition's lease: holder, epoch and expiry (kv_leases.ts). */
export const LEASE = "l";
/** A partition's holder and epoch alone, changed only by a take: what a fenced commit checks. */
export const FENCE = "f";
/** An instance's presence: alive until the time it holds. */
export const PRESENCE = "n";

/** What is stored of an outbox item under outboxKey (the rest is in its key). */
export interface StoredOutboxItem {
  readonly tenant: string;
  readonly at: number;
  readonly payload: unknown;
  readonly bytes: number;
  readonly requestId?: string;
  /**
   * Set once an attempt failed (ActorStore.retryOutboxItem); the hot path writes neither. Kept
   * under deferredKey; earlier code kept them under outboxKey, where they are still read.
   */
  readonly attempts?: number;
  readonly nextAt?: number;
}

/** Where an outbox item is stored: by outbox, so a sweep lists one outbox by prefix. */
export function outboxKey(i: Pick<OutboxItem, "outbox" | "type" | "id" | "seq" | "n">): Deno.KvKey {
  return [OUTBOX, i.outbox, i.type, i.id, i.seq, i.n];
}

/** The outbox item stored under `key` (outboxKey) as `value`. */
export function outboxItemOf(key: Deno.KvKey, value: StoredOutboxItem): OutboxItem {
  const [, outbox, type, id, seq, n] = key as [string, string, string, string, number, number];
  return { outbox, type, id, seq, n, ...value };
}

/**
 * Where an item waits after a failed attempt: by outbox, then when it is next due, so a sweep
 * reads only those due (a backlog of failing items is not read every sweep).
 */
export function deferredKey(
  i: Pick<OutboxItem, "outbox" | "type" | "id" | "seq" | "n">,
  nextAt: number,
): Deno.KvKey {
  return [OUTBOX_DEFERRED, i.outbox, nextAt, i.type, i.id, i.seq, i.n];
}

/** The outbox item stored under `key` (deferredKey) as `value`. */
export function deferredItemOf(key: Deno.KvKey, value: StoredOutboxItem): OutboxItem {
  const [, outbox, nextAt, type, id, seq, n] = key as [
    string,
    string,
    number,
    string,
    string,
    number,
    number,
  ];
  return { outbox, type, id, seq, n, ...value, nextAt };
}

/** Stored under the actor's key when its record is split into parts (STATE_PART_BYTES each). */
export interface SplitRecord {
  readonly parts: number;
}

/** Events of one commit, stored in one value under the first one's seq. */
export interface EventChunk {
  readonly items: readonly StoredEvent[];
}

/**
 * An event larger than a chunk, stored under its seq; its JSON follows as UTF-8 parts of
 * STATE_PART_BYTES under [seq, 0], [seq, 1], ... (after the head in key order, before the next seq).
 */
export interface SplitEvent {
  readonly seq: number;
  readonly at: number;
  readonly bytes: number;
  readonly parts: number;
}

/** One value of an actor's event log, stored under [EVENTS, type, id, ...key]. */
export interface EventEntry {
  readonly key: readonly number[];
  readonly value: EventChunk | SplitEvent | Uint8Array;
  /** What the store keeps of it (storedBytes; a part's own length). */
  readonly bytes: number;
}

/**
 * Bytes a chunk keeps around each event (its seq, at and bytes and their names, as V8 serialises
 * them: some 45), and about what a split event's head takes.
 */
export const EVENT_ITEM_BYTES = 64;

/** Bytes an outbox item's value keeps beside its payload (tenant, at, bytes and their names). */
export const OUTBOX_ITEM_BYTES = 64;

/** What addWrite uses of an atomic operation: a commit's, or a tally of one (kv_cost.ts). */
export interface KvOps {
  check(...checks: Deno.AtomicCheck[]): unknown;
  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): unknown;
  delete(key: Deno.KvKey): unknown;
}

/** The mutations and checks of one write, added to an atomic operation. */
export function addWrite(op: KvOps, w: ActorWrite, partsBefore: number): void {
  op.check({ key: [ACTOR, w.type, w.id], versionstamp: w.expected });
  const parts = partsOf(w);
  // The record as the JSON text the runtime already made: a string is copied into the value as
  // it is, where an object would be walked again by the structured serializer on every commit.
  if (parts.length === 0) op.set([ACTOR, w.type, w.id], w.recordJson);
  else {
    op.set([ACTOR, w.type, w.id], { parts: parts.length } satisfies SplitRecord);
    parts.forEach((part, i) => op.set([STATE_PART, w.type, w.id, i], part));
  }
  for (let i = parts.length; i < partsBefore; i++) op.delete([STATE_PART, w.type, w.id, i]);
  for (const e of eventEntriesOf(w)) op.set([EVENTS, w.type, w.id, ...e.key], e.value);
  for (const i of w.indexDelete) op.delete([INDEX, i.index, i.key]);
  const target: IndexTarget = { type: w.type, id: w.id, tenant: w.record.tenant };
  // A unique key taken meanwhile by another actor fails the commit (ActorDefinition.uniqueIndexes).
  for (const i of w.indexClaims ?? []) {
    op.check({ key: [INDEX, i.index, i.key], versionstamp: null });
  }
  for (const i of w.indexSet) op.set([INDEX, i.index, i.key], target);
  for (const t of w.timerDelete) op.delete([TIMER, t.at, w.type, w.id, t.name]);
  for (const t of w.timerSet) op.set([TIMER, t.at, w.type, w.id, t.name], true);
  for (const r of keptRepliesOf(w)) {
    // A reply and its parts expire together; a split one is read back only whole (kv_store.ts).
    const options = r.permanent ? {} : { expireIn: IDEMPOTENCY_TTL_MS };
    const head = r.parts.length === 0 ? r.reply : new Deno.KvU64(BigInt(r.parts.length));
    op.set([REPLY, w.type, w.id, r.key], head, options);
    r.parts.forEach((part, i) => op.set([REPLY_PART, w.type, w.id, r.key, i], part, options));
  }
  if (w.unpublishedFrom !== null) op.set([UNPUBLISHED, w.type, w.id], w.unpublishedFrom);
  for (const i of w.outbox ?? []) {
    const value: StoredOutboxItem = {
      tenant: i.tenant,
      at: i.at,
      payload: i.payload,
      bytes: i.bytes,
      ...(i.requestId === undefined ? {} : { requestId: i.requestId }),
    };
    op.set(outboxKey(i), value);
  }
}

/** The actor as the store names it among its split records. */
export function partsKey(key: ActorKey): string {
  return `${key.type}\u0000${key.id}`;
}

const partCache = new WeakMap<ActorWrite, Uint8Array[]>();

/**
 * A record that may not fit one value, as UTF-8 parts of STATE_PART_BYTES; none when it fits
 * whole. recordBytes counts UTF-16 units and Deno KV stores a string with any character past
 * Latin-1 at two bytes each, so past half a part the record is split to be sure.
 */
export function partsOf(w: ActorWrite): Uint8Array[] {
  let parts = partCache.get(w);
  if (!parts) {
    parts = w.recordBytes > STATE_PART_BYTES / 2 ? utf8Parts(w.recordJson) : [];
    partCache.set(w, parts);
  }
  return parts;
}

/** A JSON text as UTF-8 parts of STATE_PART_BYTES (a part may end mid-character). */
export function utf8Parts(json: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(json);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += STATE_PART_BYTES) {
    parts.push(bytes.slice(at, at + STATE_PART_BYTES));
  }
  return parts;
}

/** The JSON text of parts made by utf8Parts, decoded whole. */
export function joinParts(parts: readonly Uint8Array[]): string {
  const whole = new Uint8Array(parts.reduce((sum, b) => sum + b.length, 0));
  let at = 0;
  for (const b of parts) {
    whole.set(b, at);
    at += b.length;
  }
  return new TextDecoder().decode(whole);
}

/** A reply kept under an idempotency key as it is stored: whole, or as parts (none if whole). */
export interface KeptReply {
  readonly key: string;
  readonly reply: unknown;
  readonly permanent: boolean;
  readonly parts: readonly Uint8Array[];
  /** What the store keeps of it: its parts' bytes, or its JSON's (storedBytes). */
  readonly bytes: number;
}

const replyCache = new WeakMap<ActorWrite, KeptReply[]>();

/**
 * The write's kept replies as stored. One too large for a value is split as a record is, under
 * the reply's key a KvU64 counting its parts: no reply is a KvU64 (replies are JSON data), so a
 * reader tells one from the other. Its JSON is what the parts keep: a replay answers that.
 */
export function keptRepliesOf(w: ActorWrite): KeptReply[] {
  let kept = replyCache.get(w);
  if (kept) return kept;
  kept = w.replies.map((r) => {
    const json = r.reply === undefined ? undefined : JSON.stringify(r.reply);
    const bytes = json === undefined ? 0 : storedBytes(json);
    if (json === undefined || bytes <= REPLY_INLINE_BYTES_MAX) return { ...r, parts: [], bytes };
    const parts = utf8Parts(json);
    return { ...r, parts, bytes: parts.reduce((n, p) => n + p.length, 0) };
  });
  replyCache.set(w, kept);
  return kept;
}

const entryCache = new WeakMap<ActorWrite, EventEntry[]>();

export function eventEntriesOf(w: ActorWrite): EventEntry[] {
  let entries = entryCache.get(w);
  if (!entries) entryCache.set(w, entries = chunkEvents(w.events));
  return entries;
}

/**
 * Puts events into values under Deno KV's 64 KiB cap: chunks of EVENT_CHUNK_BYTES_MAX stored
 * bytes, and an event larger than that alone, split as a record is (SplitEvent).
 */
export function chunkEvents(events: readonly StoredEvent[]): EventEntry[] {
  const entries: EventEntry[] = [];
  let items: StoredEvent[] = [];
  let bytes = 0;
  const close = () => {
    if (items.length > 0) entries.push({ key: [items[0]!.seq], value: { items }, bytes });
    items = [];
    bytes = 0;
  };
  for (const e of events) {
    if (e.bytes > EVENT_CHUNK_BYTES_MAX) {
      close();
      const parts = utf8Parts(JSON.stringify(e.event));
      const head: SplitEvent = { seq: e.seq, at: e.at, bytes: e.bytes, parts: parts.length };
      entries.push({ key: [e.seq], value: head, bytes: EVENT_ITEM_BYTES });
      parts.forEach((part, i) =>
        entries.push({ key: [e.seq, i], value: part, bytes: part.length })
      );
      continue;
    }
    const size = e.bytes + EVENT_ITEM_BYTES;
    if (bytes + size > EVENT_CHUNK_BYTES_MAX) close();
    items.push(e);
    bytes += size;
  }
  close();
  return entries;
}

/**
 * The actor store port (ARCHITECTURE "Growing past one machine"): Deno KV now, a Postgres-backed
 * store later, one conformance suite for both. Every write is guarded by the actor's version.
 */

export interface TimerRecord {
  readonly at: number;
  readonly payload?: unknown;
}

/** What is stored for one actor under its key. */
export interface ActorRecord {
  /** Version of the state shape (the definition's `version`). */
  readonly v: number;
  /** The tenant (business id, or `platform`) the actor belongs to, fixed at creation. */
  readonly tenant: string;
  readonly state: unknown;
  /** Sequence number of the last event applied. */
  readonly seq: number;
  readonly timers: Readonly<Record<string, TimerRecord>>;
  readonly indexes: readonly string[];
}

export interface StoredActor {
  readonly record: ActorRecord;
  /** Opaque version of the stored record; a write must name it (compare-and-set). */
  readonly version: string;
  /**
   * The first seq the actor's recovery marker names, read with the record; absent when none is
   * set. A commit at `version` writes its marker no later than this: only a commit moves the
   * version, so the marker it read is still there or cleared (a crash's or an old holder's
   * changes off the bus are never left behind it).
   */
  readonly unpublishedFrom?: number;
}

/** An actor's record as the store holds it, with its id. */
export interface StoredRecord {
  readonly id: string;
  readonly record: ActorRecord;
}

export interface ActorKey {
  readonly type: string;
  readonly id: string;
}

export interface IndexTarget extends ActorKey {
  readonly tenant: string;
}

/** An index entry found by its key's prefix (ActorStore.lookupPrefix). */
export interface IndexEntryFound {
  readonly key: string;
  readonly target: IndexTarget;
}

export interface StoredEvent {
  readonly seq: number;
  readonly at: number;
  readonly event: unknown;
  /** Serialized size as the store keeps it (storedBytes of its JSON), measured once when made. */
  readonly bytes: number;
}

/**
 * The bytes Deno KV keeps of a value whose JSON is `json`: one per UTF-16 unit, but two when any
 * character is past Latin-1 (V8 serialises such a string two bytes a unit). A lone surrogate is
 * escaped in JSON (`\ud800`), yet stored two bytes wide too. Cheap on the hot path: V8 answers the
 * character class at once for a string it holds one byte a character.
 */
export function storedBytes(json: string): number {
  return /[^\0-\xff]/.test(json) || json.includes("\\ud") ? 2 * json.length : json.length;
}

/** One actor's part of a (group) commit. */
export interface ActorWrite extends ActorKey {
  /** The version read; null when the actor did not exist. */
  readonly expected: string | null;
  readonly record: ActorRecord;
  /** New events, in order, with their sequence numbers. */
  readonly events: readonly StoredEvent[];
  readonly indexSet: readonly { index: string; key: string }[];
  /** Keys of `indexSet` in unique indexes, to be free when committed (the commit checks them). */
  readonly indexClaims?: readonly { index: string; key: string }[];
  readonly indexDelete: readonly { index: string; key: string }[];
  readonly timerSet: readonly { name: string; at: number }[];
  readonly timerDelete: readonly { name: string; at: number }[];
  /** Replies kept under idempotency keys; `permanent` ones never expire. */
  readonly replies: readonly { key: string; reply: unknown; permanent: boolean }[];
  /** The record as JSON, made once by the runtime to measure it (and to split a large one). */
  readonly recordJson: string;
  /**
   * The record's JSON length in UTF-16 units, measured once by the runtime (each event carries
   * its own size, StoredEvent.bytes); the store weighs what it really writes (cost).
   */
  readonly recordBytes: number;
  /** Set when these events are not yet known to be on the bus (recovery republishes them). */
  readonly unpublishedFrom: number | null;
  /** Outbox items the events add, written in the same commit (ActorDefinition.outbox). */
  readonly outbox?: readonly OutboxItem[];
  /**
   * The lease under which this instance holds the actor's partition (leases.ts): the commit
   * lands only while the lease is still this holder's at this epoch. Absent: not fenced (one
   * instance alone, WholePlacement).
   */
  readonly fence?: Fence;
}

/** A partition as one holder holds it, at one epoch (issue 43: a stale owner's commits fail). */
export interface Fence {
  readonly partition: number;
  readonly holder: string;
  readonly epoch: number;
}

/** A partition's lease as the store keeps it. */
export interface Lease {
  readonly partition: number;
  /** The holder that took it last; null when it was never taken. */
  readonly holder: string | null;
  /** Rises by one at every take; 0 when never taken. */
  readonly epoch: number;
  /** Held until then (epoch ms); at or before now the lease is free to take. */
  readonly expires: number;
}

/**
 * Partition leases and instance presence, kept in the actor store so that its commits can check
 * them atomically (a fenced commit fails in the same operation as its writes).
 */
export interface LeaseStore {
  /** Every partition's lease, in partition order (one never taken: holder null, epoch 0). */
  all(): Promise<Lease[]>;
  /**
   * Takes each of `partitions` for `holder` until `expires` whose lease is free or expired at
   * `now` (compare-and-set): its epoch rises by one. Answers the leases taken, in partition order
   * (not those another holder's live lease keeps, nor those another instance took first).
   */
  take(
    partitions: readonly number[],
    holder: string,
    now: number,
    expires: number,
  ): Promise<Lease[]>;
  /** Extends the leases `holder` still holds at the epochs named; answers the partitions extended. */
  renew(holder: string, held: readonly Fence[], expires: number): Promise<number[]>;
  /** Ends the leases `holder` still holds at the epochs named: free at once, epochs kept. */
  release(holder: string, held: readonly Fence[]): Promise<void>;
  /**
   * Records `instance` alive until `until` (one at or before `now` removes it) and answers the
   * instances alive at `now`, in name order.
   */
  presence(instance: string, now: number, until: number): Promise<string[]>;
}

/**
 * An item of a durable outbox: named by the actor, the seq of the event that added it and its
 * place among that event's items, so writing it again (a batch decided again) is the same item.
 */
export interface OutboxItem extends ActorKey {
  readonly outbox: string;
  readonly tenant: string;
  readonly seq: number;
  readonly n: number;
  /** When the event was decided (epoch ms). */
  readonly at: number;
  readonly payload: unknown;
  /** Its JSON's stored size, measured once when made (storedBytes). */
  readonly bytes: number;
  /**
   * The request whose command made it (AskOptions.requestId), so what it leads to (a webhook's
   * attempts) names the request in its log lines; absent: no request did.
   */
  readonly requestId?: string;
  /** Failed attempts at it so far (ActorStore.retryOutboxItem); absent: none. */
  readonly attempts?: number;
  /** When it is next due (epoch ms) after a failed attempt; absent: due at once. */
  readonly nextAt?: number;
}

/** What writes add to one atomic commit, in the terms of the store's limits (src/limits.ts). */
export interface CommitCost {
  readonly mutations: number;
  readonly checks: number;
  /** Keys and values, as the store counts a commit's size. */
  readonly bytes: number;
  /** Bytes of the keys set, which the store bounds on their own. */
  readonly keyBytes: number;
  /** The longest key. */
  readonly keyMax: number;
}

export type CommitResult =
  | { readonly ok: true; readonly versions: readonly string[] }
  | { readonly ok: false; readonly reason: "conflict" }
  /** A write's fence no longer holds: its partition's lease moved on (nothing was written). */
  | { readonly ok: false; readonly reason: "fenced"; readonly partition: number }
  | { readonly ok: false; readonly reason: "error"; readonly error: Error };

export interface DueTimer extends ActorKey {
  readonly name: string;
  readonly at: number;
}

/**
 * The partitions a sweep covers (src/runtime/placement.ts): those this instance holds, so timers
 * fire, outbox items are handled and lost changes republished by the holder alone (issue 43 item
 * 3); undefined, every partition (one instance alone).
 */
export type HeldPartitions = readonly number[] | undefined;

export interface ActorStore {
  load(key: ActorKey): Promise<StoredActor | null>;
  /**
   * Writes every part or none; fails with `conflict` when any actor's version moved, a claimed
   * unique key is held, or two of the writes claim one key (one of them must lose); with `fenced`
   * when a write's fence is no longer its partition's lease (checked first, in the same commit).
   */
  commit(writes: readonly ActorWrite[]): Promise<CommitResult>;
  /** Replies stored for idempotency keys of one actor, each whole however large it is. */
  replies(key: ActorKey, keys: readonly string[]): Promise<Map<string, unknown>>;
  lookup(index: string, key: string): Promise<IndexTarget | null>;
  /**
   * Entries of `index` whose key begins with `prefix`, in key order, at most `limit` (1 to
   * INDEX_PREFIX_LOOKUP_MAX; RangeError otherwise): the actors a key's first parts name, as a run
   * per driver and waybill.
   */
  lookupPrefix(index: string, prefix: string, limit: number): Promise<IndexEntryFound[]>;
  /** Whether a one-time pass over the store (a re-index, reindex.ts) was completed. */
  passDone(name: string): Promise<boolean>;
  /** Records a one-time pass as completed, for every instance sharing the store. */
  markPassDone(name: string): Promise<void>;
  /** Timers due at or before `until`, oldest first; of the `held` partitions' actors only. */
  dueTimers(until: number, limit: number, held?: HeldPartitions): Promise<DueTimer[]>;
  /** Removes a timer entry whose actor no longer holds it. */
  dropTimer(timer: DueTimer): Promise<void>;
  events(key: ActorKey, fromSeq: number): AsyncIterable<StoredEvent>;
  /** Actors whose last events may not have reached the bus; in the `held` partitions only. */
  unpublished(limit: number, held?: HeldPartitions): Promise<(ActorKey & { from: number })[]>;
  /**
   * Clears each actor's marker if the actor is still at `version` (no newer commit, whose
   * events may still be on their way). Answers, per actor, whether it was cleared.
   */
  markPublished(actors: readonly { key: ActorKey; version: string }[]): Promise<boolean[]>;
  /**
   * Items of one outbox, in the store's key order (by actor, then seq), at most `limit`; those of
   * the `held` partitions' actors only; with `due`, those due by then only (nextAt at or before).
   * With more than `limit` due, which are listed is the store's own (Deno KV: the first live ones
   * and the deferred ones due longest, so a backlog of failing items is never read whole).
   */
  outboxItems(
    outbox: string,
    limit: number,
    held?: HeldPartitions,
    due?: number,
  ): Promise<OutboxItem[]>;
  /**
   * Removes handled outbox items, each as listed (after a failed attempt it carries its nextAt,
   * where Deno KV keeps it); one that is gone already is no matter.
   */
  removeOutboxItems(items: readonly OutboxItem[]): Promise<void>;
  /**
   * Records a failed attempt at a stored item: its attempts so far and when it is next due. An
   * item gone already (handled and removed meanwhile) stays gone.
   */
  retryOutboxItem(item: OutboxItem, attempts: number, nextAt: number): Promise<void>;
  /**
   * A random name of this store, made at its first use and the same for every instance that
   * shares it: what tells one deployment from another on a shared bus (src/server.ts).
   */
  identity(): Promise<string>;
  /**
   * One page of the stored actors of `type`, in id order after `after` (null: from the first),
   * as stored (before their definition's `load`): what a pass over old data or a re-index reads.
   * At least one a page (RangeError otherwise).
   */
  stored(type: string, after: string | null, limit: number): Promise<StoredRecord[]>;
  /** What a write adds to one atomic commit (the group committer sums them within its limits). */
  cost(write: ActorWrite): CommitCost;
  /** The partitions' leases and the instances' presence (leases.ts). */
  readonly leases: LeaseStore;
  /** Closes the store; a store with connections to end answers once they are (Postgres). */
  close(): void | Promise<void>;
}

/**
 * Whether two writes of one commit claim the same unique key (ActorWrite.indexClaims): the commit
 * must fail, whichever store makes it (ActorStore.commit).
 */
export function claimsAKeyTwice(writes: readonly ActorWrite[]): boolean {
  if (writes.length < 2) return false;
  const seen = new Set<string>();
  for (const w of writes) {
    for (const c of w.indexClaims ?? []) {
      const k = `${c.index}\u0000${c.key}`;
      if (seen.has(k)) return true;
      seen.add(k);
    }
  }
  return false;
}

/**
 * The distinct fences of a commit's writes: each checked once, whatever number of its writes
 * name it (two fences of one partition cannot both hold, and the commit is fenced).
 */
export function fencesOf(writes: readonly ActorWrite[]): Fence[] {
  const distinct = new Map<string, Fence>();
  for (const { fence: f } of writes) {
    if (f) distinct.set(`${f.partition}\u0000${f.holder}\u0000${f.epoch}`, f);
  }
  return [...distinct.values()];
}

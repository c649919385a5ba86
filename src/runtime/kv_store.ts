/** The actor store on Deno KV: a local SQLite file, or a KV Connect URL shared by instances. */
import { INDEX_PREFIX_LOOKUP_MAX, KV_PAGE_BYTES } from "../limits.ts";
import { createWithPageSize, isNewLocalFile, lockRetried, waitedOutLock } from "./kv_file.ts";
import { newId } from "./ids.ts";
import {
  ACTOR,
  addWrite,
  type EventEntry,
  EVENTS,
  INDEX,
  joinParts,
  partsKey,
  partsOf,
  PASS_DONE,
  REPLY,
  REPLY_PART,
  type SplitEvent,
  type SplitRecord,
  STATE_PART,
  TIMER,
  UNPUBLISHED,
} from "./kv_layout.ts";
import { writeCost } from "./kv_cost.ts";
import { KvLeases } from "./kv_leases.ts";
import { outboxItemsOf, removeOutboxItemsOf, retryOutboxItemOf } from "./kv_outbox.ts";
import { partitionOf } from "./placement.ts";
import {
  type ActorKey,
  type ActorRecord,
  type ActorStore,
  type ActorWrite,
  claimsAKeyTwice,
  type CommitCost,
  type CommitResult,
  type DueTimer,
  type HeldPartitions,
  type IndexEntryFound,
  type IndexTarget,
  type OutboxItem,
  type StoredActor,
  type StoredEvent,
  type StoredRecord,
} from "./store.ts";

const IDENTITY = "store_identity";

export class KvActorStore implements ActorStore {
  readonly #kv: Deno.Kv;
  /** Parts each split actor has stored, so a write that needs fewer deletes the rest. */
  readonly #parts = new Map<string, number>();
  readonly leases: KvLeases;

  private constructor(kv: Deno.Kv) {
    this.#kv = kv;
    this.leases = new KvLeases(kv, lockRetried);
  }

  /** Opens a KV file path, `:memory:`, or a KV Connect URL. */
  static async open(path: string): Promise<KvActorStore> {
    if (isNewLocalFile(path)) createWithPageSize(path, KV_PAGE_BYTES);
    return new KvActorStore(await Deno.openKv(path));
  }

  async load(key: ActorKey): Promise<StoredActor | null> {
    // The marker in the same read as the record (one snapshot, no round trip more).
    const [entry, marker] = await this.#kv.getMany<[string | ActorRecord | SplitRecord, number]>([
      [ACTOR, key.type, key.id],
      [UNPUBLISHED, key.type, key.id],
    ]);
    if (entry.value === null || entry.versionstamp === null) return null;
    const version = entry.versionstamp;
    const from = marker.value === null ? {} : { unpublishedFrom: marker.value };
    if (typeof entry.value === "string") {
      this.#parts.delete(partsKey(key));
      return { record: JSON.parse(entry.value) as ActorRecord, version, ...from };
    }
    // Records written before they were stored as JSON text.
    if (!("parts" in entry.value)) {
      this.#parts.delete(partsKey(key));
      return { record: entry.value, version, ...from };
    }
    // The parts were written in the same atomic commit as this versionstamp; a read that races
    // a newer commit sees a mismatch and that actor's next write fails its check and reloads.
    const n = entry.value.parts;
    const parts: Uint8Array[] = [];
    for (let i = 0; i < n; i += 10) {
      const keys = Array.from(
        { length: Math.min(10, n - i) },
        (_, j) => [STATE_PART, key.type, key.id, i + j],
      );
      for (const e of await this.#kv.getMany<Uint8Array[]>(keys)) {
        if (e.value === null) throw new Error(`state part missing: ${key.type} ${key.id}`);
        parts.push(e.value);
      }
    }
    this.#parts.set(partsKey(key), n);
    return { record: JSON.parse(joinParts(parts)) as ActorRecord, version, ...from };
  }

  async commit(writes: readonly ActorWrite[]): Promise<CommitResult> {
    // KV checks every key before it writes any: two claims of one key would both pass.
    if (claimsAKeyTwice(writes)) return { ok: false, reason: "conflict" };
    // Fenced writes (leases.ts): their leases checked in the same atomic operation.
    const fenced = writes.some((w) => w.fence);
    const fences = fenced ? await this.leases.checksOf(writes) : [];
    if (!Array.isArray(fences)) return fences;
    for (let attempt = 0;; attempt++) {
      const op = this.#kv.atomic().check(...fences);
      for (const w of writes) addWrite(op, w, this.#parts.get(partsKey(w)) ?? 0);
      try {
        const result = await op.commit();
        if (!result.ok && fenced) return await this.leases.failed(writes);
        if (!result.ok) return { ok: false, reason: "conflict" };
        for (const w of writes) {
          const n = partsOf(w).length;
          if (n > 0) this.#parts.set(partsKey(w), n);
          else this.#parts.delete(partsKey(w));
        }
        // Every actor of one atomic commit shares its versionstamp.
        return { ok: true, versions: writes.map(() => result.versionstamp) };
      } catch (error) {
        // Another process holds the SQLite write lock: transient, wait and try again.
        if (await waitedOutLock(error, attempt)) continue;
        return { ok: false, reason: "error", error: error as Error };
      }
    }
  }

  async replies(key: ActorKey, keys: readonly string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    // Deno KV reads at most 10 keys at once.
    for (let i = 0; i < keys.length; i += 10) {
      const part = keys.slice(i, i + 10);
      const entries = await this.#kv.getMany(part.map((k) => [REPLY, key.type, key.id, k]));
      for (const [j, e] of entries.entries()) {
        if (e.versionstamp === null) continue;
        if (!(e.value instanceof Deno.KvU64)) found.set(part[j]!, e.value);
        else {
          // A reply too large for one value: its parts, written in the same commit (keptRepliesOf).
          const whole = await this.#replyParts(key, part[j]!, Number(e.value.value));
          if (whole !== null) found.set(part[j]!, whole.reply);
        }
      }
    }
    return found;
  }

  /**
   * A split reply read back whole; null when a part is gone: it expired (a part may go a moment
   * before its head), and the command is decided again as after any reply's expiry.
   */
  async #replyParts(key: ActorKey, reply: string, n: number): Promise<{ reply: unknown } | null> {
    const parts: Uint8Array[] = [];
    for (let i = 0; i < n; i += 10) {
      const keys = Array.from(
        { length: Math.min(10, n - i) },
        (_, j) => [REPLY_PART, key.type, key.id, reply, i + j],
      );
      for (const e of await this.#kv.getMany<Uint8Array[]>(keys)) {
        if (e.value === null) return null;
        parts.push(e.value);
      }
    }
    return { reply: JSON.parse(joinParts(parts)) };
  }

  async lookup(index: string, key: string): Promise<IndexTarget | null> {
    return (await this.#kv.get<IndexTarget>([INDEX, index, key])).value;
  }

  async lookupPrefix(index: string, prefix: string, limit: number): Promise<IndexEntryFound[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > INDEX_PREFIX_LOOKUP_MAX) {
      throw new RangeError(`prefix lookup limit out of range: ${limit}`);
    }
    // The keys beginning with `prefix` are the first from `prefix` on, in key order: the list
    // stops at the first other one.
    const found: IndexEntryFound[] = [];
    const iter = this.#kv.list<IndexTarget>(
      { prefix: [INDEX, index], start: [INDEX, index, prefix] },
      { limit },
    );
    for await (const e of iter) {
      const key = e.key[2];
      if (typeof key !== "string" || !key.startsWith(prefix)) break;
      found.push({ key, target: e.value });
    }
    return found;
  }

  async passDone(name: string): Promise<boolean> {
    return (await this.#kv.get([PASS_DONE, name])).versionstamp !== null;
  }

  async markPassDone(name: string): Promise<void> {
    await lockRetried(() => this.#kv.set([PASS_DONE, name], true));
  }

  async dueTimers(until: number, limit: number, held?: HeldPartitions): Promise<DueTimer[]> {
    const due: DueTimer[] = [];
    if (held?.length === 0) return due;
    const iter = this.#kv.list<true>(
      { start: [TIMER], end: [TIMER, until + 1] },
      // Filtered here, in memory (one instance on a KV file): read on until `limit` are kept.
      held === undefined ? { limit } : {},
    );
    const holds = holding(held);
    for await (const entry of iter) {
      const [, at, type, id, name] = entry.key as [string, number, string, string, string];
      if (!holds({ type, id })) continue;
      due.push({ at, type, id, name });
      if (due.length >= limit) break;
    }
    return due;
  }

  async dropTimer(t: DueTimer): Promise<void> {
    await lockRetried(() => this.#kv.delete([TIMER, t.at, t.type, t.id, t.name]));
  }

  async *events(key: ActorKey, fromSeq: number): AsyncIterable<StoredEvent> {
    const iter = this.#kv.list<EventEntry["value"]>({ prefix: [EVENTS, key.type, key.id] });
    // A split event being read: its head, and its parts so far (written in the head's commit).
    let split: { head: SplitEvent; parts: Uint8Array[] } | null = null;
    for await (const entry of iter) {
      const value = entry.value;
      if (value instanceof Uint8Array) {
        if (split === null) continue; // a part of an event before fromSeq
        split.parts.push(value);
        if (split.parts.length < split.head.parts) continue;
        const { seq, at, bytes } = split.head;
        yield { seq, at, event: JSON.parse(joinParts(split.parts)), bytes };
        split = null;
        continue;
      }
      if (split !== null) {
        throw new Error(`event part missing: ${key.type} ${key.id} ${split.head.seq}`);
      }
      if ("items" in value) {
        for (const item of value.items) if (item.seq >= fromSeq) yield item;
      } else if (value.seq >= fromSeq) split = { head: value, parts: [] };
    }
    if (split !== null) {
      throw new Error(`event part missing: ${key.type} ${key.id} ${split.head.seq}`);
    }
  }

  async unpublished(
    limit: number,
    held?: HeldPartitions,
  ): Promise<(ActorKey & { from: number })[]> {
    const found: (ActorKey & { from: number })[] = [];
    if (held?.length === 0) return found;
    const holds = holding(held);
    const iter = this.#kv.list<number>({ prefix: [UNPUBLISHED] }, held ? {} : { limit });
    for await (const e of iter) {
      const [, type, id] = e.key as [string, string, string];
      if (!holds({ type, id })) continue;
      found.push({ type, id, from: e.value });
      if (found.length >= limit) break;
    }
    return found;
  }

  async markPublished(actors: readonly { key: ActorKey; version: string }[]): Promise<boolean[]> {
    const clear = (group: readonly { key: ActorKey; version: string }[]) =>
      lockRetried(() => {
        const op = this.#kv.atomic();
        for (const { key, version } of group) {
          op.check({ key: [ACTOR, key.type, key.id], versionstamp: version })
            .delete([UNPUBLISHED, key.type, key.id]);
        }
        return op.commit();
      });
    if (actors.length === 0) return [];
    if ((await clear(actors)).ok) return actors.map(() => true);
    // Some actor moved on: clear the others one by one.
    const done: boolean[] = [];
    for (const a of actors) done.push(actors.length > 1 && (await clear([a])).ok);
    return done;
  }

  async stored(type: string, after: string | null, limit: number): Promise<StoredRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`actor listing limit out of range: ${limit}`);
    }
    const found: StoredRecord[] = [];
    const selector = after === null
      ? { prefix: [ACTOR, type] }
      : { prefix: [ACTOR, type], start: [ACTOR, type, after, ""] };
    for await (const e of this.#kv.list<unknown>(selector, { limit })) {
      const id = e.key[2] as string;
      // A split record's parts are read as a load reads them.
      const whole = e.value !== null && typeof e.value === "object" && "parts" in e.value
        ? (await this.load({ type, id }))?.record
        : typeof e.value === "string"
        ? JSON.parse(e.value) as ActorRecord
        : e.value as ActorRecord;
      if (whole) found.push({ id, record: whole });
    }
    return found;
  }

  async outboxItems(
    outbox: string,
    limit: number,
    held?: HeldPartitions,
    due?: number,
  ): Promise<OutboxItem[]> {
    if (held?.length === 0) return [];
    return await outboxItemsOf(this.#kv, outbox, limit, held && holding(held), due);
  }

  removeOutboxItems(items: readonly OutboxItem[]): Promise<void> {
    return removeOutboxItemsOf(this.#kv, items);
  }

  retryOutboxItem(item: OutboxItem, attempts: number, nextAt: number): Promise<void> {
    return retryOutboxItemOf(this.#kv, item, attempts, nextAt);
  }

  /**
   * Mutations and bytes one write adds to an atomic operation, for the group committer (and the
   * runtime, which asks first whether a batch's write fits one: measured once per write).
   */
  cost(w: ActorWrite): CommitCost {
    let cost = costCache.get(w);
    if (!cost) costCache.set(w, cost = writeCost(w, this.#parts.get(partsKey(w)) ?? 0));
    return cost;
  }

  async identity(): Promise<string> {
    const made = newId("store");
    // The first instance to ask sets it; every later one (and any racing it) reads that one.
    for (let attempt = 0;; attempt++) {
      try {
        await this.#kv.atomic().check({ key: [IDENTITY], versionstamp: null })
          .set([IDENTITY], made).commit();
        const got = await this.#kv.get<string>([IDENTITY]);
        if (typeof got.value !== "string") throw new Error("the store has no identity");
        return got.value;
      } catch (error) {
        if (!(await waitedOutLock(error, attempt))) throw error;
      }
    }
  }

  close(): void {
    this.#kv.close();
  }
}

/** Whether an actor is in the `held` partitions (all of them when undefined). */
function holding(held: HeldPartitions): (key: ActorKey) => boolean {
  if (held === undefined) return () => true;
  const set = new Set(held);
  return (key) => set.has(partitionOf(key));
}

const costCache = new WeakMap<ActorWrite, CommitCost>();

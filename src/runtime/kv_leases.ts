/**
 * Partition leases on Deno KV (store.ts LeaseStore; issue 43 item 2). A lease is two keys: LEASE
 * (holder, epoch, expiry), rewritten at each renewal, and FENCE (holder and epoch), rewritten
 * only when the lease is taken. A fenced commit checks FENCE's versionstamp in its own atomic
 * operation, so renewals never fail a commit, and a take makes every commit of the older epoch
 * fail its check.
 */
import { PARTITIONS } from "../limits.ts";
import { FENCE, LEASE, PRESENCE } from "./kv_layout.ts";
import {
  type ActorWrite,
  type CommitResult,
  type Fence,
  fencesOf,
  type Lease,
  type LeaseStore,
} from "./store.ts";

interface StoredLease {
  readonly holder: string;
  readonly epoch: number;
  readonly expires: number;
}

/** Leases written in one atomic operation: a check and two sets each, within KV's 100 checks. */
const LEASES_PER_OPERATION = 50;

/** A write tried again while another process holds the SQLite write lock (kv_store.ts). */
type Retried = <T>(write: () => Promise<T>) => Promise<T>;

export class KvLeases implements LeaseStore {
  readonly #kv: Deno.Kv;
  readonly #retried: Retried;
  /** FENCE's versionstamp per partition as last seen, with the holder and epoch it names. */
  readonly #fences = new Map<number, Fence & { readonly versionstamp: string }>();

  constructor(kv: Deno.Kv, retried: Retried) {
    this.#kv = kv;
    this.#retried = retried;
  }

  async all(): Promise<Lease[]> {
    const found: Lease[] = Array.from(
      { length: PARTITIONS },
      (_, partition) => ({ partition, holder: null, epoch: 0, expires: 0 }),
    );
    for await (const e of this.#kv.list<StoredLease>({ prefix: [LEASE] })) {
      const partition = e.key[1] as number;
      if (partition < PARTITIONS) found[partition] = { partition, ...e.value };
    }
    return found;
  }

  async take(partitions: readonly number[], holder: string, now: number, expires: number) {
    const seen = await this.#leases(partitions);
    const free = seen.filter((e) => e.value === null || e.value.expires <= now);
    const taken = await this.#inGroups(free, (op, e) => {
      const epoch = (e.value?.epoch ?? 0) + 1;
      op.set(e.key, { holder, epoch, expires }).set([FENCE, e.key[1] as number], { holder, epoch });
    });
    return taken.map(({ entry, versionstamp }) => {
      const partition = entry.key[1] as number;
      const epoch = (entry.value?.epoch ?? 0) + 1;
      this.#fences.set(partition, { partition, holder, epoch, versionstamp });
      return { partition, holder, epoch, expires };
    });
  }

  renew(holder: string, held: readonly Fence[], expires: number): Promise<number[]> {
    return this.#extend(holder, held, expires);
  }

  async release(holder: string, held: readonly Fence[]): Promise<void> {
    await this.#extend(holder, held, 0);
  }

  async presence(instance: string, now: number, until: number): Promise<string[]> {
    const op = () =>
      until > now
        ? this.#kv.atomic().set([PRESENCE, instance], until)
        : this.#kv.atomic().delete([PRESENCE, instance]);
    await this.#retried(() => op().commit());
    const alive: string[] = [];
    for await (const e of this.#kv.list<number>({ prefix: [PRESENCE] })) {
      if (e.value > now) alive.push(e.key[1] as string);
      // A dead instance's entry goes, unless it came back meanwhile (the check).
      else await this.#retried(() => this.#kv.atomic().check(e).delete(e.key).commit());
    }
    return alive;
  }

  /**
   * The checks a commit of `writes` adds, one per fence; or its answer `fenced` when a fence is
   * stale already (nothing is tried).
   */
  async checksOf(writes: readonly ActorWrite[]): Promise<Deno.AtomicCheck[] | CommitResult> {
    const checks: Deno.AtomicCheck[] = [];
    for (const f of fencesOf(writes)) {
      const known = this.#fences.get(f.partition);
      const seen = known !== undefined && sameTenure(known, f)
        ? known
        : await this.#read(f.partition);
      if (seen === null || !sameTenure(seen, f)) {
        return { ok: false, reason: "fenced", partition: f.partition };
      }
      checks.push({ key: [FENCE, f.partition], versionstamp: seen.versionstamp });
    }
    return checks;
  }

  /** Why a commit of fenced writes failed: a lease taken meanwhile, else a version conflict. */
  async failed(writes: readonly ActorWrite[]): Promise<CommitResult> {
    // A take always raises the epoch: FENCE's versionstamp moved only if its tenure did.
    for (const f of fencesOf(writes)) {
      const now = await this.#read(f.partition);
      if (now === null || !sameTenure(now, f)) {
        return { ok: false, reason: "fenced", partition: f.partition };
      }
    }
    return { ok: false, reason: "conflict" };
  }

  async #read(partition: number): Promise<(Fence & { versionstamp: string }) | null> {
    const e = await this.#kv.get<{ holder: string; epoch: number }>([FENCE, partition]);
    if (e.value === null || e.versionstamp === null) return null;
    const seen = { partition, ...e.value, versionstamp: e.versionstamp };
    this.#fences.set(partition, seen);
    return seen;
  }

  /** Sets the expiry of the leases `holder` still holds at the epochs named (compare-and-set). */
  async #extend(holder: string, held: readonly Fence[], expires: number): Promise<number[]> {
    const epochs = new Map(held.map((f) => [f.partition, f.epoch]));
    const seen = await this.#leases(held.map((f) => f.partition));
    const still = seen.filter((e) =>
      e.value !== null && e.value.holder === holder &&
      e.value.epoch === epochs.get(e.key[1] as number)
    );
    const done = await this.#inGroups(still, (op, e) => op.set(e.key, { ...e.value!, expires }));
    return done.map(({ entry }) => entry.key[1] as number);
  }

  /** The lease entries of `partitions`, in partition order (Deno KV reads 10 keys at once). */
  async #leases(partitions: readonly number[]): Promise<Deno.KvEntryMaybe<StoredLease>[]> {
    const ordered = [...new Set(partitions)].sort((a, b) => a - b);
    const found: Deno.KvEntryMaybe<StoredLease>[] = [];
    for (let i = 0; i < ordered.length; i += 10) {
      const keys = ordered.slice(i, i + 10).map((p) => [LEASE, p]);
      found.push(...await this.#kv.getMany<StoredLease[]>(keys));
    }
    return found;
  }

  /**
   * Writes `write` of each entry where it is still as read, LEASES_PER_OPERATION in one atomic
   * operation; a group where one moved meanwhile is tried entry by entry. Answers those written.
   */
  async #inGroups<T extends Deno.KvEntryMaybe<StoredLease>>(
    entries: readonly T[],
    write: (op: Deno.AtomicOperation, entry: T) => void,
  ): Promise<{ entry: T; versionstamp: string }[]> {
    const done: { entry: T; versionstamp: string }[] = [];
    const commit = async (group: readonly T[]) => {
      const r = await this.#retried(() => {
        const op = this.#kv.atomic();
        for (const e of group) {
          op.check(e);
          write(op, e);
        }
        return op.commit();
      });
      if (r.ok) { for (const entry of group) done.push({ entry, versionstamp: r.versionstamp }); }
      return r.ok;
    };
    for (let i = 0; i < entries.length; i += LEASES_PER_OPERATION) {
      const group = entries.slice(i, i + LEASES_PER_OPERATION);
      if (await commit(group)) continue;
      for (const e of group.length > 1 ? group : []) await commit([e]);
    }
    return done;
  }
}

function sameTenure(a: Fence, b: Fence): boolean {
  return a.holder === b.holder && a.epoch === b.epoch;
}

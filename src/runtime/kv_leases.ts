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

  async take(partition: number, holder: string, now: number, expires: number) {
    const seen = await this.#kv.get<StoredLease>([LEASE, partition]);
    if (seen.value !== null && seen.value.expires > now) return null;
    const epoch = (seen.value?.epoch ?? 0) + 1;
    const done = await this.#retried(() =>
      this.#kv.atomic().check(seen)
        .set([LEASE, partition], { holder, epoch, expires })
        .set([FENCE, partition], { holder, epoch })
        .commit()
    );
    if (!done.ok) return null;
    this.#fences.set(partition, { partition, holder, epoch, versionstamp: done.versionstamp });
    return { partition, holder, epoch, expires };
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
    const done: number[] = [];
    // Deno KV reads at most 10 keys at once.
    for (let i = 0; i < held.length; i += 10) {
      const part = held.slice(i, i + 10);
      const entries = await this.#kv.getMany<StoredLease[]>(part.map((f) => [LEASE, f.partition]));
      const still = entries.filter((e, j) =>
        e.value !== null && e.value.holder === holder && e.value.epoch === part[j]!.epoch
      );
      const extend = (group: typeof still) => {
        const op = this.#kv.atomic();
        for (const e of group) op.check(e).set(e.key, { ...e.value!, expires });
        return this.#retried(() => op.commit());
      };
      // The chunk in one operation; one lease moved meanwhile: each alone.
      if (still.length > 0 && (await extend(still)).ok) {
        done.push(...still.map((e) => e.key[1] as number));
        continue;
      }
      for (const e of still.length > 1 ? still : []) {
        if ((await extend([e])).ok) done.push(e.key[1] as number);
      }
    }
    return done.sort((a, b) => a - b);
  }
}

function sameTenure(a: Fence, b: Fence): boolean {
  return a.holder === b.holder && a.epoch === b.epoch;
}

/**
 * Partitions leased in the actor store (issue 43 item 2, `PLACEMENT=leased`): each instance
 * heartbeats its presence, renews the leases it holds every third of the lease time, takes free
 * or expired partitions up to its fair share (ceil(partitions / live instances)) and gives up
 * the ones above it a few at a time, so a new instance gets its share and a dead one's partitions
 * are taken within about one lease time. Every take raises the partition's epoch, which fences
 * the commits of the holder before (store.ts Fence). All time comes from the injected clock.
 */
import { LEASES_RELEASED_PER_RENEWAL } from "../limits.ts";
import type { Clock } from "./clock.ts";
import { partitionsHeld, type Placement } from "./placement.ts";
import type { Fence, Lease, LeaseStore } from "./store.ts";

/** What the leases report as they move (metrics). */
export interface LeaseObserver {
  /** One renewal of the held leases took `ms`; `failed` of them were not renewed. */
  renewed(ms: number, failed: number): void;
  /** A partition was taken from another instance whose lease had expired. */
  takenOver(partition: number): void;
}

export interface LeasedOptions {
  readonly store: LeaseStore;
  readonly clock: Clock;
  /** This instance's name, unique among running instances. */
  readonly instance: string;
  /** How long a lease lasts unrenewed (LEASE_SECONDS). */
  readonly leaseMs: number;
  readonly observe?: LeaseObserver;
  readonly onError?: (error: unknown, where: string) => void;
  /**
   * Whether this instance reaches the others now (the bus). Cut off, it renews nothing and takes
   * nothing: its leases run out by its own clock, so it stops answering for its partitions no
   * later than another instance may take them (the store's expiry). Absent: always.
   */
  readonly reachable?: () => boolean;
}

/** An instance's fair share of the partitions among `live` instances (itself among them). */
export function shareOf(partitions: number, live: number): number {
  return Math.ceil(partitions / Math.max(1, live));
}

/**
 * What one renewal does besides renewing: the partitions to take (free or expired, up to the
 * share, this instance's preferred first) or to give up (above the share, at most `releaseMax`,
 * its least preferred first). Preference is a hash of instance and partition, so instances
 * starting together reach for different partitions instead of racing for the same ones.
 */
export function leasePlan(o: {
  instance: string;
  leases: readonly Lease[];
  held: ReadonlySet<number>;
  live: number;
  now: number;
  releaseMax: number;
}): { take: number[]; release: number[] } {
  const share = shareOf(o.leases.length, o.live);
  const byPreference = (a: number, b: number) =>
    preference(o.instance, b) - preference(o.instance, a) || a - b;
  if (o.held.size > share) {
    const release = [...o.held].sort(byPreference).reverse();
    return { take: [], release: release.slice(0, Math.min(o.releaseMax, o.held.size - share)) };
  }
  const free = o.leases.filter((l) => !o.held.has(l.partition) && l.expires <= o.now);
  const take = free.map((l) => l.partition).sort(byPreference);
  return { take: take.slice(0, share - o.held.size), release: [] };
}

/** FNV-1a of instance and partition: this instance's preference for the partition. */
function preference(instance: string, partition: number): number {
  let h = 0x811c9dc5;
  const text = `${instance}\u0000${partition}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export class LeasedPlacement implements Placement {
  readonly instance: string;
  readonly fences = true;
  readonly #o: LeasedOptions;
  /** Partitions held: the epoch, and until when this instance counts on the lease. */
  readonly #held = new Map<number, { epoch: number; until: number }>();
  /** Each partition's holder at the last renewal (undefined: free or expired). */
  #owners: (string | undefined)[] = [];
  readonly #listeners = new Set<(partition: number, held: boolean) => void>();
  #loop: ReturnType<typeof setInterval> | undefined;
  #renewing: Promise<void> | null = null;
  #closed = false;

  constructor(o: LeasedOptions) {
    this.instance = o.instance;
    this.#o = o;
  }

  /** A lease counts only until its expiry by this clock, renewed or not: never past the store's. */
  held(partition: number): number | undefined {
    const h = this.#held.get(partition);
    return h !== undefined && h.until > this.#o.clock.now() ? h.epoch : undefined;
  }

  ownerOf(partition: number): string | undefined {
    return this.held(partition) !== undefined ? this.instance : this.#owners[partition];
  }

  /** The partitions held now, in order. */
  heldPartitions(): number[] {
    return partitionsHeld(this);
  }

  onChange(listener: (partition: number, held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Takes a first share, then renews every third of the lease time (a system clock's timer). */
  async start(): Promise<void> {
    await this.renew();
    if (this.#o.clock.kind !== "system") return; // a manual clock's owner calls renew()
    this.#loop = setInterval(() => {
      this.renew().catch((e) => this.#o.onError?.(e, "leases"));
    }, Math.max(1, Math.floor(this.#o.leaseMs / 3)));
  }

  /** Stops renewing without giving anything up (as a dead instance would). */
  stop(): void {
    if (this.#loop !== undefined) clearInterval(this.#loop);
    this.#loop = undefined;
  }

  /** One renewal: presence, the held leases renewed, then partitions taken or given up. */
  renew(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    // One at a time: a caller during a renewal waits for it.
    this.#renewing ??= this.#renewInTime().finally(() => this.#renewing = null);
    return this.#renewing;
  }

  /**
   * A renewal that took longer than a lease renewed leases already run out by this clock (each
   * counts from the renewal's start): the store keeps this instance their holder while it counts
   * on none, and nobody answers for them. Renewed once more at once, not a third of a lease later.
   */
  async #renewInTime(): Promise<void> {
    await this.#renew();
    const now = this.#o.clock.now();
    if (!this.#closed && [...this.#held.values()].some((h) => h.until <= now)) {
      await this.#renew();
    }
  }

  /** Stops renewing, gives up every partition held and leaves (a clean shutdown). */
  async close(): Promise<void> {
    this.stop();
    await this.#renewing?.catch(() => {}); // its failure was reported; what it holds goes now
    this.#closed = true;
    const held = this.#fences();
    this.#lose(held.map((f) => f.partition));
    const now = this.#o.clock.now();
    await this.#o.store.release(this.instance, held);
    await this.#o.store.presence(this.instance, now, now);
  }

  async #renew(): Promise<void> {
    if (this.#o.reachable?.() === false) return this.#lose(this.#expired());
    const { store, clock, leaseMs } = this.#o;
    const now = clock.now();
    const until = now + leaseMs;
    const live = await store.presence(this.instance, now, until);
    const mine = this.#fences();
    const started = performance.now();
    let renewed: Set<number>;
    try {
      renewed = new Set(await store.renew(this.instance, mine, until));
    } catch (error) {
      this.#o.observe?.renewed(performance.now() - started, mine.length);
      throw error;
    }
    const lost = mine.filter((f) => !renewed.has(f.partition)).map((f) => f.partition);
    this.#o.observe?.renewed(performance.now() - started, lost.length);
    for (const f of mine) {
      if (renewed.has(f.partition)) this.#held.set(f.partition, { epoch: f.epoch, until });
    }
    this.#lose(lost);
    const leases = await store.all();
    this.#owners = leases.map((l) => l.expires > now && l.holder !== null ? l.holder : undefined);
    const plan = leasePlan({
      instance: this.instance,
      leases,
      held: new Set(this.#held.keys()),
      live: live.length,
      now,
      releaseMax: LEASES_RELEASED_PER_RENEWAL,
    });
    await this.#release(plan.release);
    await this.#take(plan.take, leases, now, until);
  }

  /** Gives partitions up: no longer decided here first, then free in the store. */
  async #release(partitions: readonly number[]): Promise<void> {
    if (partitions.length === 0) return;
    const fences = this.#fences().filter((f) => partitions.includes(f.partition));
    this.#lose(partitions);
    await this.#o.store.release(this.instance, fences);
  }

  async #take(partitions: readonly number[], leases: readonly Lease[], now: number, until: number) {
    if (partitions.length === 0 || this.#closed) return;
    for (const lease of await this.#o.store.take(partitions, this.instance, now, until)) {
      const p = lease.partition;
      this.#held.set(p, { epoch: lease.epoch, until });
      this.#owners[p] = this.instance;
      const before = leases[p];
      if (before?.holder && before.holder !== this.instance && before.expires > 0) {
        this.#o.observe?.takenOver(p);
      }
      this.#tell(p, true);
    }
  }

  /** The partitions whose lease ran out by this clock, still listed as held. */
  #expired(): number[] {
    const now = this.#o.clock.now();
    return [...this.#held].filter(([, h]) => h.until <= now).map(([p]) => p);
  }

  #lose(partitions: readonly number[]): void {
    for (const p of partitions) {
      if (!this.#held.delete(p)) continue;
      this.#owners[p] = undefined;
      this.#tell(p, false);
    }
  }

  #tell(partition: number, held: boolean): void {
    for (const l of this.#listeners) {
      try {
        l(partition, held);
      } catch (error) {
        this.#o.onError?.(error, "lease listener");
      }
    }
  }

  /** The leases held, as fences. */
  #fences(): Fence[] {
    return [...this.#held].map(([partition, h]) => ({
      partition,
      holder: this.instance,
      epoch: h.epoch,
    }));
  }
}

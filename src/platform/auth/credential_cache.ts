/**
 * Who a credential is, remembered per credential (issue 36 item 5): a key seen before is answered
 * from memory, keyed by its SHA-256, instead of asking its actors again on every request. An
 * entry names the actors it was read from (its owners); a change of one of them on the bus, from
 * this instance or another sharing it, drops every entry it owns at once, before the commit that
 * changed it is answered (the runtime publishes, then replies). What the credential may do now
 * (rate limits, the platform switch) is still checked on every request from the entry.
 *
 * Among several instances (issue 43 item 2) an instance remembers only credentials whose actors'
 * partitions it holds, and an entry holds only while it keeps them under the same epoch: a
 * change can only be made by the holder, which drops the entry before it answers, so a key
 * rotated through any instance is refused by every instance at once. The others ask the holder.
 */
import {
  type ActorChange,
  type Bus,
  EVERY_INSTANCE,
  subjectPattern,
  type Subscription,
} from "../../bus/bus.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { partitionOf, type Placement, WholePlacement } from "../../runtime/placement.ts";

/** Credentials remembered; past this the map starts afresh (bounded memory, rare misses). */
export const CREDENTIALS_CACHED_MAX = 10_000;

/** An actor an entry was read from: `<type>/<id>`. */
export type Owner = `${string}/${string}`;

/**
 * Whether a change of an actor may change what a credential it owns is (a key rotated or revoked,
 * scopes, status, a suspended account): a change this answers false for keeps the entries.
 */
export type ChangesCredentials = (events: readonly unknown[]) => boolean;

/**
 * Which guard remembered an entry: a token one guard accepts is no credential for another (a
 * driver's token sent as a business key), so each finds only its own.
 */
export type Guard = "business" | "client" | "driver";

interface Entry {
  readonly hash: string;
  readonly value: unknown;
  readonly owners: readonly Owner[];
  /** The owners' partitions and the epochs they were held under (none on one instance alone). */
  readonly held: readonly { readonly partition: number; readonly epoch: number }[];
}

export class CredentialCache {
  readonly #entries = new Map<string, Entry>();
  /** Entry keys by owner, so a change drops exactly its own. */
  readonly #byOwner = new Map<Owner, Set<string>>();
  readonly #subscriptions: Subscription[] = [];
  readonly #bus: Bus;
  readonly #busPrefix: string;
  /** Undefined on one instance alone (WholePlacement), which holds everything for good. */
  readonly #placement: Placement | undefined;
  /**
   * Moves on every drop, and whenever a partition comes or goes: what was read before either is
   * not remembered after it.
   */
  #epoch = 0;
  readonly #unfollowPlacement: () => void;

  constructor(options: { bus: Bus; busPrefix: string; placement?: Placement }) {
    this.#bus = options.bus;
    this.#busPrefix = options.busPrefix;
    const placement = options.placement;
    this.#placement = placement instanceof WholePlacement ? undefined : placement;
    // A read in flight while a partition came here was answered by its previous holder, whose
    // change since (a key rotated, and answered) may not have reached this instance's bus yet:
    // kept, it would be accepted here until then (issue 43 item 2).
    this.#unfollowPlacement = this.#placement?.onChange(() => this.#epoch++) ?? (() => {});
  }

  /** Drops the entries of an actor of `type` whenever `changes` says its change may matter. */
  follow(type: string, changes: ChangesCredentials = () => true): void {
    const pattern = subjectPattern(this.#busPrefix, "*", type);
    // Every instance keeps its own entries: each hears every change (issue 43 item 3).
    const handledBy = EVERY_INSTANCE;
    this.#subscriptions.push(this.#bus.subscribe(pattern, (message) => {
      const change = message.payload as Partial<ActorChange>;
      // The settle sentinel travels on matching subjects too: it changes nothing.
      if (!Array.isArray(change.events)) return;
      // Events left off the bus (publishEvents false) cannot be told apart: drop.
      const events = change.events.map((e) => e.event);
      if (events.length === 0 || changes(events)) this.drop(`${change.type}/${change.id}`);
    }, { handledBy }));
  }

  /** The moment to pass to `remember` for what is read from now on. */
  get epoch(): number {
    return this.#epoch;
  }

  get<T>(guard: Guard, hash: string): T | undefined {
    const key = `${guard}:${hash}`;
    const entry = this.#entries.get(key);
    // The map found it by the hash; the comparison stays free of early exits all the same.
    if (!entry || !sameHash(entry.hash, hash)) return undefined;
    const placement = this.#placement;
    // A partition let go (even if taken back since): another instance may have changed it.
    if (placement && entry.held.some((h) => placement.held(h.partition) !== h.epoch)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  /**
   * Remembers what `hash` is, read from `owners` since `epoch`; nothing when an owner changed in
   * between (the value may be older than the change that dropped it).
   */
  remember(
    guard: Guard,
    hash: string,
    found: { value: unknown; owners: readonly Owner[]; epoch: number },
  ): void {
    if (found.epoch !== this.#epoch) return;
    const held = this.#heldOf(found.owners);
    if (held === null) return;
    if (this.#entries.size >= CREDENTIALS_CACHED_MAX) this.clear();
    const key = `${guard}:${hash}`;
    this.#entries.set(key, { hash, value: found.value, owners: found.owners, held });
    for (const owner of found.owners) {
      let keys = this.#byOwner.get(owner);
      if (!keys) this.#byOwner.set(owner, keys = new Set());
      keys.add(key);
    }
  }

  /** The owners' partitions and epochs; null when this instance does not hold one of them. */
  #heldOf(owners: readonly Owner[]): Entry["held"] | null {
    const placement = this.#placement;
    if (!placement) return [];
    const held = [];
    for (const owner of owners) {
      const slash = owner.indexOf("/");
      const partition = partitionOf({ type: owner.slice(0, slash), id: owner.slice(slash + 1) });
      const epoch = placement.held(partition);
      if (epoch === undefined) return null;
      held.push({ partition, epoch });
    }
    return held;
  }

  /** Forgets every credential read from this actor. */
  drop(owner: Owner): void {
    this.#epoch++;
    const keys = this.#byOwner.get(owner);
    if (!keys) return;
    this.#byOwner.delete(owner);
    for (const key of keys) this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
    this.#byOwner.clear();
  }

  close(): Promise<void> {
    this.#unfollowPlacement();
    for (const s of this.#subscriptions.splice(0)) s.unsubscribe();
    this.clear();
    return Promise.resolve();
  }
}

/**
 * Two hex hashes compared without an early exit, as constantTimeEqual does, but on the strings'
 * own characters: encoding both to bytes first cost a remembered key some 3 µs a request.
 */
function sameHash(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The cache of each environment, by its runtime: the guards find it from their request. */
const caches = new WeakMap<ActorRuntime, CredentialCache>();

/** Starts the environment's cache (the platform feature does, before any request). */
export function startCredentialCache(
  options: { runtime: ActorRuntime; bus: Bus; busPrefix: string },
): CredentialCache {
  const cache = new CredentialCache({ ...options, placement: options.runtime.placement });
  caches.set(options.runtime, cache);
  return cache;
}

/** The environment's cache; absent where no platform feature started one (nothing is cached). */
export function credentialCacheOf(runtime: ActorRuntime): CredentialCache | undefined {
  return caches.get(runtime);
}

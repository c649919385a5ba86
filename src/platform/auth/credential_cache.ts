/**
 * Who a credential is, remembered per credential (issue 36 item 5): a key seen before is answered
 * from memory, keyed by its SHA-256, instead of asking its actors again on every request. An
 * entry names the actors it was read from (its owners); a change of one of them on the bus, from
 * this instance or another sharing it, drops every entry it owns at once, before the commit that
 * changed it is answered (the runtime publishes, then replies). What the credential may do now
 * (rate limits, the platform switch) is still checked on every request from the entry.
 *
 * Only what this instance holds is remembered (issue 43 items 2 and 4): an entry read from an
 * actor whose partition another instance holds would go stale between that instance's commit and
 * the change reaching this one, so a raised rate limit or a rotated key would wait on the bus.
 * Those are read from their holder on every request instead, and a partition lost drops what was
 * remembered of its actors. One instance alone (WholePlacement) holds all: nothing changes there.
 */
import { type ActorChange, type Bus, subjectPattern, type Subscription } from "../../bus/mod.ts";
import { partitionOf, type Placement, WholePlacement } from "../../runtime/placement.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

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
}

export class CredentialCache {
  readonly #entries = new Map<string, Entry>();
  /** Entry keys by owner, so a change drops exactly its own. */
  readonly #byOwner = new Map<Owner, Set<string>>();
  readonly #subscriptions: Subscription[] = [];
  readonly #bus: Bus;
  readonly #busPrefix: string;
  readonly #placement: Placement;
  readonly #unfollowPlacement: () => void;
  /** Moves on every drop: what was read before a drop is not remembered after it. */
  #epoch = 0;

  constructor(options: { bus: Bus; busPrefix: string; placement?: Placement }) {
    this.#bus = options.bus;
    this.#busPrefix = options.busPrefix;
    this.#placement = options.placement ?? new WholePlacement();
    this.#unfollowPlacement = this.#placement.onChange((partition, held) => {
      if (!held) this.#dropPartition(partition);
    });
  }

  /** Drops the entries of an actor of `type` whenever `changes` says its change may matter. */
  follow(type: string, changes: ChangesCredentials = () => true): void {
    const pattern = subjectPattern(this.#busPrefix, "*", type);
    this.#subscriptions.push(this.#bus.subscribe(pattern, (message) => {
      const change = message.payload as Partial<ActorChange>;
      // The settle sentinel travels on matching subjects too: it changes nothing.
      if (!Array.isArray(change.events)) return;
      // Events left off the bus (publishEvents false) cannot be told apart: drop.
      const events = change.events.map((e) => e.event);
      if (events.length === 0 || changes(events)) this.drop(`${change.type}/${change.id}`);
    }));
  }

  /** The moment to pass to `remember` for what is read from now on. */
  get epoch(): number {
    return this.#epoch;
  }

  get<T>(guard: Guard, hash: string): T | undefined {
    const entry = this.#entries.get(`${guard}:${hash}`);
    // The map found it by the hash; the comparison stays free of early exits all the same.
    if (!entry || !sameHash(entry.hash, hash)) return undefined;
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
    if (!found.owners.every((owner) => this.#holds(owner))) return;
    if (this.#entries.size >= CREDENTIALS_CACHED_MAX) this.clear();
    const key = `${guard}:${hash}`;
    this.#entries.set(key, { hash, value: found.value, owners: found.owners });
    for (const owner of found.owners) {
      let keys = this.#byOwner.get(owner);
      if (!keys) this.#byOwner.set(owner, keys = new Set());
      keys.add(key);
    }
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

  /** Whether this instance holds the partition of the actor `owner` names. */
  #holds(owner: Owner): boolean {
    return this.#placement.held(partitionOfOwner(owner)) !== undefined;
  }

  /** Forgets what was read from the actors of a partition this instance no longer holds. */
  #dropPartition(partition: number): void {
    // Read before the loss, remembered after it: not kept either (the epoch moves).
    this.#epoch++;
    for (const owner of [...this.#byOwner.keys()]) {
      if (partitionOfOwner(owner) === partition) this.drop(owner);
    }
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

function partitionOfOwner(owner: Owner): number {
  const slash = owner.indexOf("/");
  return partitionOf({ type: owner.slice(0, slash), id: owner.slice(slash + 1) });
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

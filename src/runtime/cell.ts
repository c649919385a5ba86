/**
 * One activated actor as the runtime holds it: its committed state, its mailbox, what the store's
 * recovery marker is known to be, and the replies its last few commits stored.
 */
import type { AnyActorDefinition } from "./actor.ts";
import type { Envelope, Plan } from "./plan.ts";
import { partitionOf } from "./placement.ts";
import type { ActorKey, ActorWrite, StoredActor, TimerRecord } from "./store.ts";

/** Commits whose replies an actor keeps in memory, to complete a read made ahead of them. */
const RECENT_COMMITS_KEPT = 8;

export class Cell {
  loaded = false;
  tenant: string | null = null;
  state: unknown;
  seq = 0;
  version: string | null = null;
  timers: Record<string, TimerRecord> = {};
  indexes: readonly string[] = [];
  /**
   * The store's recovery marker for this actor: `set` once a commit wrote it, `clearing` while
   * its removal is on the way (a commit then writes it again), `none` when it is gone.
   */
  marker: "none" | "set" | "clearing" = "none";
  /**
   * The first seq the store's marker names, once this instance wrote it (null: not known); kept
   * across a read of the store until a sweep clears the marker, as its changes may be off the bus.
   */
  markerFrom: number | null = null;
  /** The publication of the last commit; the marker goes only once it is delivered. */
  lastPublish: Promise<void> = Promise.resolve();
  /**
   * A publication since the marker was set failed, or the store held a marker this instance did
   * not write (a crash's, a partition's old holder's): its changes may be off the bus, so the
   * marker stays until the changes from `markerFrom` are published again (MarkerSweeper).
   */
  publishFailed = false;
  /** Loaded without a read, on the word of a `fresh` ask; cleared by the first commit or read. */
  assumedNew = false;
  /**
   * Not in the store: taken from its type's cold source (a delivery-log row), or found in neither.
   * Read again at the next command unless a commit stored it, since the source may hold it by
   * then, or hold it changed (a waiting event's retry noted there); cleared by a load or a commit.
   */
  cold = false;
  readonly mailbox: Envelope[] = [];
  running = false;
  /** Commits completed, and the replies the last few stored (newer than a read made before). */
  committed = 0;
  /** When the last commit landed (performance.now): a marker this fresh may be written again. */
  committedAt = 0;
  recentReplies: { readonly n: number; readonly replies: ReadonlyMap<string, unknown> }[] = [];
  /** The newest commit whose replies are no longer kept. */
  forgottenUpTo = 0;
  /** Commands waiting in the mailbox whose stored replies are still to be read ahead. */
  toPrefetch: Envelope[] = [];

  constructor(readonly def: AnyActorDefinition, readonly key: ActorKey) {
    this.state = def.initial;
  }

  /** The actor's partition (placement.ts), found when first asked: only placement asks it. */
  get partition(): number {
    return this.#partition ??= partitionOf(this.key);
  }
  #partition: number | undefined;

  /**
   * Whether the store's marker is this instance's to clear: set, or left by a commit before the
   * actor was read again from the store (a conflict), its changes perhaps still off the bus.
   */
  get markerToClear(): boolean {
    return this.marker === "set" || (this.marker === "none" && this.markerFrom !== null);
  }

  /** `type/id`: the actor's name among the runtime's cells. */
  get name(): string {
    return `${this.key.type}/${this.key.id}`;
  }

  /** Neither deciding nor holding commands. */
  get idle(): boolean {
    return !this.running && this.mailbox.length === 0;
  }

  /** Taken as new without a read (see AskOptions.fresh): the initial state, nothing stored. */
  assumeNew(): void {
    this.#reset();
    this.cold = false;
    this.marker = "none";
    this.loaded = true;
    this.assumedNew = true;
  }

  /**
   * Takes a state its type's cold source holds for an actor the store does not (a delivery-log
   * row): committed as far as reads go, stored by its first commit.
   */
  loadCold(tenant: string, state: unknown): void {
    this.loadFrom(null);
    this.state = state;
    this.tenant = tenant;
    this.cold = true;
  }

  /** Takes what the store holds (null: nothing) as the committed state. */
  loadFrom(stored: StoredActor | null): void {
    this.cold = false;
    if (stored === null) this.#reset();
    else {
      const r = stored.record;
      this.state = this.def.load ? this.def.load(r.state, r.v) : r.state;
      this.seq = r.seq;
      this.version = stored.version;
      this.tenant = r.tenant;
      this.timers = { ...r.timers };
      this.indexes = r.indexes;
    }
    // Another instance may have cleared the marker: the next commit writes it again, from the
    // first seq this instance may not have delivered yet (markerFrom, kept: ARCHITECTURE 4).
    this.#takeStoredMarker(stored?.unpublishedFrom);
    this.marker = "none";
    this.loaded = true;
    this.assumedNew = false;
    // Another writer may have stored replies since a read made ahead: count the load as a
    // commit whose replies are unknown, so no earlier read ahead is used.
    this.committed++;
    this.forgottenUpTo = this.committed;
    this.recentReplies = [];
  }

  /**
   * A marker the store holds from before this instance's own (a crash, or a partition gained
   * before its sweep listed it): the next commit writes it no later, and the marker sweep
   * publishes its changes again before clearing it, so they are never left off the bus.
   */
  #takeStoredMarker(from: number | undefined): void {
    if (from === undefined) return;
    if (this.markerFrom !== null && this.markerFrom <= from) return; // this instance's own
    this.markerFrom = from;
    this.publishFailed = true;
  }

  /** Takes a committed write as the state, its replies as the latest remembered. */
  applyCommitted(plan: Plan, write: ActorWrite, version: string): void {
    this.assumedNew = false;
    this.cold = false;
    this.state = plan.state;
    this.seq = write.record.seq;
    this.tenant = write.record.tenant;
    this.timers = { ...write.record.timers };
    this.indexes = write.record.indexes;
    this.version = version;
    this.committedAt = performance.now();
    if (plan.publish && write.unpublishedFrom !== null) {
      this.marker = "set";
      this.markerFrom = write.unpublishedFrom;
    }
    this.#rememberReplies(write);
  }

  #rememberReplies(write: ActorWrite): void {
    this.committed++;
    if (write.replies.length === 0) return;
    this.recentReplies.push({
      n: this.committed,
      replies: new Map(write.replies.map((r) => [r.key, r.reply])),
    });
    if (this.recentReplies.length > RECENT_COMMITS_KEPT) {
      this.forgottenUpTo = this.recentReplies.shift()!.n;
    }
  }

  #reset(): void {
    this.state = this.def.initial;
    this.seq = 0;
    this.version = null;
    this.tenant = null;
    this.timers = {};
    this.indexes = [];
  }
}

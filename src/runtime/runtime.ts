/**
 * The actor runtime: actors keyed by type and id, activated from the store on first use, one
 * command at a time per actor, one version-guarded commit per batch of decided commands, reply
 * and publish only after the commit (ARCHITECTURE "Shape" 2-4). `ask()` is the only way in.
 */
import type { Bus } from "../bus/bus.ts";
import { type AnyActorDefinition, type AskOptions, type CommandOf, type ReplyOf } from "./actor.ts";
import type { Clock } from "./clock.ts";
import type { Forwarded, Forwarding } from "./forwarding.ts";
import type { RuntimeOptions } from "./runtime_options.ts";
import { Lookups } from "./lookups.ts";
import type { Mailboxes } from "./mailboxes.ts";
import { readInMemory } from "./memory_read.ts";
import type { MarkerSweeper } from "./markers.ts";
import type { Outboxes, OutboxHandler, OutboxRetry } from "./outbox.ts";
import { ActorFailure, type AskResult } from "./plan.ts";
import { recoverUnpublished } from "./publication.ts";
import { reindexStored } from "./reindex.ts";
import type {
  ActorKey,
  ActorStore,
  DueTimer,
  IndexEntryFound,
  IndexTarget,
  StoredEvent,
  StoredRecord,
} from "./store.ts";
import { type Placement, WholePlacement } from "./placement.ts";
import type { Fencing } from "./fencing.ts";
import { type GainedSweeps, heldPartitions, holdsActor } from "./held.ts";
import type { TimerFiring } from "./timer_firing.ts";
import { SweepLoops } from "./sweep_loops.ts";
import type { ColdSource, Turns } from "./turn.ts";
import type { CommitStats } from "./group_commit.ts";
import { runtimeParts } from "./runtime_parts.ts";

export { ActorFailure, type AskOptions, type AskResult, type ColdSource, type OutboxHandler };
export type { RuntimeOptions };

export class ActorRuntime {
  readonly env: string;
  readonly busPrefix: string;
  readonly clock: Clock;
  readonly placement: Placement;
  readonly #store: ActorStore;
  readonly #bus: Bus;
  readonly #defs = new Map<string, AnyActorDefinition>();
  readonly #mailboxes: Mailboxes;
  readonly #turns: Turns;
  readonly #onError: (error: unknown, where: string) => void;
  readonly #timers: TimerFiring;
  readonly #lookups = new Lookups();
  readonly #markers: MarkerSweeper;
  readonly #outboxes: Outboxes;
  readonly #coldSources = new Map<string, ColdSource>();
  /** Undefined under WholePlacement: one instance alone forwards nothing. */
  readonly #forwarding: Forwarding | undefined;
  readonly #loops = new SweepLoops();
  readonly #gains: GainedSweeps;
  #closed = false;
  /** Set when the placement's partitions are leased (fencing.ts). */
  readonly #fencing: Fencing | null;

  constructor(options: RuntimeOptions) {
    this.env = options.env;
    this.busPrefix = options.busPrefix ?? options.env;
    this.clock = options.clock;
    this.placement = options.placement ?? new WholePlacement();
    this.#store = options.store;
    this.#bus = options.bus;
    for (const def of options.definitions) this.#defs.set(def.type, def);
    this.#onError = options.onError ?? ((e, where) => console.error(`runtime: ${where}:`, e));
    const parts = runtimeParts(options, {
      busPrefix: this.busPrefix,
      placement: this.placement,
      onError: this.#onError,
      coldSource: (type) => this.#coldSources.get(type),
      closed: () => this.#closed,
      fireTimer: (t) => this.#fireTimer(t),
      here: (call) => this.#here(call),
      recoverUnpublished: (held) => this.recoverUnpublished(held),
      fireDueTimers: () => this.fireDueTimers(),
      sweepOutboxes: () => this.sweepOutboxes(),
    });
    this.#outboxes = parts.outboxes;
    this.#gains = parts.gains;
    this.#turns = parts.turns;
    this.#mailboxes = parts.mailboxes;
    this.#timers = parts.timers;
    this.#markers = parts.markers;
    this.#fencing = parts.fencing;
    this.#forwarding = parts.forwarding;
  }

  /** A forwarded call, made here where its partition is held. */
  #here(call: Forwarded): Promise<AskResult<unknown>> {
    const def = this.#defs.get(call.type);
    if (!def) return Promise.reject(new ActorFailure(`actor type not registered: ${call.type}`));
    return call.kind === "read"
      ? this.#readHere(def, call.tenant, call.id, call.command)
      : this.#enqueue(def, call.tenant, call.id, call.command, call.options);
  }

  /** Sends one command to one actor and waits for its reply, from its holder (forwarding.ts). */
  ask<D extends AnyActorDefinition>(
    def: D,
    tenant: string,
    id: string,
    command: CommandOf<D>,
    options: AskOptions = {},
  ): Promise<AskResult<ReplyOf<D>>> {
    const f = this.#forwarding;
    // Clustered, always through the forwarding: a lease lost mid-call is retried at its holder.
    const answer = f !== undefined
      ? f.forward({ kind: "ask", type: def.type, tenant, id, command, options })
      : this.#enqueue(def, tenant, id, command, options);
    return answer as Promise<AskResult<ReplyOf<D>>>;
  }

  /**
   * Answers a command that changes nothing (a `get`, a credential check) from the actor's last
   * committed state, without waiting behind the commands in its mailbox. Linearizable: every
   * reply already given was for a committed state, so this read sees each of them; a command
   * still in flight is simply ordered after it. A command that would write (events or timers)
   * or an actor not in memory takes its turn as an ask does; held elsewhere, it is forwarded.
   */
  read<D extends AnyActorDefinition>(
    def: D,
    tenant: string,
    id: string,
    command: CommandOf<D>,
  ): Promise<AskResult<ReplyOf<D>>> {
    const f = this.#forwarding;
    const answer = f !== undefined
      ? f.forward({ kind: "read", type: def.type, tenant, id, command, options: {} })
      : this.#readHere(def, tenant, id, command);
    return answer as Promise<AskResult<ReplyOf<D>>>;
  }

  /** A read where the actor is held: from memory (memory_read.ts), else in its turn. */
  #readHere(def: AnyActorDefinition, tenant: string, id: string, command: unknown) {
    const cell = this.#closed ? undefined : this.#mailboxes.peek(`${def.type}/${id}`);
    // Leased: answered from memory only while the lease holds (else `ask` refuses it, NotHeld).
    const held = cell !== undefined && (this.#fencing === null || this.#fencing.holds(cell.key));
    const answered = held && readInMemory(cell, def, tenant, id, command, this.clock.now());
    return answered ? Promise.resolve(answered) : this.#enqueue(def, tenant, id, command, {});
  }

  /**
   * Finds the actor registered under a secondary key (an API key hash, an e-mail). With `cached`
   * a found target may be remembered: only for lookups whose actor verifies the key itself, as
   * credentials are (a revoked key's actor refuses it, and `forget` drops the entry).
   */
  async lookup(index: string, key: string, options: { cached?: boolean } = {}): Promise<
    IndexTarget | null
  > {
    const hit = options.cached ? this.#lookups.get(index, key) : undefined;
    if (hit) return hit;
    const found = await this.#store.lookup(index, key);
    if (found && options.cached) this.#lookups.remember(index, key, found);
    return found;
  }

  /** Entries of `index` whose key begins with `prefix`, at most `limit` (ActorStore.lookupPrefix). */
  lookupPrefix(index: string, prefix: string, limit: number): Promise<IndexEntryFound[]> {
    return this.#store.lookupPrefix(index, prefix, limit);
  }

  /**
   * Whether a command sent under `idempotencyKey` was committed by this actor, without sending
   * one: a retry that may no longer make the command (expired prices) still completes one made.
   */
  async committedUnder(def: AnyActorDefinition, id: string, idempotencyKey: string): Promise<
    boolean
  > {
    return (await this.replyUnder(def, id, idempotencyKey)) !== null;
  }

  /** The reply kept for a command committed under `idempotencyKey`, or null if none was. */
  async replyUnder<D extends AnyActorDefinition>(
    def: D,
    id: string,
    idempotencyKey: string,
  ): Promise<{ readonly reply: ReplyOf<D> } | null> {
    const found = await this.#store.replies({ type: def.type, id }, [idempotencyKey]);
    return found.has(idempotencyKey) ? { reply: found.get(idempotencyKey) as ReplyOf<D> } : null;
  }

  /** Drops a remembered lookup (the actor refused the key). */
  forget(index: string, key: string): void {
    this.#lookups.forget(index, key);
  }

  /** The stored events of one actor from a sequence number on (trails, recovery). */
  events(def: AnyActorDefinition, id: string, fromSeq = 1): AsyncIterable<StoredEvent> {
    return this.#store.events({ type: def.type, id }, fromSeq);
  }

  /**
   * Every stored actor of a definition's type, a page at a time in id order, as stored (before
   * `load`): a pass that brings old data to today's rules finds its actors here.
   */
  async *stored(def: AnyActorDefinition, pageSize = 200): AsyncIterable<StoredRecord> {
    let after: string | null = null;
    for (;;) {
      const page = await this.#store.stored(def.type, after, pageSize);
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.id;
    }
  }

  /** Whether a one-time pass over the store was completed, by any instance (ActorStore.passDone). */
  passDone(name: string): Promise<boolean> {
    return this.#store.passDone(name);
  }

  /** Records a one-time pass as completed, for every instance sharing the store. */
  markPassDone(name: string): Promise<void> {
    return this.#store.markPassDone(name);
  }

  get commitStats(): CommitStats {
    return this.#turns.commitStats;
  }

  get activeActors(): number {
    return this.#mailboxes.size;
  }

  /** Commands waiting in the mailboxes of the actors in memory: all of them, and the most at one. */
  mailboxDepth(): { waiting: number; deepest: number } {
    return this.#mailboxes.depth();
  }

  /** How many timers are due by the clock's now and not yet fired, counted up to `limit`. */
  async timersDue(limit: number): Promise<number> {
    const held = heldPartitions(this.placement);
    return (await this.#store.dueTimers(this.clock.now(), limit, held)).length;
  }

  /**
   * Names the handler of one outbox (ActorDefinition.outbox): it is given each item once
   * committed, and again by a sweep when a crash or a failure left it. Idempotent, as an item may
   * be handled twice; an item it throws on stays, tried again after a backoff (outbox.ts). The
   * answer releases it.
   */
  handleOutbox(outbox: string, handler: OutboxHandler, retry?: OutboxRetry): () => void {
    return this.#outboxes.register(outbox, handler, retry);
  }

  /**
   * Names where actors of `type` the store does not hold are found (a feature's delivery-log
   * rows, written instead of an actor for work that needed none): an ask or read of such an actor
   * is answered from that state, and its first commit stores it. The answer releases the source.
   */
  coldSource(type: string, source: ColdSource): () => void {
    this.#coldSources.set(type, source);
    return () => {
      if (this.#coldSources.get(type) === source) this.#coldSources.delete(type);
    };
  }

  /** Outbox handlings begun since start: a settling sees whether any began meanwhile. */
  get outboxHandlings(): number {
    return this.#outboxes.begun;
  }

  /** Resolves once no outbox item is being handled (a test's or a close's settling). */
  outboxesIdle(): Promise<void> {
    return this.#outboxes.idle();
  }

  /** Hands every stored outbox item to its handler (outbox.ts); answers how many were handled. */
  sweepOutboxes(): Promise<number> {
    return this.#outboxes.sweep();
  }

  /**
   * Rewrites index entries of an old shape, republishes events a crash may have kept off the
   * bus, hands over the outbox items it left, then starts the timer loop.
   */
  async start(options: { timerPollMs?: number } = {}): Promise<void> {
    // Before anything reads an index: entries of an old key shape are rewritten (reindex.ts).
    await reindexStored(this.#store, this.#defs.values(), this.#onError);
    // What a partition's old holder left is finished here once it is gained (held.ts).
    this.#gains.follow(this.placement);
    await this.recoverUnpublished();
    await this.sweepOutboxes();
    this.#forwarding?.start();
    this.#loops.start(this, this.#onError, options.timerPollMs);
  }

  /**
   * Fires every timer due by the clock's now, repeatedly, until none is due. A caller during a
   * firing waits for it and one more (timer_firing.ts): never answered at once while timers wait.
   */
  fireDueTimers(): Promise<number> {
    return this.#timers.fire();
  }

  /** Republishes the changes a crash kept off the bus (publication.ts). */
  recoverUnpublished(held = heldPartitions(this.placement)): Promise<number> {
    const holds = (key: ActorKey) => holdsActor(this.placement, key);
    return recoverUnpublished(this.#store, this.#bus, this.busPrefix, this.#defs, this.#onError, {
      held,
      holds,
    });
  }

  /** Resolves once the sweeps of the partitions gained so far are done (tests). */
  gainsSwept(): Promise<void> {
    return this.#gains.idle();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#forwarding?.close();
    await this.#gains.close();
    this.#loops.stopTimersAndMarkers();
    // Let every actor finish what it holds, then clear what can be cleared.
    for (let i = 0; i < 100; i++) {
      const busy = [...this.#mailboxes.values()].some((c) => !c.idle);
      if (!busy && this.#timers.idle) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    this.#loops.stopOutboxes();
    await this.#outboxes.close();
    await this.sweepMarkers(); // waits for a sweep under way, then
    await this.sweepMarkers(); // clears what that one did not see
  }

  #fireTimer(t: DueTimer): Promise<unknown> {
    const def = this.#defs.get(t.type);
    return def ? this.#mailboxes.fireTimer(def, t) : this.#store.dropTimer(t);
  }

  #enqueue(
    def: AnyActorDefinition,
    tenant: string,
    id: string,
    command: unknown,
    options: AskOptions,
  ): Promise<AskResult<unknown>> {
    if (this.#closed) return Promise.reject(new ActorFailure("runtime is closed"));
    if (this.#defs.get(def.type) !== def) {
      return Promise.reject(new ActorFailure(`actor type not registered: ${def.type}`));
    }
    return this.#mailboxes.enqueue(def, { type: def.type, id }, tenant, command, options);
  }

  /**
   * Removes the recovery markers of idle actors whose events are on the bus (markers.ts), of
   * those that committed at least `minAgeMs` ago; a caller during a sweep waits for it.
   */
  sweepMarkers(minAgeMs = 0): Promise<number> {
    return this.#markers.sweep(minAgeMs);
  }
}

/**
 * The actor runtime: actors keyed by type and id, activated from the store on first use, one
 * command at a time per actor, one version-guarded commit per batch of decided commands, reply
 * and publish only after the commit (ARCHITECTURE "Shape" 2-4). `ask()` is the only way in.
 */
import { type ActorChange, type Bus, subjectOf } from "../bus/bus.ts";
import {
  ACTOR_BATCH_COMMANDS_MAX,
  ACTORS_ACTIVE_MAX,
  CONFLICT_RETRIES_MAX,
  MAILBOX_DEPTH_MAX,
  MARKER_SWEEP_MS,
  MARKERS_PER_SWEEP_MAX,
} from "../limits.ts";
import {
  type AnyActorDefinition,
  asIfMissing,
  type AskOptions,
  type CommandOf,
  type ReplyOf,
} from "./actor.ts";
import type { Clock } from "./clock.ts";
import { newId } from "./ids.ts";
import {
  ActorFailure,
  asError,
  type AskResult,
  type Envelope,
  type Outcome,
  type Plan,
  planBatch,
  type Prefetched,
} from "./plan.ts";
import { fitsOneCommit, GroupCommitter, type WriteResult } from "./group_commit.ts";
import type {
  ActorKey,
  ActorStore,
  ActorWrite,
  IndexTarget,
  StoredEvent,
  TimerRecord,
} from "./store.ts";

export { ActorFailure, type AskOptions, type AskResult };

export interface RuntimeOptions {
  /** `live` or `sandbox`. */
  readonly env: string;
  /**
   * The first token of every bus subject this runtime publishes, and the `env` its changes
   * carry: the environment and its deployment (src/server.ts), so deployments sharing one NATS
   * never hear each other. Default: `env`.
   */
  readonly busPrefix?: string;
  readonly store: ActorStore;
  readonly bus: Bus;
  readonly clock: Clock;
  readonly definitions: readonly AnyActorDefinition[];
  /** Batch writes of many actors into one store transaction (default on). */
  readonly groupCommit?: boolean;
  readonly onError?: (error: unknown, where: string) => void;
}

class Cell {
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
  /** The first seq the store's marker names, once this instance wrote it (null: not known). */
  markerFrom: number | null = null;
  /** The publication of the last commit; the marker goes only once it is delivered. */
  lastPublish: Promise<void> = Promise.resolve();
  /** Loaded without a read, on the word of a `fresh` ask; cleared by the first commit or read. */
  assumedNew = false;
  readonly mailbox: Envelope[] = [];
  running = false;
  /** Commits completed, and the replies the last few stored (newer than a read made before). */
  committed = 0;
  recentReplies: { readonly n: number; readonly replies: ReadonlyMap<string, unknown> }[] = [];
  /** The newest commit whose replies are no longer kept. */
  forgottenUpTo = 0;
  /** Commands waiting in the mailbox whose stored replies are still to be read ahead. */
  toPrefetch: Envelope[] = [];
  constructor(readonly def: AnyActorDefinition, readonly key: ActorKey) {
    this.state = def.initial;
  }
}

/** Commits whose replies an actor keeps in memory, to complete a read made ahead of them. */
const RECENT_COMMITS_KEPT = 8;

/** Remembered credential lookups; the map starts afresh past this (bounded memory). */
const LOOKUP_CACHE_MAX = 50_000;

export class ActorRuntime {
  readonly env: string;
  readonly busPrefix: string;
  readonly clock: Clock;
  readonly #store: ActorStore;
  readonly #bus: Bus;
  readonly #defs = new Map<string, AnyActorDefinition>();
  readonly #cells = new Map<string, Cell>();
  readonly #committer: GroupCommitter | null;
  readonly #onError: (error: unknown, where: string) => void;
  #timerLoop: ReturnType<typeof setInterval> | undefined;
  #firing = false;
  readonly #lookups = new Map<string, IndexTarget>();
  /** Idle actors whose recovery markers can go at the next sweep. */
  readonly #toClear = new Map<string, Cell>();
  #sweep: Promise<number> | null = null;
  #sweepLoop: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: RuntimeOptions) {
    this.env = options.env;
    this.busPrefix = options.busPrefix ?? options.env;
    this.clock = options.clock;
    this.#store = options.store;
    this.#bus = options.bus;
    for (const def of options.definitions) this.#defs.set(def.type, def);
    this.#committer = options.groupCommit === false ? null : new GroupCommitter(options.store);
    this.#onError = options.onError ?? ((e, where) => console.error(`runtime: ${where}:`, e));
  }

  /** Sends one command to one actor and waits for its committed reply. */
  ask<D extends AnyActorDefinition>(
    def: D,
    tenant: string,
    id: string,
    command: CommandOf<D>,
    options: AskOptions = {},
  ): Promise<AskResult<ReplyOf<D>>> {
    return this.#enqueue(def, { type: def.type, id }, tenant, command, options) as Promise<
      AskResult<ReplyOf<D>>
    >;
  }

  /**
   * Answers a command that changes nothing (a `get`, a credential check) from the actor's last
   * committed state, without waiting behind the commands in its mailbox. Linearizable: every
   * reply already given was for a committed state, so this read sees each of them; a command
   * still in flight is simply ordered after it. A command that would write (events or timers)
   * or an actor not in memory goes through `ask` as usual.
   */
  read<D extends AnyActorDefinition>(
    def: D,
    tenant: string,
    id: string,
    command: CommandOf<D>,
  ): Promise<AskResult<ReplyOf<D>>> {
    const cell = this.#cells.get(`${def.type}/${id}`);
    if (!this.#closed && cell && cell.def === def && cell.loaded && !cell.assumedNew) {
      if (cell.tenant !== null && cell.tenant !== tenant) {
        return Promise.resolve(asIfMissing(def, id, command, { now: this.clock.now(), newId }));
      }
      try {
        const d = def.decide(cell.state, command, { now: this.clock.now(), newId });
        if (!d.ok) return Promise.resolve(d);
        if (d.events.length === 0 && (d.timers?.length ?? 0) === 0) {
          const reply = d.reply ? d.reply(cell.state, { seq: cell.seq }) : undefined;
          return Promise.resolve({ ok: true, reply: reply as ReplyOf<D>, replayed: false });
        }
      } catch {
        // Decided in turn instead, where a failure is reported as it always is.
      }
    }
    return this.ask(def, tenant, id, command);
  }

  /**
   * Finds the actor registered under a secondary key (an API key hash, an e-mail). With `cached`
   * a found target may be remembered: only for lookups whose actor verifies the key itself, as
   * credentials are (a revoked key's actor refuses it, and `forget` drops the entry).
   */
  async lookup(index: string, key: string, options: { cached?: boolean } = {}): Promise<
    IndexTarget | null
  > {
    const k = `${index}\u0000${key}`;
    if (options.cached) {
      const hit = this.#lookups.get(k);
      if (hit) return hit;
    }
    const found = await this.#store.lookup(index, key);
    if (found && options.cached) {
      if (this.#lookups.size >= LOOKUP_CACHE_MAX) this.#lookups.clear();
      this.#lookups.set(k, found);
    }
    return found;
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
    this.#lookups.delete(`${index}\u0000${key}`);
  }

  /** The stored events of one actor from a sequence number on (trails, recovery). */
  events(def: AnyActorDefinition, id: string, fromSeq = 1): AsyncIterable<StoredEvent> {
    return this.#store.events({ type: def.type, id }, fromSeq);
  }

  get commitStats(): { commits: number; writes: number; commitMs: number } {
    return this.#committer?.stats ?? { commits: 0, writes: 0, commitMs: 0 };
  }

  get activeActors(): number {
    return this.#cells.size;
  }

  /** Republishes events a crash may have kept off the bus, then starts the timer loop. */
  async start(options: { timerPollMs?: number } = {}): Promise<void> {
    await this.recoverUnpublished();
    this.#sweepLoop = setInterval(() => {
      this.sweepMarkers().catch((e) => this.#onError(e, "recovery markers"));
    }, MARKER_SWEEP_MS);
    if (this.clock.kind === "system" && options.timerPollMs !== undefined) {
      this.#timerLoop = setInterval(() => {
        this.fireDueTimers().catch((e) => this.#onError(e, "timers"));
      }, options.timerPollMs);
    }
  }

  /** Fires every timer due by the clock's now, repeatedly, until none is due. */
  async fireDueTimers(): Promise<number> {
    if (this.#firing) return 0;
    this.#firing = true;
    let fired = 0;
    try {
      for (let round = 0; round < 1_000 && !this.#closed; round++) {
        const due = await this.#store.dueTimers(this.clock.now(), 500);
        if (due.length === 0) break;
        const results = await Promise.allSettled(due.map((t) => this.#fireTimer(t)));
        for (const r of results) if (r.status === "rejected") this.#onError(r.reason, "timer");
        fired += due.length;
      }
    } finally {
      this.#firing = false;
    }
    return fired;
  }

  async recoverUnpublished(): Promise<number> {
    let republished = 0;
    for (let round = 0; round < 10_000; round++) {
      const batch = await this.#store.unpublished(100);
      if (batch.length === 0) break;
      for (const u of batch) {
        const def = this.#defs.get(u.type);
        const stored = await this.#store.load(u);
        if (!def || !stored) continue;
        const events: StoredEvent[] = [];
        for await (const e of this.#store.events(u, u.from)) events.push(e);
        const state = def.load
          ? def.load(stored.record.state, stored.record.v)
          : stored.record.state;
        await this.#publish(def, u, stored.record.tenant, stored.record.seq, events, state);
        await this.#bus.flush();
        await this.#store.markPublished([{ key: u, version: stored.version }]);
        republished++;
      }
    }
    return republished;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timerLoop !== undefined) clearInterval(this.#timerLoop);
    if (this.#sweepLoop !== undefined) clearInterval(this.#sweepLoop);
    // Let every actor finish what it holds, then clear what can be cleared.
    for (let i = 0; i < 100; i++) {
      const busy = [...this.#cells.values()].some((c) => c.running || c.mailbox.length > 0);
      if (!busy && !this.#firing) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await this.sweepMarkers(); // waits for a sweep under way, then
    await this.sweepMarkers(); // clears what that one did not see
  }

  #fireTimer(t: { type: string; id: string; name: string; at: number }): Promise<unknown> {
    const def = this.#defs.get(t.type);
    if (!def) return this.#store.dropTimer(t);
    return new Promise((resolve, reject) => {
      const cell = this.#cell(def, t);
      cell.mailbox.push({
        tenant: "",
        command: null,
        idempotencyKey: undefined,
        permanent: false,
        fresh: false,
        timer: { name: t.name, at: t.at },
        resolve,
        reject,
      });
      this.#run(cell);
    });
  }

  #enqueue(
    def: AnyActorDefinition,
    key: ActorKey,
    tenant: string,
    command: unknown,
    options: AskOptions,
  ): Promise<AskResult<unknown>> {
    if (this.#closed) return Promise.reject(new ActorFailure("runtime is closed"));
    if (this.#defs.get(def.type) !== def) {
      return Promise.reject(new ActorFailure(`actor type not registered: ${def.type}`));
    }
    const cell = this.#cell(def, key);
    if (cell.mailbox.length >= MAILBOX_DEPTH_MAX) {
      return Promise.resolve({
        ok: false,
        code: "actor_busy",
        message: `too many commands waiting for ${key.type} ${key.id}: ${cell.mailbox.length}`,
      });
    }
    return new Promise((resolve, reject) => {
      cell.mailbox.push({
        tenant,
        command,
        idempotencyKey: options.idempotencyKey,
        permanent: options.permanent ?? false,
        fresh: options.fresh ?? false,
        timer: undefined,
        resolve,
        reject,
      });
      if (options.idempotencyKey !== undefined && cell.running && cell.loaded) {
        this.#prefetchSoon(cell, cell.mailbox.at(-1)!);
      }
      this.#run(cell);
    });
  }

  #cell(def: AnyActorDefinition, key: ActorKey): Cell {
    const k = `${key.type}/${key.id}`;
    let cell = this.#cells.get(k);
    if (cell) {
      // Map order is recency order: move to the back.
      this.#cells.delete(k);
      this.#cells.set(k, cell);
      return cell;
    }
    cell = new Cell(def, { type: key.type, id: key.id });
    this.#cells.set(k, cell);
    if (this.#cells.size > ACTORS_ACTIVE_MAX) this.#evictIdle();
    return cell;
  }

  #evictIdle(): void {
    for (const [k, c] of this.#cells) {
      if (this.#cells.size <= ACTORS_ACTIVE_MAX * 0.9) break;
      if (!c.running && c.mailbox.length === 0 && c.marker === "none") this.#cells.delete(k);
    }
  }

  #run(cell: Cell): void {
    if (cell.running) return;
    cell.running = true;
    this.#drain(cell)
      .catch((e) => this.#onError(e, `${cell.key.type} ${cell.key.id}`))
      .finally(() => {
        cell.running = false;
        if (cell.mailbox.length > 0) this.#run(cell);
      });
  }

  async #drain(cell: Cell): Promise<void> {
    while (cell.mailbox.length > 0) {
      const batch = cell.mailbox.splice(0, cell.def.batchMax ?? ACTOR_BATCH_COMMANDS_MAX);
      await this.#handle(cell, batch);
    }
    if (cell.marker === "set") this.#toClear.set(`${cell.key.type}/${cell.key.id}`, cell);
  }

  /**
   * Removes the recovery markers of idle actors whose events are on the bus, many per store
   * write. Beside the actors, not in their turn: each removal is guarded by the actor's version,
   * and a commit made meanwhile writes the marker again, so no event is ever left unprotected.
   */
  sweepMarkers(): Promise<number> {
    // One sweep at a time; a caller during a sweep waits for it (close() must not outrun it).
    this.#sweep ??= this.#sweepOnce().finally(() => {
      this.#sweep = null;
    });
    return this.#sweep;
  }

  async #sweepOnce(): Promise<number> {
    try {
      let cleared = 0;
      while (this.#toClear.size > 0) {
        const cells: { cell: Cell; version: string }[] = [];
        for (const [k, cell] of this.#toClear) {
          this.#toClear.delete(k);
          const idle = !cell.running && cell.mailbox.length === 0;
          if (!idle || cell.marker !== "set" || cell.version === null) continue;
          cell.marker = "clearing";
          cells.push({ cell, version: cell.version });
          if (cells.length >= MARKERS_PER_SWEEP_MAX) break;
        }
        if (cells.length === 0) continue;
        await Promise.all(cells.map((c) => c.cell.lastPublish));
        await this.#bus.flush();
        // An actor that committed meanwhile wrote its marker again: left out, so that its moved
        // version does not fail the whole removal (which then clears the others one by one).
        const still = cells.filter((c) =>
          c.cell.marker === "clearing" && c.cell.version === c.version
        );
        for (const c of cells) {
          // Moved on without a new marker (a commit with nothing for the bus): the next sweep.
          if (c.cell.marker === "clearing" && !still.includes(c)) {
            c.cell.marker = "set";
            this.#toClear.set(`${c.cell.key.type}/${c.cell.key.id}`, c.cell);
          }
        }
        const done = await this.#store.markPublished(
          still.map((c) => ({ key: c.cell.key, version: c.version })),
        );
        still.forEach((c, i) => {
          if (c.cell.marker !== "clearing") return; // a commit wrote the marker again meanwhile
          c.cell.marker = done[i] ? "none" : "set";
          if (done[i]) c.cell.markerFrom = null;
        });
        cleared += done.filter(Boolean).length;
      }
      return cleared;
    } catch (e) {
      for (const cell of this.#cells.values()) if (cell.marker === "clearing") cell.marker = "set";
      this.#onError(e, "recovery markers");
      return 0;
    }
  }

  async #handle(cell: Cell, batch: Envelope[]): Promise<void> {
    for (let attempt = 0;; attempt++) {
      let plan: Plan;
      try {
        if (!cell.loaded) {
          // A batch of only freshly minted ids may skip the read (see AskOptions.fresh).
          if (attempt === 0 && batch.every((e) => e.fresh)) this.#assumeNew(cell);
          else await this.#load(cell);
        }
        const stored = await this.#storedReplies(cell, batch, attempt);
        plan = planBatch(cell, batch, stored, () => this.clock.now());
        if (cell.assumedNew && plan.write === null) {
          cell.loaded = false; // nothing to write proves nothing: decide on the stored state
          continue;
        }
      } catch (e) {
        cell.loaded = false;
        return fail(batch, e);
      }
      for (const t of plan.staleTimers) {
        await this.#store.dropTimer({ ...cell.key, ...t });
      }
      if (plan.write === null) return settle(batch, plan.outcomes);
      let write = plan.write;
      if (batch.length > 1 && !fitsOneCommit(this.#store.cost(write))) {
        // More than the store takes in one transaction (its commit would be refused, and every
        // command with it): the batch is decided again in halves, each committed in turn.
        const half = Math.ceil(batch.length / 2);
        await this.#handle(cell, batch.slice(0, half));
        await this.#handle(cell, batch.slice(half));
        return;
      }
      const claims = claimsOf(cell.def, write);
      if (claims.length > 0) {
        const held = await this.#heldClaims(cell.key, claims);
        if (held.taken) {
          // Refused alone: the command that takes the key is found by deciding one at a time.
          if (batch.length > 1) {
            for (const e of batch) await this.#handle(cell, [e]);
            return;
          }
          const { index, key } = held.taken;
          return settle(batch, [{
            ok: false,
            code: "index_taken",
            message: `${index} already taken: ${key}`,
            details: { index, key },
          }]);
        }
        write = { ...write, indexClaims: held.free };
      }
      const result = await this.#commit(write);
      if (result.ok) {
        this.#applyCommitted(cell, plan, write, result.version);
        this.#rememberReplies(cell, write);
        settle(batch, plan.outcomes);
        return;
      }
      cell.loaded = false; // another writer moved on, or the store failed: reload the truth
      if (result.reason === "error") return fail(batch, result.error);
      if (attempt >= CONFLICT_RETRIES_MAX) {
        return fail(batch, new ActorFailure(`${cell.key.type} ${cell.key.id}: conflicts persist`));
      }
    }
  }

  /** Which unique keys are free (the commit checks they still are), or one another actor holds. */
  async #heldClaims(
    self: ActorKey,
    claims: readonly { index: string; key: string }[],
  ): Promise<{ taken: { index: string; key: string } | null; free: typeof claims }> {
    const free: { index: string; key: string }[] = [];
    for (const c of claims) {
      const target = await this.#store.lookup(c.index, c.key);
      if (target === null) free.push(c);
      else if (target.type !== self.type || target.id !== self.id) return { taken: c, free };
    }
    return { taken: null, free };
  }

  #assumeNew(cell: Cell): void {
    Object.assign(cell, { state: cell.def.initial, seq: 0, version: null, tenant: null });
    cell.timers = {};
    cell.indexes = [];
    cell.marker = "none";
    cell.markerFrom = null;
    cell.loaded = true;
    cell.assumedNew = true;
  }

  #commit(write: ActorWrite): Promise<WriteResult> {
    if (this.#committer) return this.#committer.submit(write);
    return this.#store.commit([write]).then((r) =>
      r.ok ? { ok: true, version: r.versions[0]! } : r
    );
  }

  #applyCommitted(cell: Cell, plan: Plan, write: ActorWrite, version: string): void {
    cell.assumedNew = false;
    cell.state = plan.state;
    cell.seq = write.record.seq;
    cell.tenant = write.record.tenant;
    cell.timers = { ...write.record.timers };
    cell.indexes = write.record.indexes;
    cell.version = version;
    if (!plan.publish) return;
    if (write.unpublishedFrom !== null) {
      cell.marker = "set";
      cell.markerFrom = write.unpublishedFrom;
    }
    cell.lastPublish = this.#publish(
      cell.def,
      cell.key,
      write.record.tenant,
      write.record.seq,
      plan.events,
      plan.state,
    )
      .catch((e) => this.#onError(e, "publish"));
  }

  #publish(
    def: AnyActorDefinition,
    key: ActorKey,
    tenant: string,
    version: number,
    events: readonly StoredEvent[],
    state: unknown,
  ): Promise<void> {
    const change: ActorChange = {
      env: this.busPrefix,
      tenant,
      type: key.type,
      id: key.id,
      version,
      events: def.publishEvents === false
        ? []
        : events.map((e) => ({ seq: e.seq, at: e.at, event: e.event })),
      ...(def.project ? snapshotOf(def.project(state)) : {}),
    };
    return this.#bus.publish(subjectOf(this.busPrefix, tenant, key.type, key.id), change);
  }

  async #load(cell: Cell): Promise<void> {
    const stored = await this.#store.load(cell.key);
    const def = cell.def;
    if (stored === null) {
      Object.assign(cell, { state: def.initial, seq: 0, version: null, tenant: null });
      cell.timers = {};
      cell.indexes = [];
    } else {
      const r = stored.record;
      cell.state = def.load ? def.load(r.state, r.v) : r.state;
      cell.seq = r.seq;
      cell.version = stored.version;
      cell.tenant = r.tenant;
      cell.timers = { ...r.timers };
      cell.indexes = r.indexes;
    }
    // Another instance may have cleared the marker: the next commit writes it again.
    cell.marker = "none";
    cell.markerFrom = null;
    cell.loaded = true;
    cell.assumedNew = false;
    // Another writer may have stored replies since a read made ahead: count the load as a
    // commit whose replies are unknown, so no earlier read ahead is used.
    cell.committed++;
    cell.forgottenUpTo = cell.committed;
    cell.recentReplies = [];
  }

  /**
   * Stored replies for the batch's idempotency keys. A busy actor reads them ahead, while its
   * previous commit is in flight (#prefetchSoon); otherwise the read would queue behind the next
   * group commit and the actor would make only every other one. A read made ahead may predate
   * this actor's latest commits: their replies are added from memory. A retry reads afresh.
   */
  async #storedReplies(
    cell: Cell,
    batch: Envelope[],
    attempt: number,
  ): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    const unread: string[] = [];
    for (const e of batch) {
      const key = e.idempotencyKey;
      if (key === undefined) continue;
      const ahead = attempt === 0 && e.prefetched ? await e.prefetched : null;
      // Usable when every commit made since the read is still remembered.
      if (ahead === null || cell.forgottenUpTo > ahead.since) {
        unread.push(key);
        continue;
      }
      if (ahead.found.has(key)) found.set(key, ahead.found.get(key));
      for (const r of cell.recentReplies) {
        if (r.n > ahead.since && r.replies.has(key)) found.set(key, r.replies.get(key));
      }
    }
    if (unread.length > 0) {
      for (const [k, v] of await this.#store.replies(cell.key, unread)) found.set(k, v);
    }
    return found;
  }

  /** Reads ahead, in one store read per turn of the event loop, the replies of waiting commands. */
  #prefetchSoon(cell: Cell, envelope: Envelope): void {
    cell.toPrefetch.push(envelope);
    if (cell.toPrefetch.length > 1) return;
    queueMicrotask(() => {
      const waiting = cell.toPrefetch;
      cell.toPrefetch = [];
      const since = cell.committed;
      const read: Promise<Prefetched | null> = this.#store
        .replies(cell.key, waiting.map((e) => e.idempotencyKey!))
        .then((found) => ({ since, found }), () => null); // a failed read is made again in turn
      for (const e of waiting) e.prefetched = read;
    });
  }

  #rememberReplies(cell: Cell, write: ActorWrite): void {
    cell.committed++;
    if (write.replies.length === 0) return;
    cell.recentReplies.push({
      n: cell.committed,
      replies: new Map(write.replies.map((r) => [r.key, r.reply])),
    });
    if (cell.recentReplies.length > RECENT_COMMITS_KEPT) {
      cell.forgottenUpTo = cell.recentReplies.shift()!.n;
    }
  }

  /** Decides every command of the batch against the state the previous one left (pure). */
}

function snapshotOf(snapshot: unknown): { snapshot?: unknown } {
  return snapshot === undefined ? {} : { snapshot };
}

/** The keys a write takes in its actor's unique indexes. */
function claimsOf(def: AnyActorDefinition, write: ActorWrite): { index: string; key: string }[] {
  const unique = def.uniqueIndexes;
  if (!unique || write.indexSet.length === 0) return [];
  return write.indexSet.filter((i) => unique.includes(i.index));
}

function settle(batch: Envelope[], outcomes: Outcome[]): void {
  batch.forEach((env, i) => {
    const o = outcomes[i]!;
    if ("failure" in o) env.reject(new ActorFailure(o.failure.message, { cause: o.failure }));
    else env.resolve(o);
  });
}

function fail(batch: Envelope[], e: unknown): void {
  const error = asError(e);
  for (const env of batch) env.reject(new ActorFailure(error.message, { cause: error }));
}

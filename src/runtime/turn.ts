/**
 * One turn of one actor: a batch of its commands decided purely (plan.ts), the write that makes
 * them durable committed under the actor's version (grouped with other actors' writes), then the
 * change put on the bus and the commands answered; a conflict reloads the truth and decides again.
 */
import type { Bus } from "../bus/bus.ts";
import { CONFLICT_RETRIES_MAX } from "../limits.ts";
import type { AnyActorDefinition, Rejection } from "./actor.ts";
import type { Cell } from "./cell.ts";
import type { Clock } from "./clock.ts";
import { commitOutcome } from "./commit_outcome.ts";
import {
  type CommitStats,
  GroupCommitter,
  refusedAsTooLarge,
  type WriteResult,
} from "./group_commit.ts";
import {
  ActorFailure,
  asError,
  type Envelope,
  NotHeld,
  type Outcome,
  type Plan,
  planBatch,
  TooLarge,
} from "./plan.ts";
import { publishChange } from "./publication.ts";
import { storedReplies } from "./replies.ts";
import type { ActorKey, ActorStore, ActorWrite, Fence, OutboxItem } from "./store.ts";

export interface TurnOptions {
  readonly store: ActorStore;
  readonly bus: Bus;
  readonly busPrefix: string;
  readonly clock: Clock;
  /** Batch writes of many actors into one store transaction. */
  readonly groupCommit: boolean;
  readonly onError: (error: unknown, where: string) => void;
  /** Told of each group commit: its writes and milliseconds. */
  readonly onCommit?: ((writes: number, ms: number) => void) | undefined;
  /** Given the outbox items of each write once committed (outbox.ts). */
  readonly onOutbox?: ((items: readonly OutboxItem[]) => void) | undefined;
  /** Where an actor of a type is found when the store holds none (runtime.ts coldSource). */
  readonly coldSource?: ((type: string) => ColdSource | undefined) | undefined;
  /**
   * The lease an actor's commits carry, or the partition when this instance does not hold it
   * (leases.ts); absent when partitions are not leased (one instance alone).
   */
  readonly fence?: ((key: ActorKey) => Fence | number) | undefined;
}

/**
 * The state of an actor the store does not hold, kept elsewhere by its type's feature (a
 * delivery-log row), or null when there is none for this tenant and id.
 */
export type ColdSource = (tenant: string, id: string) => Promise<unknown | null>;

export class Turns {
  readonly #store: ActorStore;
  readonly #bus: Bus;
  readonly #busPrefix: string;
  readonly #clock: Clock;
  readonly #committer: GroupCommitter | null;
  readonly #onError: (error: unknown, where: string) => void;
  readonly #onOutbox: ((items: readonly OutboxItem[]) => void) | undefined;
  readonly #coldSource: ((type: string) => ColdSource | undefined) | undefined;
  readonly #fence: ((key: ActorKey) => Fence | number) | undefined;

  constructor(options: TurnOptions) {
    this.#store = options.store;
    this.#bus = options.bus;
    this.#busPrefix = options.busPrefix;
    this.#clock = options.clock;
    this.#committer = options.groupCommit
      ? new GroupCommitter(options.store, { onCommit: options.onCommit })
      : null;
    this.#onError = options.onError;
    this.#onOutbox = options.onOutbox;
    this.#coldSource = options.coldSource;
    this.#fence = options.fence;
  }

  get commitStats(): CommitStats {
    return this.#committer?.stats ?? { commits: 0, writes: 0, commitMs: 0, mutations: 0, bytes: 0 };
  }

  /**
   * Decides, commits and answers one batch of the actor's commands. A store failing outside the
   * commit (a unique key's lookup, a stale timer's removal) fails the batch: taken out of the
   * mailbox, its commands would otherwise wait for ever. One answered already stays answered.
   */
  async handle(cell: Cell, batch: Envelope[]): Promise<void> {
    try {
      await this.#handle(cell, batch);
    } catch (e) {
      cell.loaded = false; // read the truth again at the next command
      fail(batch, e);
    }
  }

  async #handle(cell: Cell, batch: Envelope[]): Promise<void> {
    for (let attempt = 0;; attempt++) {
      // Decided only where its partition is held: never from the memory of a lease lost.
      const fence = this.#fence?.(cell.key);
      if (typeof fence === "number") {
        cell.loaded = false;
        return notHeld(batch, fence);
      }
      const plan = await this.#plan(cell, batch, attempt);
      if (plan === "again") continue;
      if (plan === null) return;
      if (plan instanceof TooLarge) return this.#tooLarge(cell, batch, plan.refusal);
      for (const t of plan.staleTimers) {
        await this.#store.dropTimer({ ...cell.key, ...t });
      }
      if (plan.write === null) return settle(batch, plan.outcomes);
      const planned = fence === undefined ? plan.write : { ...plan.write, fence };
      const refusal = refusedAsTooLarge(this.#store.cost(planned));
      if (refusal !== null && cell.assumedNew) {
        cell.loaded = false; // decided on a state assumed new, which proves nothing
        continue;
      }
      if (refusal !== null) return this.#tooLarge(cell, batch, refusal);
      const write = await this.#withClaims(cell, batch, planned, attempt);
      if (write === null) return;
      const result = await this.#commit(write, batch.some((e) => e.urgent));
      if (result.ok) return this.#committed(cell, batch, plan, write, result.version);
      if (result.reason === "error") return this.#unknownOutcome(cell, batch, plan, write, result);
      cell.loaded = false; // another writer moved on: reload the truth
      if (result.reason === "fenced") return notHeld(batch, result.partition);
      if (attempt >= CONFLICT_RETRIES_MAX) {
        return fail(batch, new ActorFailure(`${cell.key.type} ${cell.key.id}: conflicts persist`));
      }
    }
  }

  /**
   * A batch whose outcome the store cannot keep: its state past the actor's bound, or its write
   * past one store transaction (a commit that would fail, and every command with it). More than
   * one command: decided again in halves, each committed in turn, down to the one that makes it
   * so. That one alone is refused, nothing of it written: one actor's write is never split. A
   * due timer's is reported and its entry dropped: deciding it again on the same state would be
   * refused again, and it would fire at every pass of the scheduler.
   */
  async #tooLarge(cell: Cell, batch: Envelope[], refusal: Rejection): Promise<void> {
    const timer = batch.length === 1 ? batch[0]!.timer : undefined;
    if (timer !== undefined) {
      await this.#store.dropTimer({ ...cell.key, ...timer });
      this.#onError(new ActorFailure(refusal.message), `${cell.key.type} ${cell.key.id} timer`);
    }
    if (batch.length === 1) return settle(batch, [refusal]);
    const half = Math.ceil(batch.length / 2);
    await this.#handle(cell, batch.slice(0, half));
    await this.#handle(cell, batch.slice(half));
  }

  /**
   * The batch decided on the actor's committed state (read first if not in memory). `again`: it
   * was decided on a state assumed new and wrote nothing, which proves nothing: decide it on the
   * stored state. Null: it failed, and its commands were told. TooLarge: the state it leaves
   * is past the actor's bound (the actor keeps its committed state).
   */
  async #plan(
    cell: Cell,
    batch: Envelope[],
    attempt: number,
  ): Promise<Plan | TooLarge | "again" | null> {
    try {
      if (!cell.loaded) {
        // A batch of only freshly minted ids may skip the read (see AskOptions.fresh).
        if (attempt === 0 && batch.every((e) => e.fresh)) cell.assumeNew();
        else await this.#load(cell, batch);
      }
      const stored = await storedReplies(this.#store, cell, batch, attempt);
      const plan = planBatch(cell, batch, stored, () => this.#clock.now());
      if (cell.assumedNew && plan.write === null) {
        cell.loaded = false;
        return "again";
      }
      // Not in the store: neither remembered as missing (the cold source may hold it by the next
      // command) nor as the source held it (it may change there): read again at the next command.
      if (cell.cold && plan.write === null) cell.loaded = false;
      return plan;
    } catch (e) {
      // Past a bound on the committed state: refused. On a state assumed new: decided again.
      if (e instanceof TooLarge && !cell.assumedNew) return e;
      cell.loaded = false;
      if (e instanceof TooLarge) return "again";
      fail(batch, e);
      return null;
    }
  }

  /**
   * Loads the actor from the store, or, when the store holds none and its type has a cold source,
   * from that source, as the first tenant of the batch it holds it for (another tenant's commands
   * are then answered as for a missing actor, as for any actor).
   */
  async #load(cell: Cell, batch: readonly Envelope[]): Promise<void> {
    const stored = await this.#store.load(cell.key);
    const source = stored === null ? this.#coldSource?.(cell.key.type) : undefined;
    if (source === undefined) return cell.loadFrom(stored);
    for (const tenant of new Set(batch.map((e) => e.tenant))) {
      if (tenant === "") continue; // a timer: only a stored actor has one
      const state = await source(tenant, cell.key.id);
      if (state !== null) return cell.loadCold(tenant, state);
    }
    cell.loadFrom(null);
    cell.cold = true;
  }

  /**
   * The write with the unique keys it takes, each found free (the commit checks they still
   * are). Null when another actor holds one: the batch is then answered here. An urgent batch's
   * first attempt reads nothing (a read waits behind the commits in flight): the commit's check
   * alone guards the keys, and a failed one brings the next attempt here, which reads them.
   */
  async #withClaims(
    cell: Cell,
    batch: Envelope[],
    write: ActorWrite,
    attempt: number,
  ): Promise<ActorWrite | null> {
    const claims = claimsOf(cell.def, write);
    if (claims.length === 0) return write;
    if (attempt === 0 && batch.some((e) => e.urgent)) return { ...write, indexClaims: claims };
    const held = await this.#heldClaims(cell.key, claims);
    if (held.taken === null) return { ...write, indexClaims: held.free };
    // Refused alone: the command that takes the key is found by deciding one at a time.
    if (batch.length > 1) {
      for (const e of batch) await this.#handle(cell, [e]);
      return null;
    }
    const { index, key } = held.taken;
    settle(batch, [{
      ok: false,
      code: "index_taken",
      message: `${index} already taken: ${key}`,
      details: { index, key },
    }]);
    return null;
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

  async #commit(write: ActorWrite, urgent: boolean): Promise<WriteResult> {
    if (this.#committer) return await this.#committer.submit(write, { urgent });
    try {
      const r = await this.#store.commit([write]);
      return r.ok ? { ok: true, version: r.versions[0]! } : r;
    } catch (e) {
      return { ok: false, reason: "error", error: asError(e) };
    }
  }

  /**
   * The store failed the commit without saying whether it landed: the actor's record read back
   * tells (commit_outcome.ts). Landed, the batch is answered with its outcome, never decided
   * again (a command sent without an idempotency key would act twice); not landed, or unknown,
   * it fails and the actor is read afresh at its next command.
   */
  async #unknownOutcome(
    cell: Cell,
    batch: Envelope[],
    plan: Plan,
    write: ActorWrite,
    result: { readonly error: Error },
  ): Promise<void> {
    const outcome = await commitOutcome(this.#store, write);
    if (outcome?.landed) return this.#committed(cell, batch, plan, write, outcome.version);
    cell.loaded = false;
    fail(batch, result.error);
  }

  /** The write is committed: the actor moves on, the change goes on the bus, then the replies. */
  #committed(cell: Cell, batch: Envelope[], plan: Plan, write: ActorWrite, version: string): void {
    cell.applyCommitted(plan, write, version);
    if (plan.publish) {
      cell.lastPublish = publishChange(this.#bus, this.#busPrefix, {
        def: cell.def,
        key: cell.key,
        tenant: write.record.tenant,
        version: write.record.seq,
        events: plan.events,
        state: plan.state,
        requestId: requestOf(batch),
        stateBytes: write.recordBytes,
      }).catch((e) => {
        // Kept off the bus: the marker must not go until it is published again.
        cell.publishFailed = true;
        this.#onError(e, "publish");
      });
    }
    if (write.outbox && this.#onOutbox) this.#onOutbox(write.outbox);
    settle(batch, plan.outcomes);
  }
}

/** The keys a write takes in its actor's unique indexes. */
function claimsOf(def: AnyActorDefinition, write: ActorWrite): { index: string; key: string }[] {
  const unique = def.uniqueIndexes;
  if (!unique || write.indexSet.length === 0) return [];
  return write.indexSet.filter((i) => unique.includes(i.index));
}

/** The request the batch came from; none when its commands came from several (or none). */
function requestOf(batch: readonly Envelope[]): string | undefined {
  const first = batch[0]?.requestId;
  return batch.every((e) => e.requestId === first) ? first : undefined;
}

function settle(batch: Envelope[], outcomes: Outcome[]): void {
  batch.forEach((env, i) => {
    const o = outcomes[i]!;
    if ("failure" in o) env.reject(new ActorFailure(o.failure.message, { cause: o.failure }));
    else env.resolve(o);
  });
}

/** Refused as a whole, recognisably: to be asked again of the partition's holder. */
function notHeld(batch: Envelope[], partition: number): void {
  for (const env of batch) env.reject(new NotHeld(partition));
}

function fail(batch: Envelope[], e: unknown): void {
  const error = asError(e);
  for (const env of batch) env.reject(new ActorFailure(error.message, { cause: error }));
}

/**
 * Deciding a batch of commands for one actor, purely: each command is decided against the state
 * the previous one left, and the result is the outcomes plus the one write that makes them
 * durable. The runtime commits the write and only then settles the outcomes.
 */
import {
  type ActorDefinition,
  type AnyActorDefinition,
  asIfMissing,
  type Ctx,
  type OutboxAdd,
  type Rejection,
  type TimerOp,
} from "./actor.ts";
import { newId } from "./ids.ts";
import { tooLarge } from "./too_large.ts";
import { busEvents } from "./publication.ts";
import { decodeIndex, encodeIndexes, indexesMissing } from "./index_keys.ts";
import { OUTBOX_ITEM_BYTES_MAX, STATE_BYTES_MAX } from "../limits.ts";
import {
  type ActorKey,
  type ActorRecord,
  type ActorWrite,
  type OutboxItem,
  storedBytes,
  type StoredEvent,
  type TimerRecord,
} from "./store.ts";

export interface Envelope {
  readonly tenant: string;
  readonly command: unknown;
  readonly idempotencyKey: string | undefined;
  readonly permanent: boolean;
  readonly fresh: boolean;
  readonly timer: { readonly name: string; readonly at: number } | undefined;
  /** The request the command came from (AskOptions.requestId), for its change. */
  readonly requestId?: string | undefined;
  /** Its write goes in the group commit's urgent lane (AskOptions.urgent). */
  readonly urgent?: boolean;
  readonly resolve: (r: AskResult<unknown>) => void;
  readonly reject: (e: Error) => void;
  /** The stored reply under the idempotency key, read ahead while the actor was busy. */
  prefetched?: Promise<Prefetched | null>;
}

/** Replies read from the store when `since` commits of the actor had completed. */
export interface Prefetched {
  readonly since: number;
  readonly found: ReadonlyMap<string, unknown>;
}

export type Outcome = AskResult<unknown> | { readonly ok: false; readonly failure: Error };

export interface Plan {
  readonly outcomes: Outcome[];
  /** Every event decided, stored in the log or not (ActorDefinition.logEvents). */
  readonly events: readonly StoredEvent[];
  readonly write: ActorWrite | null;
  readonly state: unknown;
  readonly staleTimers: { name: string; at: number }[];
  /** Whether the commit puts a change on the bus (and so first a recovery marker in the store). */
  readonly publish: boolean;
}

/** What planning reads of an activated actor. */
export interface PlanInput {
  readonly def: AnyActorDefinition;
  readonly key: ActorKey;
  readonly state: unknown;
  readonly seq: number;
  readonly tenant: string | null;
  readonly version: string | null;
  readonly timers: Readonly<Record<string, TimerRecord>>;
  readonly indexes: readonly string[];
  /** Whether the store's recovery marker is known to be written already. */
  readonly marker: "none" | "set" | "clearing";
  /** The first seq the store's marker names, while this instance knows it is there. */
  readonly markerFrom: number | null;
}

export type AskResult<R> =
  | { readonly ok: true; readonly reply: R; readonly replayed: boolean }
  | Rejection;

/** Thrown to the asker when a command broke an invariant or the store failed. */
export class ActorFailure extends Error {
  override readonly name = "ActorFailure";
}

/**
 * A command for an actor whose partition this instance does not hold (any more): nothing was
 * decided or written, and it is to be sent to the partition's holder (Placement.ownerOf).
 */
export class NotHeld extends ActorFailure {
  constructor(readonly partition: number) {
    super(`partition ${partition} is not held by this instance: its lease moved`);
  }
}

/**
 * Thrown out of planning when a command makes what the store cannot keep in one value: an outbox
 * item (that command is refused `refusal`, here), or a state past the actor's bound (the runtime
 * finds the command that made it and refuses it, turn.ts). The others go on.
 */
export class TooLarge extends ActorFailure {
  constructor(readonly refusal: Rejection) {
    super(refusal.message);
  }
}

export function planBatch(
  cell: PlanInput,
  batch: readonly Envelope[],
  stored: Map<string, unknown>,
  now: () => number,
): Plan {
  const plan = new BatchPlan(cell, stored, now);
  for (const env of batch) plan.add(env);
  return plan.finish(batch);
}

type Decided = Extract<ReturnType<ActorDefinition<unknown, unknown, unknown, unknown>["decide"]>, {
  ok: true;
}>;

/** A batch being decided: the state each command leaves, and what the write will hold. */
class BatchPlan {
  readonly #cell: PlanInput;
  readonly #def: ActorDefinition<unknown, unknown, unknown, unknown>;
  readonly #stored: Map<string, unknown>;
  readonly #now: () => number;
  #state: unknown;
  #seq: number;
  #tenant: string | null;
  readonly #timers: Record<string, TimerRecord>;
  readonly #outcomes: Outcome[] = [];
  readonly #events: StoredEvent[] = [];
  readonly #replies: { key: string; reply: unknown; permanent: boolean }[] = [];
  readonly #outbox: OutboxItem[] = [];
  readonly #timerSet: { name: string; at: number }[] = [];
  readonly #timerDelete: { name: string; at: number }[] = [];
  readonly #staleTimers: { name: string; at: number }[] = [];
  /** Replies of this batch by idempotency key: the same key again is answered from here. */
  readonly #batchReplies = new Map<string, unknown>();
  #timersChanged = false;

  constructor(cell: PlanInput, stored: Map<string, unknown>, now: () => number) {
    this.#cell = cell;
    this.#def = cell.def as ActorDefinition<unknown, unknown, unknown, unknown>;
    this.#stored = stored;
    this.#now = now;
    this.#state = cell.state;
    this.#seq = cell.seq;
    this.#tenant = cell.tenant;
    this.#timers = { ...cell.timers };
  }

  /** Decides one command against the state the previous one left. */
  add(env: Envelope): void {
    const command = env.timer ? this.#timerCommand(env.timer) : this.#ownCommand(env);
    if (command === undefined) return;
    const key = env.idempotencyKey;
    if (key !== undefined && (this.#stored.has(key) || this.#batchReplies.has(key))) {
      const reply = this.#stored.has(key) ? this.#stored.get(key) : this.#batchReplies.get(key);
      this.#outcomes.push({ ok: true, reply, replayed: true });
      return;
    }
    const at = this.#now();
    const ctx: Ctx = { now: at, newId };
    let next = this.#state;
    let decision;
    const adds: (readonly SizedAdd[])[] = [];
    try {
      decision = this.#def.decide(this.#state, command, ctx);
      if (decision.ok) {
        for (const e of decision.events) {
          next = this.#def.evolve(next, e);
          if (this.#def.outbox) adds.push(this.#def.outbox(e, next).map(sized));
        }
      }
    } catch (e) {
      // A broken invariant: this command fails, the state stays as it was.
      this.#outcomes.push(e instanceof TooLarge ? e.refusal : { ok: false, failure: asError(e) });
      return;
    }
    if (!decision.ok) this.#outcomes.push(decision);
    else this.#accept(env, decision, next, at, adds);
  }

  /** The command a due timer makes; undefined when the timer is stale (answered here). */
  #timerCommand(timer: { readonly name: string; readonly at: number }): unknown {
    const t = this.#timers[timer.name];
    if (!t || t.at !== timer.at) {
      this.#staleTimers.push(timer);
      this.#outcomes.push({ ok: true, reply: undefined, replayed: false });
      return undefined;
    }
    delete this.#timers[timer.name];
    this.#timerDelete.push(timer);
    this.#timersChanged = true;
    return { kind: "timer", name: timer.name, payload: t.payload };
  }

  /** The asked command; undefined for another tenant's actor (answered here). */
  #ownCommand(env: Envelope): unknown {
    if (this.#tenant !== null && env.tenant !== this.#tenant) {
      // spec: courier 1.1; another tenant's actor does not exist for the caller.
      const ctx = { now: this.#now(), newId };
      this.#outcomes.push(asIfMissing(this.#def, this.#cell.key.id, env.command, ctx));
      return undefined;
    }
    return env.command;
  }

  #accept(
    env: Envelope,
    decision: Decided,
    next: unknown,
    at: number,
    adds: readonly (readonly SizedAdd[])[],
  ): void {
    this.#applyTimers(decision.timers ?? []);
    for (const [i, event] of decision.events.entries()) {
      this.#seq++;
      this.#addOutbox(env, adds[i] ?? [], at);
      const kept = this.#def.logged ? this.#def.logged(event) : event;
      const json = JSON.stringify(kept);
      this.#events.push({ seq: this.#seq, at, event: kept, bytes: storedBytes(json) });
    }
    if (decision.events.length > 0 && this.#tenant === null) this.#tenant = env.tenant;
    this.#state = next;
    const reply = decision.reply ? decision.reply(next, { seq: this.#seq }) : undefined;
    const key = env.idempotencyKey;
    if (key !== undefined) {
      const def = this.#def;
      const kept = def.keptReply && reply !== undefined ? def.keptReply(reply) : reply;
      this.#replies.push({ key, reply: kept, permanent: env.permanent });
      // The same key again in this batch is answered from memory: the whole reply, as the first.
      this.#batchReplies.set(key, reply);
    }
    this.#outcomes.push({ ok: true, reply, replayed: false });
  }

  /** The items the event of seq `this.#seq` adds to outboxes (ActorDefinition.outbox). */
  #addOutbox(env: Envelope, adds: readonly SizedAdd[], at: number): void {
    const { type, id } = this.#cell.key;
    const tenant = this.#tenant ?? env.tenant;
    const seq = this.#seq;
    const request = env.requestId === undefined ? {} : { requestId: env.requestId };
    adds.forEach(({ outbox, payload, bytes }, n) => {
      this.#outbox.push({ outbox, type, id, tenant, seq, n, at, payload, bytes, ...request });
    });
  }

  #applyTimers(ops: readonly TimerOp[]): void {
    for (const op of ops) {
      const old = this.#timers[op.name];
      if (old) {
        this.#timerDelete.push({ name: op.name, at: old.at });
        delete this.#timers[op.name];
      }
      if (op.op === "set") {
        this.#timers[op.name] = op.payload === undefined ? { at: op.at } : {
          at: op.at,
          payload: op.payload,
        };
        this.#timerSet.push({ name: op.name, at: op.at });
      }
      this.#timersChanged = true;
    }
  }

  /** The outcomes and the one write that makes them durable (null: nothing to write). */
  finish(batch: readonly Envelope[]): Plan {
    const outcomes = this.#outcomes;
    const events = this.#events;
    const staleTimers = this.#staleTimers;
    const state = this.#state;
    if (events.length === 0 && this.#replies.length === 0 && !this.#timersChanged) {
      return { outcomes, events, write: null, state, staleTimers, publish: false };
    }
    const def = this.#def;
    // A change with nothing for downstream (events kept off the bus, no snapshot) is not sent.
    const publish = events.length > 0 &&
      (busEvents(def, events).length > 0 || def.project?.(state) !== undefined);
    const write = this.#write(this.#tenant ?? batch[0]!.tenant, publish);
    return { outcomes, events, write, state, staleTimers, publish };
  }

  #write(tenant: string, publish: boolean): ActorWrite {
    const cell = this.#cell;
    const def = this.#def;
    const events = this.#events;
    const indexes = events.length > 0 ? encodeIndexes(def, this.#state) : cell.indexes;
    const record: ActorRecord = {
      v: def.version,
      tenant,
      state: this.#state,
      seq: this.#seq,
      timers: this.#timers,
      indexes,
    };
    const recordJson = JSON.stringify(record);
    const recordBytes = recordJson.length;
    const bytesMax = def.stateBytesMax ?? STATE_BYTES_MAX;
    if (recordBytes > bytesMax) {
      const limit = def.stateBytesMax === undefined ? "STATE_BYTES_MAX" : "stateBytesMax";
      throw new TooLarge(
        tooLarge(`the ${cell.key.type}'s state`, recordBytes, bytesMax, limit),
      );
    }
    return {
      type: cell.key.type,
      id: cell.key.id,
      expected: cell.version,
      record,
      events: def.logEvents === false ? [] : events,
      indexSet: indexesMissing(indexes, cell.indexes).map(decodeIndex),
      indexDelete: indexesMissing(cell.indexes, indexes).map(decodeIndex),
      timerSet: this.#timerSet,
      timerDelete: this.#timerDelete,
      replies: this.#replies,
      recordJson,
      recordBytes,
      unpublishedFrom: publish ? unpublishedFrom(cell, events[0]!.seq) : null,
      ...(this.#outbox.length > 0 ? { outbox: this.#outbox } : {}),
    };
  }
}

/**
 * The first seq the store's recovery marker names after this commit; null when the marker is
 * known to be there already. While the marker's removal is on the way, or after the actor was
 * read again from the store (a conflict), the events it named may not all be handled yet: written
 * again, it keeps naming the first of them, never a later seq (a crash, or a publication that
 * failed, would otherwise lose them for every subscriber that had not taken them).
 */
function unpublishedFrom(cell: PlanInput, firstSeq: number): number | null {
  if (cell.marker === "set") return null;
  return cell.markerFrom === null ? firstSeq : Math.min(cell.markerFrom, firstSeq);
}

interface SizedAdd extends OutboxAdd {
  readonly bytes: number;
}

/** An outbox item measured; one past a store value refuses the command that made it. */
function sized(add: OutboxAdd): SizedAdd {
  const bytes = storedBytes(JSON.stringify(add.payload) ?? "");
  if (bytes > OUTBOX_ITEM_BYTES_MAX) {
    const max = OUTBOX_ITEM_BYTES_MAX;
    throw new TooLarge(tooLarge("an outbox item", bytes, max, "OUTBOX_ITEM_BYTES_MAX"));
  }
  return { ...add, bytes };
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

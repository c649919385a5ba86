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
  type Rejection,
} from "./actor.ts";
import { newId } from "./ids.ts";
import { STATE_BYTES_MAX } from "../limits.ts";
import {
  type ActorKey,
  type ActorRecord,
  type ActorWrite,
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

const INDEX_SEPARATOR = "\u0000";

export type AskResult<R> =
  | { readonly ok: true; readonly reply: R; readonly replayed: boolean }
  | Rejection;

/** Thrown to the asker when a command broke an invariant or the store failed. */
export class ActorFailure extends Error {
  override readonly name = "ActorFailure";
}

export function planBatch(
  cell: PlanInput,
  batch: readonly Envelope[],
  stored: Map<string, unknown>,
  now: () => number,
): Plan {
  const def = cell.def as ActorDefinition<unknown, unknown, unknown, unknown>;
  let state = cell.state;
  let seq = cell.seq;
  let tenant = cell.tenant;
  const timers = { ...cell.timers };
  const outcomes: Outcome[] = [];
  const events: StoredEvent[] = [];
  const replies: { key: string; reply: unknown; permanent: boolean }[] = [];
  const timerSet: { name: string; at: number }[] = [];
  const timerDelete: { name: string; at: number }[] = [];
  const staleTimers: { name: string; at: number }[] = [];
  const batchReplies = new Map<string, unknown>();
  let timersChanged = false;

  for (const env of batch) {
    let command = env.command;
    if (env.timer) {
      const t = timers[env.timer.name];
      if (!t || t.at !== env.timer.at) {
        staleTimers.push(env.timer);
        outcomes.push({ ok: true, reply: undefined, replayed: false });
        continue;
      }
      delete timers[env.timer.name];
      timerDelete.push(env.timer);
      timersChanged = true;
      command = { kind: "timer", name: env.timer.name, payload: t.payload };
    } else if (tenant !== null && env.tenant !== tenant) {
      // spec: courier 1.1; another tenant's actor does not exist for the caller.
      outcomes.push(asIfMissing(def, cell.key.id, command, { now: now(), newId }));
      continue;
    }
    const key = env.idempotencyKey;
    if (key !== undefined && (stored.has(key) || batchReplies.has(key))) {
      const reply = stored.has(key) ? stored.get(key) : batchReplies.get(key);
      outcomes.push({ ok: true, reply, replayed: true });
      continue;
    }
    const at = now();
    const ctx: Ctx = { now: at, newId };
    let next = state;
    let decision;
    try {
      decision = def.decide(state, command, ctx);
      if (decision.ok) { for (const e of decision.events) next = def.evolve(next, e); }
    } catch (e) {
      // A broken invariant: this command fails, the state stays as it was.
      outcomes.push({ ok: false, failure: asError(e) });
      continue;
    }
    if (!decision.ok) {
      outcomes.push(decision);
      continue;
    }
    for (const op of decision.timers ?? []) {
      const old = timers[op.name];
      if (old) {
        timerDelete.push({ name: op.name, at: old.at });
        delete timers[op.name];
      }
      if (op.op === "set") {
        timers[op.name] = op.payload === undefined ? { at: op.at } : {
          at: op.at,
          payload: op.payload,
        };
        timerSet.push({ name: op.name, at: op.at });
      }
      timersChanged = true;
    }
    for (const event of decision.events) {
      seq++;
      const kept = def.logged ? def.logged(event) : event;
      events.push({ seq, at, event: kept, bytes: storedBytes(JSON.stringify(kept)) });
    }
    if (decision.events.length > 0 && tenant === null) tenant = env.tenant;
    state = next;
    const reply = decision.reply ? decision.reply(next, { seq }) : undefined;
    if (key !== undefined) {
      const kept = def.keptReply && reply !== undefined ? def.keptReply(reply) : reply;
      replies.push({ key, reply: kept, permanent: env.permanent });
      // The same key again in this batch is answered from memory: the whole reply, as the first.
      batchReplies.set(key, reply);
    }
    outcomes.push({ ok: true, reply, replayed: false });
  }

  if (events.length === 0 && replies.length === 0 && !timersChanged) {
    return { outcomes, events, write: null, state, staleTimers, publish: false };
  }
  const indexes = events.length > 0 ? encodeIndexes(def, state) : cell.indexes;
  const record: ActorRecord = {
    v: def.version,
    tenant: tenant ?? batch[0]!.tenant,
    state,
    seq,
    timers,
    indexes,
  };
  const recordJson = JSON.stringify(record);
  const recordBytes = recordJson.length;
  const bytesMax = def.stateBytesMax ?? STATE_BYTES_MAX;
  if (recordBytes > bytesMax) {
    throw new ActorFailure(
      `state of ${cell.key.type} ${cell.key.id} too large: ${recordBytes} bytes, max ${bytesMax}`,
    );
  }
  // A change with nothing for downstream (events kept off the bus, no snapshot) is not sent.
  const publish = events.length > 0 &&
    (def.publishEvents !== false || def.project?.(state) !== undefined);
  const write: ActorWrite = {
    type: cell.key.type,
    id: cell.key.id,
    expected: cell.version,
    record,
    events: def.logEvents === false ? [] : events,
    indexSet: diff(indexes, cell.indexes).map(decodeIndex),
    indexDelete: diff(cell.indexes, indexes).map(decodeIndex),
    timerSet,
    timerDelete,
    replies,
    recordJson,
    recordBytes,
    // While the marker's removal is on the way, the events it names may not all be handled yet:
    // written again, it keeps naming the first of them, never a later seq (a crash before they
    // are handled would otherwise lose them for every subscriber that had not taken them).
    unpublishedFrom: !publish || cell.marker === "set"
      ? null
      : cell.marker === "clearing" && cell.markerFrom !== null
      ? Math.min(cell.markerFrom, events[0]!.seq)
      : events[0]!.seq,
  };
  return { outcomes, events, write, state, staleTimers, publish };
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

function encodeIndexes(def: AnyActorDefinition, state: unknown): string[] {
  return (def.indexes?.(state) ?? []).map((i) => `${i.index}${INDEX_SEPARATOR}${i.key}`);
}

function decodeIndex(encoded: string): { index: string; key: string } {
  const at = encoded.indexOf(INDEX_SEPARATOR);
  return { index: encoded.slice(0, at), key: encoded.slice(at + 1) };
}

function diff(a: readonly string[], b: readonly string[]): string[] {
  const inB = new Set(b);
  return a.filter((x) => !inB.has(x));
}

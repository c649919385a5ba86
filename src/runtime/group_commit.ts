/**
 * Group commit: the writes of many actors that arrive while a commit is in flight go to the store
 * together in the next one, within the store's per-transaction limits. A failed group is retried
 * write by write, so one actor's conflict never fails another's commit. Two writes claiming one
 * unique key never share a group: the store checks every key before it writes any, so both
 * claims would pass and both actors would hold the key; apart, the second fails its check.
 *
 * Two lanes: an urgent write (AskOptions.urgent) goes in the next group ahead of every ordinary
 * write waiting, so it waits for at most the commit in flight, not for the whole queue a burst
 * built (issue 38: a dispatch offer behind 1,000 bookings' commits). Each lane stays in order.
 */
import {
  GROUP_COMMIT_BYTES_MAX,
  GROUP_COMMIT_CHECKS_MAX,
  GROUP_COMMIT_KEY_BYTES_MAX,
  GROUP_COMMIT_MUTATIONS_MAX,
  STORE_KEY_BYTES_MAX,
} from "../limits.ts";
import type { Rejection } from "./actor.ts";
import { commitOutcome } from "./commit_outcome.ts";
import type { ActorStore, ActorWrite, CommitCost, CommitResult } from "./store.ts";
import { tooLarge } from "./too_large.ts";

export type WriteResult =
  | { readonly ok: true; readonly version: string }
  | { readonly ok: false; readonly reason: "conflict" }
  | { readonly ok: false; readonly reason: "fenced"; readonly partition: number }
  | { readonly ok: false; readonly reason: "error"; readonly error: Error };

interface Pending {
  readonly write: ActorWrite;
  readonly cost: CommitCost;
  readonly resolve: (r: WriteResult) => void;
}

/** Whether writes of this total cost fit one store transaction. */
export function fitsOneCommit(cost: CommitCost): boolean {
  return cost.checks <= GROUP_COMMIT_CHECKS_MAX &&
    cost.mutations <= GROUP_COMMIT_MUTATIONS_MAX &&
    cost.bytes <= GROUP_COMMIT_BYTES_MAX &&
    cost.keyBytes <= GROUP_COMMIT_KEY_BYTES_MAX &&
    cost.keyMax <= STORE_KEY_BYTES_MAX;
}

/**
 * The refusal of one command whose write alone passes a limit of one store transaction, naming
 * the first it passes; null when it fits. One actor's write is never split: it is its atomicity.
 */
export function refusedAsTooLarge(cost: CommitCost): Rejection | null {
  if (cost.keyMax > STORE_KEY_BYTES_MAX) {
    return tooLarge("a key", cost.keyMax, STORE_KEY_BYTES_MAX, "STORE_KEY_BYTES_MAX");
  }
  const what = "the change";
  if (cost.bytes > GROUP_COMMIT_BYTES_MAX) {
    return tooLarge(what, cost.bytes, GROUP_COMMIT_BYTES_MAX, "GROUP_COMMIT_BYTES_MAX");
  }
  if (cost.keyBytes > GROUP_COMMIT_KEY_BYTES_MAX) {
    const max = GROUP_COMMIT_KEY_BYTES_MAX;
    return tooLarge(what, cost.keyBytes, max, "GROUP_COMMIT_KEY_BYTES_MAX", "bytes of keys");
  }
  if (cost.mutations > GROUP_COMMIT_MUTATIONS_MAX) {
    const max = GROUP_COMMIT_MUTATIONS_MAX;
    return tooLarge(what, cost.mutations, max, "GROUP_COMMIT_MUTATIONS_MAX", "writes");
  }
  if (cost.checks > GROUP_COMMIT_CHECKS_MAX) {
    const max = GROUP_COMMIT_CHECKS_MAX;
    return tooLarge(what, cost.checks, max, "GROUP_COMMIT_CHECKS_MAX", "checks");
  }
  return null;
}

/** Groups committed, the writes in them and what those cost the store (CommitCost). */
export interface CommitStats {
  commits: number;
  writes: number;
  commitMs: number;
  mutations: number;
  bytes: number;
}

export class GroupCommitter {
  readonly #store: ActorStore;
  readonly #queue: Pending[] = [];
  /** Urgent writes waiting: each group takes these first. */
  readonly #urgent: Pending[] = [];
  #inFlight = 0;
  readonly #concurrency: number;
  /** Figures for benchmarks and the health endpoint. */
  readonly stats: CommitStats = { commits: 0, writes: 0, commitMs: 0, mutations: 0, bytes: 0 };

  /** Told of each group committed: how many writes, in how many milliseconds (metrics). */
  readonly #onCommit: ((writes: number, ms: number) => void) | undefined;

  constructor(
    store: ActorStore,
    options: {
      concurrency?: number;
      onCommit?: ((writes: number, ms: number) => void) | undefined;
    } = {},
  ) {
    this.#store = store;
    this.#concurrency = options.concurrency ?? 1;
    this.#onCommit = options.onCommit;
  }

  submit(write: ActorWrite, options: { readonly urgent?: boolean } = {}): Promise<WriteResult> {
    return new Promise((resolve) => {
      const lane = options.urgent ? this.#urgent : this.#queue;
      lane.push({ write, cost: this.#store.cost(write), resolve });
      this.#pump();
    });
  }

  #pump(): void {
    while (
      this.#inFlight < this.#concurrency && (this.#urgent.length > 0 || this.#queue.length > 0)
    ) {
      const group = this.#takeGroup();
      this.#inFlight++;
      void this.#commit(group);
    }
  }

  /**
   * Takes writes from the head of the urgent lane, then of the queue, while they fit in one
   * transaction; the first that does not fit (or claims a key the group claims) ends the group.
   */
  #takeGroup(): Pending[] {
    const urgent = takeFrom(this.#urgent, NO_GROUP);
    return urgent.ended ? urgent.taken : takeFrom(this.#queue, urgent).taken;
  }

  async #commit(group: Pending[]): Promise<void> {
    const started = performance.now();
    let result: CommitResult;
    try {
      result = await this.#tryCommit(group.map((p) => p.write));
    } finally {
      // The next group goes to the store before this one's writers are answered: answering
      // them runs their actors' next steps, and the store would sit idle meanwhile.
      this.#inFlight--;
      this.#pump();
    }
    const ms = performance.now() - started;
    this.stats.commitMs += ms;
    this.stats.commits++;
    this.stats.writes += group.length;
    for (const p of group) {
      this.stats.mutations += p.cost.mutations;
      this.stats.bytes += p.cost.bytes;
    }
    this.#onCommit?.(group.length, ms);
    if (result.ok || group.length === 1) {
      group.forEach((p, i) => p.resolve(toWriteResult(result, i)));
      return;
    }
    // Find the write that failed: commit each alone.
    for (const p of group) {
      // A store error does not say whether the group landed: committed again, a write that did
      // would conflict and its commands be decided a second time (commit_outcome.ts).
      const outcome = result.reason === "error" ? await commitOutcome(this.#store, p.write) : {
        landed: false as const,
      };
      if (outcome === null) p.resolve(result);
      else if (outcome.landed) p.resolve({ ok: true, version: outcome.version });
      else {
        const alone = await this.#tryCommit([p.write]);
        this.stats.commits++;
        p.resolve(toWriteResult(alone, 0));
      }
    }
  }

  /** A store that throws is answered as a failed commit, so every writer hears. */
  async #tryCommit(writes: ActorWrite[]): Promise<CommitResult> {
    try {
      return await this.#store.commit(writes);
    } catch (e) {
      return { ok: false, reason: "error", error: e instanceof Error ? e : new Error(String(e)) };
    }
  }
}

/** A group being taken: its writes, their total cost and claims, and whether it is closed. */
interface Group {
  readonly taken: Pending[];
  readonly total: CommitCost;
  readonly claimed: ReadonlySet<string>;
  /** A write of the lane did not fit: nothing more joins. */
  readonly ended: boolean;
}

const NO_GROUP: Group = {
  taken: [],
  total: { mutations: 0, bytes: 0, checks: 0, keyBytes: 0, keyMax: 0 },
  claimed: new Set(),
  ended: false,
};

/** Moves writes from the head of `lane` into the group while they fit (the lane keeps its order). */
function takeFrom(lane: Pending[], group: Group): Group {
  let total = group.total;
  let n = 0;
  const claimed = new Set(group.claimed);
  let ended = false;
  for (const p of lane) {
    const claims = claimKeys(p.write);
    const next: CommitCost = {
      checks: total.checks + p.cost.checks,
      mutations: total.mutations + p.cost.mutations,
      bytes: total.bytes + p.cost.bytes,
      keyBytes: total.keyBytes + p.cost.keyBytes,
      keyMax: Math.max(total.keyMax, p.cost.keyMax),
    };
    const fits = fitsOneCommit(next);
    const empty = group.taken.length + n === 0;
    if (claims.some((c) => claimed.has(c)) || (!fits && !empty)) {
      ended = true;
      break;
    }
    total = next;
    n++;
    for (const c of claims) claimed.add(c);
    // A single oversized write goes alone and the store judges it (the runtime refuses one
    // before it comes here: turn.ts).
    if (!fits) {
      ended = true;
      break;
    }
  }
  return { taken: [...group.taken, ...lane.splice(0, n)], total, claimed, ended };
}

/** The unique keys a write claims (ActorWrite.indexClaims), each as one string. */
function claimKeys(write: ActorWrite): string[] {
  return (write.indexClaims ?? []).map((c) => `${c.index}\u0000${c.key}`);
}

function toWriteResult(result: CommitResult, i: number): WriteResult {
  if (result.ok) return { ok: true, version: result.versions[i]! };
  return result;
}

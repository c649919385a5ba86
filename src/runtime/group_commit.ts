/**
 * Group commit: the writes of many actors that arrive while a commit is in flight go to the store
 * together in the next one, within the store's per-transaction limits. A failed group is retried
 * write by write, so one actor's conflict never fails another's commit. Two writes claiming one
 * unique key never share a group: the store checks every key before it writes any, so both
 * claims would pass and both actors would hold the key; apart, the second fails its check.
 */
import {
  GROUP_COMMIT_BYTES_MAX,
  GROUP_COMMIT_CHECKS_MAX,
  GROUP_COMMIT_MUTATIONS_MAX,
} from "../limits.ts";
import type { ActorStore, ActorWrite, CommitResult } from "./store.ts";

export type WriteResult =
  | { readonly ok: true; readonly version: string }
  | { readonly ok: false; readonly reason: "conflict" }
  | { readonly ok: false; readonly reason: "error"; readonly error: Error };

type Cost = ReturnType<ActorStore["cost"]>;

interface Pending {
  readonly write: ActorWrite;
  readonly cost: Cost;
  readonly resolve: (r: WriteResult) => void;
}

/** Whether writes of this total cost fit one store transaction. */
export function fitsOneCommit(cost: Cost): boolean {
  return cost.checks <= GROUP_COMMIT_CHECKS_MAX &&
    cost.mutations <= GROUP_COMMIT_MUTATIONS_MAX &&
    cost.bytes <= GROUP_COMMIT_BYTES_MAX;
}

export class GroupCommitter {
  readonly #store: ActorStore;
  #queue: Pending[] = [];
  #inFlight = 0;
  readonly #concurrency: number;
  /** Figures for benchmarks and the health endpoint. */
  readonly stats = { commits: 0, writes: 0, commitMs: 0 };

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

  submit(write: ActorWrite): Promise<WriteResult> {
    return new Promise((resolve) => {
      this.#queue.push({ write, cost: this.#store.cost(write), resolve });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#concurrency && this.#queue.length > 0) {
      const group = this.#takeGroup();
      this.#inFlight++;
      void this.#commit(group);
    }
  }

  /** Takes writes from the head of the queue while they fit in one transaction. */
  #takeGroup(): Pending[] {
    let mutations = 0;
    let bytes = 0;
    let checks = 0;
    let n = 0;
    const claimed = new Set<string>();
    for (const p of this.#queue) {
      const claims = claimKeys(p.write);
      if (claims.some((c) => claimed.has(c))) break;
      const fits = fitsOneCommit({
        checks: checks + p.cost.checks,
        mutations: mutations + p.cost.mutations,
        bytes: bytes + p.cost.bytes,
      });
      if (!fits && n > 0) break;
      mutations += p.cost.mutations;
      bytes += p.cost.bytes;
      checks += p.cost.checks;
      n++;
      for (const c of claims) claimed.add(c);
      if (!fits) break; // a single oversized write goes alone and the store judges it
    }
    return this.#queue.splice(0, n);
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
    this.#onCommit?.(group.length, ms);
    if (result.ok || group.length === 1) {
      group.forEach((p, i) => p.resolve(toWriteResult(result, i)));
      return;
    }
    // Find the write that failed: commit each alone.
    for (const p of group) {
      const alone = await this.#tryCommit([p.write]);
      this.stats.commits++;
      p.resolve(toWriteResult(alone, 0));
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

/** The unique keys a write claims (ActorWrite.indexClaims), each as one string. */
function claimKeys(write: ActorWrite): string[] {
  return (write.indexClaims ?? []).map((c) => `${c.index}\u0000${c.key}`);
}

function toWriteResult(result: CommitResult, i: number): WriteResult {
  if (result.ok) return { ok: true, version: result.versions[i]! };
  return result;
}

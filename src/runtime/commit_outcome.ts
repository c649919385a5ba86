/**
 * What became of a write whose commit failed without saying whether it landed (a connection
 * lost on commit, a KV commit that threw). The actor is single-writer (its cell, guarded by the
 * version check), so the store tells: still at the version the write read, nothing of it landed;
 * moved on to the very record it wrote, it landed (atomically, whole) and its commands are
 * answered with that outcome, never decided again.
 */
import type { ActorStore, ActorWrite } from "./store.ts";

/** Landed (at `version`), not landed, or unknown (null: the store moved elsewhere, or is away). */
export type CommitOutcome =
  | { readonly landed: true; readonly version: string }
  | { readonly landed: false }
  | null;

/** Reads the write's actor back to tell whether its failed commit landed (module comment). */
export async function commitOutcome(store: ActorStore, write: ActorWrite): Promise<CommitOutcome> {
  let stored;
  try {
    stored = await store.load({ type: write.type, id: write.id });
  } catch {
    return null;
  }
  if ((stored?.version ?? null) === write.expected) return { landed: false };
  if (stored !== null && JSON.stringify(stored.record) === write.recordJson) {
    return { landed: true, version: stored.version };
  }
  return null;
}

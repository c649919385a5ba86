/**
 * Remembered credential lookups (ActorRuntime.lookup with `cached`): only for lookups whose actor
 * verifies the key itself, as credentials are, so a stale entry is refused by the actor.
 */
import type { IndexTarget } from "./store.ts";

/** Remembered lookups; the map starts afresh past this (bounded memory). */
const LOOKUP_CACHE_MAX = 50_000;

export class Lookups {
  readonly #found = new Map<string, IndexTarget>();

  get(index: string, key: string): IndexTarget | undefined {
    return this.#found.get(`${index}\u0000${key}`);
  }

  remember(index: string, key: string, target: IndexTarget): void {
    if (this.#found.size >= LOOKUP_CACHE_MAX) this.#found.clear();
    this.#found.set(`${index}\u0000${key}`, target);
  }

  forget(index: string, key: string): void {
    this.#found.delete(`${index}\u0000${key}`);
  }
}

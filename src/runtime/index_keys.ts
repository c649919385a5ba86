/**
 * An actor's index entries as its record keeps them (ActorRecord.indexes): each `index` and `key`
 * in one string, so the entries a write sets and deletes are the difference of two lists.
 */
import type { AnyActorDefinition } from "./actor.ts";

const INDEX_SEPARATOR = "\u0000";

/** The entries the definition derives from `state`, encoded as a record keeps them. */
export function encodeIndexes(def: AnyActorDefinition, state: unknown): string[] {
  return (def.indexes?.(state) ?? []).map((i) => `${i.index}${INDEX_SEPARATOR}${i.key}`);
}

export function decodeIndex(encoded: string): { index: string; key: string } {
  const at = encoded.indexOf(INDEX_SEPARATOR);
  return { index: encoded.slice(0, at), key: encoded.slice(at + 1) };
}

/** The encoded entries of `a` that `b` lacks. */
export function indexesMissing(a: readonly string[], b: readonly string[]): string[] {
  const inB = new Set(b);
  return a.filter((x) => !inB.has(x));
}

/** Small pure helpers over plain objects and lists, for any layer. */

/**
 * The object without its undefined members: zod's partial() leaves absent keys as undefined, and
 * exactOptionalPropertyTypes wants them gone.
 */
export function stripUndefined<T extends object>(
  o: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** Each value once, in the order first sent: a scope or service sent twice is held once. */
export function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

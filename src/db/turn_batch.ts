/**
 * Asks made in one turn of the event loop, answered together: by one statement rather than a
 * round trip each (a busy courier's billing events each ask at once). The first ask of a turn
 * schedules the batch for the next turn; a batch takes at most `max` asks, and the rest go in
 * the one after.
 */
export type TurnBatch<T, R> = (item: T) => Promise<R>;

/**
 * `run` answers a batch, one answer per item in order (a promise rejecting one item alone); a
 * `run` that throws rejects every item of its batch.
 */
export function turnBatch<T, R>(
  max: number,
  run: (items: readonly T[]) => Promise<readonly (R | Promise<R>)[]>,
): TurnBatch<T, R> {
  const waiting: { item: T; resolve: (r: R | Promise<R>) => void; reject: (e: unknown) => void }[] =
    [];
  const flush = async () => {
    const batch = waiting.splice(0, max);
    if (waiting.length > 0) setTimeout(flush, 0);
    try {
      const answers = await run(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(answers[i]!));
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (waiting.length === 1) setTimeout(flush, 0);
    });
}

/**
 * A small fixed placement for tests of counters and credentials across instances (issue 43):
 * instance "a" holds the even partitions, "b" the odd ones, each under epoch 1, until a test
 * takes one away (`lose`), as a lease moving would.
 */
import type { Placement } from "../../src/runtime/placement.ts";

export class SplitPlacement implements Placement {
  readonly #lost = new Set<number>();
  readonly #listeners = new Set<(partition: number, held: boolean) => void>();

  constructor(readonly instance: "a" | "b") {}

  held(partition: number): number | undefined {
    return this.ownerOf(partition) === this.instance ? 1 : undefined;
  }

  ownerOf(partition: number): string | undefined {
    if (this.#lost.has(partition)) return undefined;
    return partition % 2 === 0 ? "a" : "b";
  }

  onChange(listener: (partition: number, held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** This instance stops holding `partition`; its listeners are told. */
  lose(partition: number): void {
    const held = this.held(partition) !== undefined;
    this.#lost.add(partition);
    if (held) { for (const l of this.#listeners) l(partition, false); }
  }
}

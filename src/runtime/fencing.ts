/**
 * What the runtime does under a placement whose partitions are leased (Placement.fences): each
 * commit carries its partition's lease (store.ts Fence), a command for a partition not held is
 * refused before it is decided, and what memory holds of a partition gained or lost is forgotten.
 */
import { holdsActor } from "./held.ts";
import { partitionOf, type Placement } from "./placement.ts";
import type { ActorKey, Fence } from "./store.ts";

export class Fencing {
  readonly #placement: Placement;
  readonly #forget: (partitions: ReadonlySet<number>) => void;
  /** Partitions gained or lost since memory was last cleared of them. */
  readonly #moved = new Set<number>();

  constructor(placement: Placement, forget: (partitions: ReadonlySet<number>) => void) {
    this.#placement = placement;
    this.#forget = forget;
    placement.onChange((p) => this.#partitionMoved(p));
  }

  /** The lease the actor's commits carry, or its partition when this instance does not hold it. */
  fenceOf(key: ActorKey): Fence | number {
    const partition = partitionOf(key);
    const epoch = this.#placement.held(partition);
    return epoch === undefined ? partition : { partition, holder: this.#placement.instance, epoch };
  }

  /** Whether this instance holds the actor's partition now. */
  holds(key: ActorKey): boolean {
    return holdsActor(this.#placement, key);
  }

  /**
   * What memory holds of a partition gained or lost may predate another holder's commits: it is
   * forgotten, every partition that moved at once in one pass over the actors in memory.
   */
  #partitionMoved(partition: number): void {
    if (this.#moved.size === 0) {
      queueMicrotask(() => {
        this.#forget(this.#moved);
        this.#moved.clear();
      });
    }
    this.#moved.add(partition);
  }
}

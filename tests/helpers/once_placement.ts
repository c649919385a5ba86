/**
 * A fixed placement for tests of several instances (issue 43 item 3, work done once): instance
 * `a` holds the even partitions and `b` the odd ones, until a test moves one; a move tells both
 * sides' listeners, as a lease taken over would, under a new epoch.
 */
import { PARTITIONS } from "../../src/limits.ts";
import { partitionOf, type Placement } from "../../src/runtime/placement.ts";
import type { ActorKey } from "../../src/runtime/store.ts";

type Listener = (partition: number, held: boolean) => void;

/** The partitions' owners and epochs, shared by the instances' placements. */
class Owners {
  readonly owner: string[] = Array.from({ length: PARTITIONS }, (_, p) => p % 2 === 0 ? "a" : "b");
  readonly epoch: number[] = new Array(PARTITIONS).fill(1);
  readonly listeners = new Map<string, Set<Listener>>();
}

export class SplitPlacement implements Placement {
  constructor(readonly instance: string, readonly owners: Owners) {}

  held(partition: number): number | undefined {
    return this.owners.owner[partition] === this.instance
      ? this.owners.epoch[partition]
      : undefined;
  }

  ownerOf(partition: number): string | undefined {
    return this.owners.owner[partition];
  }

  onChange(listener: Listener): () => void {
    const mine = this.owners.listeners.get(this.instance) ?? new Set<Listener>();
    this.owners.listeners.set(this.instance, mine.add(listener));
    return () => mine.delete(listener);
  }
}

/** Placements of `a` (even partitions) and `b` (odd ones), and a way to move one partition. */
export function splitPlacements(): {
  a: SplitPlacement;
  b: SplitPlacement;
  move(partition: number, to: "a" | "b"): void;
} {
  const owners = new Owners();
  return {
    a: new SplitPlacement("a", owners),
    b: new SplitPlacement("b", owners),
    move(partition, to) {
      const from = owners.owner[partition]!;
      if (from === to) return;
      owners.owner[partition] = to;
      owners.epoch[partition]! += 1;
      for (const l of owners.listeners.get(from) ?? []) l(partition, false);
      for (const l of owners.listeners.get(to) ?? []) l(partition, true);
    },
  };
}

/** The instance holding an actor in a split placement: `a` for even partitions, `b` for odd. */
export function holderOf(placement: Placement, key: ActorKey): string | undefined {
  return placement.ownerOf(partitionOf(key));
}

/** `count` ids of actors of `type` whose partitions are `parity` (even or odd), in order. */
export function idsIn(type: string, parity: 0 | 1, count: number, prefix = "x"): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) {
    const id = `${prefix}${i}`;
    if (partitionOf({ type, id }) % 2 === parity) ids.push(id);
  }
  return ids;
}

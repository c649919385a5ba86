/**
 * A fixed placement for forwarding tests: instances share one table of partition owners (at
 * first `a` holds the even partitions, `b` the odd ones), and a test moves a partition by hand.
 */
import { PARTITIONS } from "../../src/limits.ts";
import { partitionOf, type Placement } from "../../src/runtime/placement.ts";

type Listener = (partition: number, held: boolean) => void;

export class ForwardCluster {
  readonly #owners: (string | undefined)[];
  readonly #listeners = new Map<string, Set<Listener>>();
  #epoch = 1;

  constructor(owners?: (partition: number) => string | undefined) {
    this.#owners = Array.from(
      { length: PARTITIONS },
      (_, p) => owners ? owners(p) : p % 2 === 0 ? "a" : "b",
    );
  }

  /** The placement as instance `name` sees it. */
  placement(name: string): Placement {
    const listeners = this.#listeners.get(name) ?? new Set<Listener>();
    this.#listeners.set(name, listeners);
    return {
      instance: name,
      held: (p) => this.#owners[p] === name ? this.#epoch : undefined,
      ownerOf: (p) => this.#owners[p],
      onChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  }

  ownerOf(partition: number): string | undefined {
    return this.#owners[partition];
  }

  /**
   * Gives `partition` to `to` (undefined: nobody), telling the loser first, then the gainer, as
   * a lease moves. `quietly`: the loser is not told (a request already on its way meets it).
   */
  move(partition: number, to: string | undefined, options: { quietly?: boolean } = {}): void {
    const from = this.#owners[partition];
    this.#owners[partition] = to;
    this.#epoch++;
    if (from !== undefined && !options.quietly) this.#tell(from, partition, false);
    if (to !== undefined) this.#tell(to, partition, true);
  }

  /**
   * Every partition `from` holds moves to `to`, as their leases would when `from` stops: work the
   * other instance still has for them (a notice on a timer, a deferred message) is then done
   * there, not forwarded to a closed instance until each forward's bound runs out.
   */
  handOver(from: string, to: string): void {
    for (let p = 0; p < PARTITIONS; p++) if (this.#owners[p] === from) this.move(p, to);
  }

  #tell(name: string, partition: number, held: boolean): void {
    for (const l of this.#listeners.get(name) ?? []) l(partition, held);
  }
}

/** An id of `type` whose partition `cluster` gives to `owner`, distinct per `tag`. */
export function idOwnedBy(
  cluster: ForwardCluster,
  type: string,
  owner: string,
  tag = "x",
): string {
  for (let i = 0; i < 10_000; i++) {
    const id = `${tag}_${i}`;
    if (cluster.ownerOf(partitionOf({ type, id })) === owner) return id;
  }
  throw new Error(`no id of ${type} falls to ${owner}`);
}

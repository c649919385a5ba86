/**
 * Work done once across the cluster (issue 43 item 3): the sweeps that follow commits (due timers,
 * outbox items, recovery markers) cover the partitions this instance holds, and a partition it
 * gains is swept at once, so what its old holder left (a change kept off the bus, an item not yet
 * handled, a timer not yet fired) is finished here. What the sweeps hand over is idempotent by
 * version, outbox key or derived id, so an item the old holder was still finishing is harmless.
 */
import { PARTITIONS } from "../limits.ts";
import { partitionOf, partitionsHeld, type Placement } from "./placement.ts";
import type { ActorKey, HeldPartitions } from "./store.ts";

/** The partitions `placement` holds now; undefined when it holds every one (nothing to filter). */
export function heldPartitions(placement: Placement): HeldPartitions {
  const held = partitionsHeld(placement);
  return held.length === PARTITIONS ? undefined : held;
}

/** Whether this instance holds the actor's partition now. */
export function holdsActor(placement: Placement, key: ActorKey): boolean {
  return placement.held(partitionOf(key)) !== undefined;
}

/**
 * Sweeps the partitions this instance gains (Placement.onChange), one sweep at a time: those
 * gained during a sweep are swept together by the next one. A failed sweep is reported; the
 * periodic sweeps over every held partition then finish it.
 */
export class GainedSweeps {
  readonly #sweep: (partitions: readonly number[]) => Promise<unknown>;
  readonly #onError: (error: unknown, where: string) => void;
  readonly #waiting = new Set<number>();
  #running: Promise<void> | null = null;
  #stop: (() => void) | null = null;

  constructor(
    sweep: (partitions: readonly number[]) => Promise<unknown>,
    onError: (error: unknown, where: string) => void,
  ) {
    this.#sweep = sweep;
    this.#onError = onError;
  }

  /** Listens to the placement's gains from now on. */
  follow(placement: Placement): void {
    this.#stop?.();
    this.#stop = placement.onChange((partition, held) => {
      if (held) this.gained(partition);
    });
  }

  /** A partition gained: swept at the next sweep (now, when none is under way). */
  gained(partition: number): void {
    this.#waiting.add(partition);
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
  }

  /** Resolves once no gained partition waits nor is being swept. */
  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  /** Stops listening, and waits for a sweep under way. */
  async close(): Promise<void> {
    this.#stop?.();
    this.#stop = null;
    this.#waiting.clear();
    await this.idle();
  }

  async #drain(): Promise<void> {
    while (this.#waiting.size > 0) {
      const partitions = [...this.#waiting].sort((a, b) => a - b);
      this.#waiting.clear();
      try {
        await this.#sweep(partitions);
      } catch (error) {
        this.#onError(error, `sweeping gained partitions ${partitions.join(",")}`);
      }
    }
  }
}

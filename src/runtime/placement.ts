/**
 * Placement: which instance holds which actor. Actors are hashed onto a fixed number of
 * partitions (PARTITIONS); an instance holds a partition under an epoch, and only the holder
 * decides, answers and fires timers for that partition's actors (ARCHITECTURE: growing past one
 * machine). One instance alone holds every partition (`WholePlacement`, the embedded default).
 */
import { PARTITIONS } from "../limits.ts";
import type { ActorKey } from "./store.ts";

/** FNV-1a over the actor's type and id: stable across processes and versions (never change it). */
export function partitionOf(key: ActorKey): number {
  let h = 0x811c9dc5;
  const text = `${key.type}\u0000${key.id}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % PARTITIONS;
}

/** The partitions `placement` holds now, in order (GET /health, the lease metrics). */
export function partitionsHeld(placement: Placement): number[] {
  const held: number[] = [];
  for (let p = 0; p < PARTITIONS; p++) if (placement.held(p) !== undefined) held.push(p);
  return held;
}

export interface Placement {
  /** This instance's name, unique among running instances. */
  readonly instance: string;
  /** The epoch under which this instance holds `partition`, undefined when it does not. */
  held(partition: number): number | undefined;
  /** The instance last seen holding `partition`, undefined while nobody does. */
  ownerOf(partition: number): string | undefined;
  /** Told whenever this instance gains or loses a partition; answers the unsubscribe. */
  onChange(listener: (partition: number, held: boolean) => void): () => void;
  /**
   * Set when partitions are leased in the actor store (leases.ts): every commit then carries its
   * partition's epoch (ActorWrite.fence) and the store refuses it once the lease moved on.
   */
  readonly fences?: boolean;
  /**
   * Renews what this instance holds now: after a manual clock's jump (its leases, counted by
   * that clock, would lapse at once, with no timer to renew them).
   */
  renew?(): Promise<void>;
}

/** One instance holding every partition under epoch 0, for good. */
export class WholePlacement implements Placement {
  constructor(readonly instance = "single") {}
  held(_partition: number): number {
    return 0;
  }
  ownerOf(_partition: number): string {
    return this.instance;
  }
  onChange(_listener: (partition: number, held: boolean) => void): () => void {
    return () => {};
  }
}

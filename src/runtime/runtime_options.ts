/** What an actor runtime is made of (runtime.ts). */
import type { Bus } from "../bus/bus.ts";
import type { AnyActorDefinition } from "./actor.ts";
import type { Clock } from "./clock.ts";
import type { ForwardObserved } from "./forwarding.ts";
import type { Placement } from "./placement.ts";
import type { ActorStore } from "./store.ts";

export interface RuntimeOptions {
  /** `live` or `sandbox`. */
  readonly env: string;
  /**
   * The first token of every bus subject this runtime publishes, and the `env` its changes
   * carry: the environment and its deployment (src/server.ts), so deployments sharing one NATS
   * never hear each other. Default: `env`.
   */
  readonly busPrefix?: string;
  readonly store: ActorStore;
  readonly bus: Bus;
  readonly clock: Clock;
  readonly definitions: readonly AnyActorDefinition[];
  /** Batch writes of many actors into one store transaction (default on). */
  readonly groupCommit?: boolean;
  readonly onError?: (error: unknown, where: string) => void;
  /** Told of each group commit: how many actors' writes, in how many milliseconds (metrics). */
  readonly onCommit?: (writes: number, ms: number) => void;
  /** Which partitions this instance holds (default: all of them, one instance alone). */
  readonly placement?: Placement;
  /** Forwards to other instances (forwarding.ts): how long to look for a holder, in ms. */
  readonly forwardWaitMs?: number;
  /** Told of each forward sent or served (metrics). */
  readonly onForward?: (o: ForwardObserved) => void;
  /** Actors kept in memory past which idle ones are let go (default ACTORS_ACTIVE_MAX; tests). */
  readonly actorsActiveMax?: number;
}

/**
 * A feature: what one API document adds to an environment (ARCHITECTURE "Layout"): its actor
 * types, its routers, and the reactors, projections and sweeps it starts. The composition root
 * (server.ts) opens an environment by starting every feature in order, so a new document is one
 * more entry in `features.ts`, never new wiring by hand.
 */
import type { Api } from "./http/app.ts";
import type { AnyActorDefinition } from "./runtime/actor.ts";
import type { OldDataPass } from "./runtime/old_data.ts";
import type { Deps, Reactor } from "./environment.ts";

/** Mounts one section's routes on an environment's API. */
export type Router = (api: Api) => void;

export type { Reactor };

/**
 * A writer of the query side, fed by the bus: settle() waits on it, the sweep retries what it
 * parked. Stopped after the runtime, once the changes published before are written.
 */
export interface Projection {
  /** Resolves once the sync sentinel `id` has passed every change before it. */
  synced(id: string): Promise<void>;
  /** Writes again the changes it had to park; answers how many it wrote. */
  retryParked(): Promise<number>;
  stop(): Promise<void>;
  /** Changes received and not yet written, and how long the oldest has waited (metrics). */
  backlog?(): { changes: number; oldestMs: number };
}

/** What a feature's start is given: the environment's machinery and earlier features' services. */
export interface FeatureDeps extends Deps {
  /** The bus subject prefix of this environment and deployment (`<env>_<store identity>`). */
  readonly busPrefix: string;
  /** What feature `name`, started before this one, offers (FeatureParts.services). */
  services(name: string): unknown;
}

export interface FeatureParts {
  /** Projections into the query side; settle() waits on each, the sweep retries what they park. */
  readonly projections?: Readonly<Record<string, Projection>>;
  /** Bus subscribers by name, closed (newest first) before the runtime. */
  readonly reactors?: Readonly<Record<string, Reactor>>;
  /**
   * Work run every BILLING_SWEEP_MS: what a crash or a failure outlasting a reactor's retries
   * left undone, found on the query side. Named for the log line of a sweep that throws.
   */
  readonly sweeps?: Readonly<Record<string, (now: number) => Promise<unknown>>>;
  /** I/O run every TIMER_POLL_MS and after the manual clock moves (outbound attempts due). */
  readonly pumps?: Readonly<Record<string, () => Promise<unknown>>>;
  /**
   * Passes bringing data stored by earlier versions to today's rules, run once the runtime runs,
   * before a request is served, once per pass version (src/runtime/old_data.ts: the read paths
   * still take old data, as an older instance may write some afterwards).
   */
  readonly migrations?: Readonly<Record<string, OldDataPass>>;
  /** What later features may use of this one (FeatureDeps.services). */
  readonly services?: unknown;
}

export interface Feature {
  readonly name: string;
  readonly actors: readonly AnyActorDefinition[];
  readonly routers: readonly Router[];
  /**
   * Starts the feature's reactors before the runtime starts, so events the runtime republishes
   * at start (a crash kept them off the bus) reach them.
   */
  start(deps: FeatureDeps): FeatureParts | Promise<FeatureParts>;
}

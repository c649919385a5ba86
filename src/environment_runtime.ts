/**
 * An environment's actor runtime and, among several instances, its placement (issue 43): built
 * from the environment's settings, its failures logged, its commits, leases and forwards measured.
 */
import type { Bus } from "./bus/bus.ts";
import type { LeasedSettings } from "./config.ts";
import type { EnvironmentName } from "./environment.ts";
import type { Feature } from "./feature.ts";
import { watchLeases } from "./observe/lease_metrics.ts";
import type { Logger } from "./observe/log.ts";
import type { Metrics } from "./observe/metrics.ts";
import type { Clock } from "./runtime/clock.ts";
import { LeasedPlacement } from "./runtime/leases.ts";
import type { Placement } from "./runtime/placement.ts";
import { ActorRuntime } from "./runtime/runtime.ts";
import type { ActorStore } from "./runtime/store.ts";

/** What of an environment's settings its runtime is made of (server.ts EnvironmentOptions). */
export interface RuntimeSettings {
  readonly name: EnvironmentName;
  readonly bus: Bus;
  readonly clock: Clock;
  readonly leased?: LeasedSettings;
  readonly placement?: Placement;
  readonly forwardWaitMs?: number;
}

/** The environment's actor runtime over its store, its failures logged and its commits measured. */
export function runtimeOf(
  o: RuntimeSettings,
  p: {
    store: ActorStore;
    busPrefix: string;
    features: readonly Feature[];
    log: Logger;
    metrics: Metrics;
    placement: LeasedPlacement | undefined;
  },
): ActorRuntime {
  return new ActorRuntime({
    env: o.name,
    busPrefix: p.busPrefix,
    store: p.store,
    bus: o.bus,
    clock: o.clock,
    definitions: p.features.flatMap((f) => f.actors),
    ...(p.placement ? { placement: p.placement } : {}),
    onError: (err, where) => p.log.error({ err, where }, "runtime failure"),
    onCommit: (writes, ms) => {
      p.metrics.commitSize.observe(writes);
      p.metrics.commitSeconds.observe(ms / 1000);
    },
    ...(o.placement ? { placement: o.placement } : {}),
    ...(o.forwardWaitMs === undefined ? {} : { forwardWaitMs: o.forwardWaitMs }),
    onForward: (f) => {
      p.metrics.forwards.labels(f.role, f.outcome).inc();
      p.metrics.forwardSeconds.labels(f.role).observe(f.ms / 1000);
    },
  });
}

/**
 * The leased placement (PLACEMENT=leased) on the environment's store, its first share taken and
 * renewing; undefined when this instance holds every partition.
 */
export async function placementOf(
  o: Pick<RuntimeSettings, "bus" | "clock" | "leased">,
  store: ActorStore,
  metrics: Metrics,
  log: Logger,
): Promise<LeasedPlacement | undefined> {
  if (o.leased === undefined) return undefined;
  const placement: LeasedPlacement = new LeasedPlacement({
    store: store.leases,
    clock: o.clock,
    ...o.leased,
    observe: watchLeases(metrics, () => placement),
    onError: (err, where) => log.error({ err, where }, "lease failure"),
    ...(o.bus.reachable ? { reachable: () => o.bus.reachable!() } : {}),
  });
  await placement.start();
  return placement;
}

/**
 * The machinery's gauges, read at each scrape: actors' mailboxes, timers due, the bus lag and
 * each projection's lag. A feature adds its own (open alerts by kind) with `Metrics.gauge`.
 */
import type { Bus } from "../bus/bus.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";
import type { Metrics } from "./metrics.ts";

/** Timers counted as due at one scrape, at most: past this the gauge says "at least". */
export const TIMERS_DUE_COUNTED_MAX = 10_000;

interface Lagging {
  backlog?(): { changes: number; oldestMs: number };
}

export function watchMachinery(metrics: Metrics, parts: {
  readonly runtime: ActorRuntime;
  readonly bus: Bus;
  readonly projections: () => Readonly<Record<string, Lagging>>;
}): void {
  const { runtime, bus } = parts;
  metrics.gauge(
    "actor_mailbox_commands",
    "Commands waiting in the mailboxes of the actors in memory",
    [],
    () => runtime.mailboxDepth().waiting,
  );
  metrics.gauge(
    "actor_mailbox_depth_max",
    "The most commands waiting in one actor's mailbox",
    [],
    () => runtime.mailboxDepth().deepest,
  );
  metrics.gauge("actors_active", "Actors held in memory", [], () => runtime.activeActors);
  metrics.gauge(
    "timers_due",
    `Durable timers due and not yet fired (counted up to ${TIMERS_DUE_COUNTED_MAX})`,
    [],
    () => runtime.timersDue(TIMERS_DUE_COUNTED_MAX),
  );
  metrics.gauge(
    "bus_lag_messages",
    "Bus messages this instance's handlers have been given and not yet finished",
    [],
    () => bus.backlog?.() ?? 0,
  );
  const lags = () =>
    Object.entries(parts.projections()).flatMap(([name, p]) => {
      const lag = p.backlog?.();
      return lag ? [{ name, ...lag }] : [];
    });
  metrics.gauge(
    "projection_lag_changes",
    "Changes a projection has received and not yet written to the query side",
    ["projection"],
    () => lags().map((l) => ({ labels: { projection: l.name }, value: l.changes })),
  );
  metrics.gauge(
    "projection_lag_seconds",
    "How long the oldest change a projection has not yet written has waited",
    ["projection"],
    () => lags().map((l) => ({ labels: { projection: l.name }, value: l.oldestMs / 1000 })),
  );
}

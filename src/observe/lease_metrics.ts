/**
 * The leases' metrics (issue 43 item 6): partitions held (a gauge read at each scrape), takeovers
 * of a dead instance's partitions, renewals that lost a lease, and how long a renewal takes.
 */
import { Counter, Histogram } from "prom-client";
import { PARTITIONS } from "../limits.ts";
import type { LeaseObserver } from "../runtime/leases.ts";
import { partitionsHeld, type Placement } from "../runtime/placement.ts";
import type { Metrics } from "./metrics.ts";

/** Registers the leases' metrics; answers what the placement tells of its renewals. */
export function watchLeases(metrics: Metrics, placement: () => Placement): LeaseObserver {
  metrics.gauge(
    "actor_partitions_held",
    `Partitions of actors (of ${PARTITIONS}) this instance holds`,
    [],
    () => partitionsHeld(placement()).length,
  );
  const registers = [metrics.registry];
  const takenOver = new Counter({
    name: "actor_partition_takeovers_total",
    help: "Partitions taken from another instance whose lease had expired",
    registers,
  });
  const renewFailures = new Counter({
    name: "actor_lease_renew_failures_total",
    help: "Leases a renewal failed to extend (taken over meanwhile, or the store failed)",
    registers,
  });
  const renewSeconds = new Histogram({
    name: "actor_lease_renew_duration_seconds",
    help: "How long one renewal of the held leases took the store",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5],
    registers,
  });
  return {
    renewed(ms, failed) {
      renewSeconds.observe(ms / 1000);
      if (failed > 0) renewFailures.inc(failed);
    },
    takenOver: () => takenOver.inc(),
  };
}

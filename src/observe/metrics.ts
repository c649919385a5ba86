/**
 * The environment's metrics in the Prometheus text format (prom-client). Each environment has a
 * registry of its own, never prom-client's global one: live and sandbox share a process, and so
 * do the many environments of a test run. Counters and histograms move as things happen; gauges
 * are read when the registry is scraped (`observe`).
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { RequestHistogram } from "./request_histogram.ts";

/** A gauge's values at a scrape: one per label set (none: the gauge has no labels). */
export type GaugeValues = number | readonly { labels: Record<string, string>; value: number }[];

export class Metrics {
  readonly registry = new Registry();
  /** Requests by route pattern and status; `_count` is how many. */
  readonly requests = new RequestHistogram(this.registry);
  /** Writes of how many actors went to the store in one transaction (src/runtime/group_commit.ts). */
  readonly commitSize = new Histogram({
    name: "actor_group_commit_writes",
    help: "Actor writes per group commit",
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry],
  });
  readonly commitSeconds = new Histogram({
    name: "actor_group_commit_duration_seconds",
    help: "How long one group commit took the store",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  /** Outbound webhook attempts by what came of them (src/platform/reactors/deliver.ts). */
  readonly outbound = new Counter({
    name: "outbound_deliveries_total",
    help: "Outbound webhook attempts, by outcome (delivered, failed, no_endpoint)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  /**
   * Asks and reads forwarded to the instance holding their actor (src/runtime/forwarding.ts):
   * `sent` by this one or `served` for another, by outcome (ok, not_owner, failed).
   */
  readonly forwards = new Counter({
    name: "actor_forwards_total",
    help: "Forwarded asks and reads, by role (sent, served) and outcome (ok, not_owner, failed)",
    labelNames: ["role", "outcome"] as const,
    registers: [this.registry],
  });
  /** How long a forward took: `sent`, as the asker waited; `served`, the holder's own part. */
  readonly forwardSeconds = new Histogram({
    name: "actor_forward_duration_seconds",
    help: "How long forwarded asks and reads took, by role (sent, served)",
    labelNames: ["role"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });
  /** Requests being answered now (request_log.ts): a number, read only when scraped. */
  requestsUnderWay = 0;

  constructor() {
    this.gauge(
      "http_requests_in_flight",
      "Requests being answered now, the scrape itself included",
      [],
      () => this.requestsUnderWay,
    );
  }

  /** One request answered (request_log.ts). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.record(method, route, status, seconds);
  }

  /** A gauge read at each scrape; a failing read leaves it out of that scrape. */
  gauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    read: () =>
      | Promise<
        GaugeValues
      >
      | GaugeValues,
  ): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const values = await read();
        if (typeof values === "number") this.set(values);
        else for (const v of values) this.set(v.labels, v.value);
      },
    });
  }

  /** The scrape: every metric in the text format, and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

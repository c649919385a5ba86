/**
 * The requests' latency histogram (`http_request_duration_seconds`, by method, route pattern and
 * status), counted by this module and written by prom-client's registry at a scrape. Counting
 * through prom-client cost every request more than the rest of its metrics: each observation
 * checks its labels, builds their hash string and looks up its bucket by the bound's decimal
 * text (bench/observability.ts). Here a series is found by three map lookups of values the
 * request already holds, and an observation adds to a number in an array.
 */
import { Histogram, type Registry } from "prom-client";

const NAME = "http_request_duration_seconds";
const HELP = "Requests answered, by method, route pattern and status, and how long each took";
/** Upper bounds in seconds: loopback answers in well under a millisecond, a PDF in seconds. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

type LabelName = "method" | "route" | "status";
type Labels = Record<LabelName, string>;

/** One label set's counts: per bucket (not yet cumulative), and their sum and number. */
interface Series {
  readonly labels: Labels;
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** A value of a scrape, in the shape prom-client's registry writes (histogram.js). */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels: Labels;
  value: number;
  metricName: string;
  /** None: this histogram keeps no exemplars (prom-client's null, or undefined for sum and count). */
  exemplar: null | undefined;
}

export class RequestHistogram extends Histogram<LabelName> {
  /** Route pattern, then method, then status: bounded, as routes are patterns. */
  declare private series: Map<string, Map<string, Map<number, Series>>>;
  /** Every series in the order of its first request, as prom-client writes them. */
  declare private all: Series[];

  constructor(registry: Registry) {
    super({
      name: NAME,
      help: HELP,
      labelNames: ["method", "route", "status"] as const,
      buckets: [...BUCKETS],
      registers: [registry],
    });
  }

  /** One request answered in `seconds`. */
  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) this.series.set(route, byMethod = new Map());
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, byStatus = new Map());
    let s = byStatus.get(status);
    if (s === undefined) {
      s = { labels: { method, route, status: String(status) }, buckets: [], sum: 0, count: 0 };
      for (let i = 0; i < BUCKETS.length; i++) s.buckets.push(0);
      byStatus.set(status, s);
      this.all.push(s);
    }
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    if (i < BUCKETS.length) s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** Also run by prom-client's constructor, before this class's own fields exist. */
  override reset(): void {
    super.reset();
    this.series = new Map();
    this.all = [];
  }

  /**
   * Every series' samples, for the registry's text (which reads this before `get`) and for
   * prom-client's own `get`, which gives them with the series' labels on each.
   */
  getForPromString(): Promise<{
    name: string;
    help: string;
    type: "histogram";
    values: Sample[];
    aggregator: "sum";
  }> {
    const values = this.all.flatMap(samples);
    return Promise.resolve({
      name: NAME,
      help: HELP,
      type: "histogram",
      values,
      aggregator: "sum",
    });
  }
}

/** A series' cumulative buckets, `+Inf`, sum and count, in prom-client's order and shape. */
function samples(s: Series): Sample[] {
  const out: Sample[] = [];
  let below = 0;
  for (let i = 0; i < BUCKETS.length; i++) {
    below += s.buckets[i]!;
    out.push(sample({ le: BUCKETS[i]! }, s, below, "_bucket", null));
  }
  out.push(
    sample({ le: "+Inf" }, s, s.count, "_bucket", null),
    sample({}, s, s.sum, "_sum", undefined),
    sample({}, s, s.count, "_count", undefined),
  );
  return out;
}

function sample(
  labels: Sample["labels"],
  s: Series,
  value: number,
  suffix: string,
  exemplar: null | undefined,
): Sample {
  return { labels, sharedLabels: s.labels, value, metricName: `${NAME}${suffix}`, exemplar };
}

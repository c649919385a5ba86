import assert from "node:assert/strict";
import fc from "fast-check";
import { Histogram, Registry } from "prom-client";
import { RequestHistogram } from "../../src/observe/request_histogram.ts";

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** prom-client's own histogram of the same name, labels and buckets: what ours must write. */
function promClients(registry: Registry) {
  return new Histogram({
    name: "http_request_duration_seconds",
    help: "Requests answered, by method, route pattern and status, and how long each took",
    labelNames: ["method", "route", "status"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
}

const observation = fc.record({
  method: fc.constantFrom("GET", "POST", "DELETE"),
  route: fc.constantFrom("/api/a", "/api/b/:id", 'odd "route" \\ \n', "unmatched"),
  status: fc.constantFrom(200, 201, 404, 429, 500),
  // On the bounds and between them, past the last one too.
  seconds: fc.oneof(
    fc.constantFrom(0, ...BUCKETS, 7),
    fc.double({ min: 0, max: 10, noNaN: true }),
  ),
});

Deno.test("RequestHistogram: a scrape writes what prom-client's Histogram writes for the same requests", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (requests) => {
      const ours = new Registry();
      const theirs = new Registry();
      const histogram = new RequestHistogram(ours);
      const reference = promClients(theirs);
      for (const r of requests) {
        histogram.record(r.method, r.route, r.status, r.seconds);
        reference.observe(
          { method: r.method, route: r.route, status: String(r.status) },
          r.seconds,
        );
      }
      assert.equal(await ours.metrics(), await theirs.metrics());
      assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
    }),
    { numRuns: 200 },
  );
});

Deno.test("RequestHistogram: reset() empties every series", async () => {
  const registry = new Registry();
  const histogram = new RequestHistogram(registry);
  histogram.record("GET", "/api/a", 200, 0.002);
  assert.match(await registry.metrics(), /_count\{method="GET",route="\/api\/a",status="200"\} 1/);
  registry.resetMetrics();
  assert.doesNotMatch(await registry.metrics(), /_count/);
});

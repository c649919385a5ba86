/**
 * The operator's metrics (issue: the operator's eyes): the environment's own registry in the
 * Prometheus text format, for a scraper holding the operator token.
 */
import type { Api } from "../../src/http/app.ts";
import { define } from "../../src/http/route.ts";
import { operatorOnly } from "../../src/platform/auth/auth.ts";

export function metricsRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/metrics",
    summary: "The environment's metrics in the Prometheus text format (version 0.0.4)",
    description: "Requests by route pattern and status with latency histograms " +
      "(`http_request_duration_seconds`), actor mailbox depth (`actor_mailbox_commands`, " +
      "`actor_mailbox_depth_max`), group-commit size and latency " +
      "(`actor_group_commit_writes`, `actor_group_commit_duration_seconds`), bus lag " +
      "(`bus_lag_messages`), projection lag (`projection_lag_changes`, " +
      "`projection_lag_seconds`), outbound deliveries by outcome " +
      "(`outbound_deliveries_total`), open alerts by kind (`alerts_open`) and timers due " +
      "(`timers_due`). Each environment (live, sandbox) has its own.",
    tag: "Operator",
    security: "operator",
    middleware: [operatorOnly],
    produces: "text/plain",
  }, async (c) => {
    const { body, contentType } = await c.get("env").metrics.scrape();
    return new Response(body, { headers: { "Content-Type": contentType } });
  });
}

/**
 * What the courier platform adds to the environment's log and metrics: a line per alert raised
 * (courier 2.9), and the alerts not yet resolved, by kind, at each scrape.
 */
import { alertActor, type AlertEvent } from "../../actors/courier/alert.ts";
import { subjectPattern } from "../bus/bus.ts";
import { parseChange } from "../db/bus_projection.ts";
import type { FeatureDeps, Reactor } from "../feature.ts";

/**
 * Logs each alert raised, from the alerts' changes on the bus: every raise, whoever raised it (a
 * reactor, a flow, a sweep). At least once: a change republished after a crash logs again.
 */
export function logAlertsRaised(deps: FeatureDeps): Reactor {
  const sub = deps.bus.subscribe(subjectPattern(deps.busPrefix, "*", alertActor.type), (m) => {
    const change = parseChange(m.payload);
    for (const { event } of change.events) {
      const e = event as AlertEvent;
      if (e.kind !== "raised") continue;
      deps.log.info({
        event: "alert_raised",
        tenant_id: change.tenant,
        alert_id: e.alert.id,
        kind: e.alert.kind,
        owner: e.alert.owner,
        waybill: e.alert.waybill,
      }, "alert raised");
    }
  }, { handledBy: deps.runtime.placement }); // logged once, by the alert's holder (issue 43 item 3)
  return {
    close() {
      sub.unsubscribe();
      return Promise.resolve();
    },
  };
}

/** `alerts_open{kind}`: alerts acknowledged or not, and not resolved, from their read table. */
export function watchOpenAlerts(deps: FeatureDeps): void {
  deps.metrics.gauge(
    "alerts_open",
    "Alerts raised and not yet resolved, by kind",
    ["kind"],
    async () => {
      const rows = await deps.db.selectFrom("alerts")
        .select(({ fn }) => ["kind", fn.countAll<string>().as("open")])
        .where("status", "!=", "resolved")
        .groupBy("kind")
        .execute();
      return rows.map((r) => ({ labels: { kind: r.kind }, value: Number(r.open) }));
    },
  );
}

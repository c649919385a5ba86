/**
 * The alerts the delivery engine raises (courier 2.9, 3.1, 6.3): `billing_export_failed` and
 * `notification_failed` when an event fails its whole schedule, and `billing_endpoint_missing`
 * when a billing event has nowhere to go and its entry has not gone out in a CSV export either.
 * Each condition is raised once (the alert id derives from it); a requeued event that fails
 * again is a new condition.
 */
import type { Kysely } from "kysely";
import { raiseAlert } from "../courier/alerts.ts";
import type { Database } from "../db/schema.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";
import type { OutboundDeliveryOptions } from "./deliver.ts";

export function outboundAlerts(
  runtime: ActorRuntime,
  db: Kysely<Database>,
): Pick<OutboundDeliveryOptions, "onFailed" | "onEndpointMissing"> {
  return {
    async onFailed(tenant, event) {
      const billing = event.stream === "billing";
      const last = event.last_attempt?.outcome;
      const why = last && last.result === "failed"
        ? last.http_status === null ? (last.error ?? "no answer") : `HTTP ${last.http_status}`
        : "no answer";
      await raiseAlert(runtime, tenant, {
        kind: billing ? "billing_export_failed" : "notification_failed",
        condition_key: `${event.event_id}:${event.requeues.length}`,
        // Billing events are the courier's accounting to chase; client webhooks its operations.
        owner: billing ? "billing" : "operations",
        subject: { type: "outbound_event", id: event.event_id },
        message:
          `${event.event_type} (${event.event_id}) was not delivered after ${event.attempts_total} attempts: ${why}`,
        detail: { event_id: event.event_id, event_type: event.event_type },
      });
    },
    async onEndpointMissing(tenant, event) {
      if (event.stream !== "billing") return;
      // spec: courier 3.1: only when the entry has not gone out in a CSV export either.
      if (event.entry && await exported(db, tenant, event.entry)) return;
      await raiseAlert(runtime, tenant, {
        kind: "billing_endpoint_missing",
        condition_key: event.event_id,
        owner: "billing",
        subject: { type: "outbound_event", id: event.event_id },
        message: `${event.event_type} (${event.event_id}) has no billing endpoint or webhook ` +
          `URL to go to and its entry has not been exported; set one, or export the entry`,
        detail: { event_id: event.event_id, event_type: event.event_type },
      });
    },
  };
}

async function exported(
  db: Kysely<Database>,
  tenant: string,
  entry: { client_id: string; reference: string; kind?: string },
): Promise<boolean> {
  let query = db.selectFrom("ledger_entries")
    .select("export_state")
    .where("tenant", "=", tenant)
    .where("client_id", "=", entry.client_id)
    .where("reference", "=", entry.reference);
  // A reference is unique within its kind only; a link made before it named the kind names none.
  if (entry.kind !== undefined) query = query.where("kind", "=", entry.kind);
  const rows = await query.execute();
  return rows.length > 0 && rows.every((r) => r.export_state !== "pending");
}

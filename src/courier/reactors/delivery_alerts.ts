/**
 * The alerts the delivery engine raises (courier 2.9, 3.1, 6.3): `billing_export_failed` and
 * `notification_failed` when an event fails its whole schedule, and `billing_endpoint_missing`
 * when a billing event still has nowhere to go at its hourly retry and its entry has not gone out in
 * a CSV export either; the latter is resolved by the system once the entry is exported or the
 * event delivered, or failed its schedule at an endpoint set since.
 * Each condition is raised once (the alert id derives from it); a requeued event that fails
 * again is a new condition.
 */
import type { Kysely } from "kysely";
import {
  type OutboundEventSummary,
  requeuesTotal,
  waitedForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import { alertActor, SYSTEM_PRINCIPAL } from "../../../actors/courier/alert.ts";
import { alertIdOf, raiseAlert } from "../flows/alerts.ts";
import type { Database } from "../../db/schema.ts";
import { type TurnBatch, turnBatch } from "../../db/turn_batch.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { OutboundDeliveryOptions } from "../../platform/reactors/deliver.ts";

/**
 * billing_endpoint_missing alerts of one waiting event: each raised once the one before was
 * resolved and the event still waits; bounds the keys one raise walks through.
 */
const ENDPOINT_MISSING_ALERTS_MAX = 100;

export function outboundAlerts(
  runtime: ActorRuntime,
  db: Kysely<Database>,
): Required<
  Pick<
    OutboundDeliveryOptions,
    "onFailed" | "onEndpointMissing" | "onDeliveredAfterWait" | "onFailedAfterWait"
  >
> {
  const exported = exportedLookup(db);
  return {
    onFailed: (tenant, event) => alertFailed(runtime, tenant, event),
    onEndpointMissing: (tenant, event) => alertEndpointMissing(runtime, exported, tenant, event),
    onDeliveredAfterWait: async (tenant, event) => {
      if (event.stream !== "billing") return;
      // spec: courier 2.9, 3.1: the event is no longer retried once delivered, so no later retry
      // would find its entry exported and resolve the alert its wait raised: it is resolved now,
      // or it stays open for ever, one for the team to close by hand per event that waited.
      await resolveEndpointMissing(runtime, tenant, event.event_id, {
        resolution: "delivered to the billing endpoint or webhook URL set since (courier 3.1, 6.1)",
        evidence: lastAttemptEvidence(event),
      });
    },
    onFailedAfterWait: async (tenant, event) => {
      if (event.stream !== "billing") return;
      // spec: courier 2.9, 3.1 (issue 42 item 4): the event no longer waits for an endpoint: one
      // was set and the whole schedule failed at it, which billing_export_failed now says; left
      // open, the alert would tell the billing team to set an endpoint that is set.
      await resolveEndpointMissing(runtime, tenant, event.event_id, {
        resolution: "an endpoint was set since and the event failed its whole schedule there; " +
          "raised as billing_export_failed (courier 3.1, 6.3)",
        evidence: lastAttemptEvidence(event),
      });
    },
  };
}

/** An event failed its whole schedule: `billing_export_failed` or `notification_failed`. */
async function alertFailed(
  runtime: ActorRuntime,
  tenant: string,
  event: OutboundEventSummary,
): Promise<void> {
  const billing = event.stream === "billing";
  const last = event.last_attempt?.outcome;
  const why = last && last.result === "failed"
    ? last.http_status === null ? (last.error ?? "no answer") : `HTTP ${last.http_status}`
    : "no answer";
  await raiseAlert(runtime, tenant, {
    kind: billing ? "billing_export_failed" : "notification_failed",
    // Each round's failure is a condition of its own (3.1: requeue sends it again from the
    // first attempt): counted over every requeue, not the REQUEUES_MAX the history keeps,
    // past which a failure again was the last one's alert and alerted no one. A change
    // published before the count was kept has only the history.
    condition_key: `${event.event_id}:${requeuesTotal(event)}`,
    // spec: courier 3.1, 6.1: a failed event is marked failed and the courier's operations
    // team is alerted (billing events and client webhooks alike, 6.2 "same retries").
    owner: "operations",
    subject: { type: "outbound_event", id: event.event_id },
    message:
      `${event.event_type} (${event.event_id}) was not delivered after ${event.attempts_total} attempts: ${why}`,
    detail: { event_id: event.event_id, event_type: event.event_type },
  });
}

/**
 * A billing event still has nowhere to go at its hourly retry: `billing_endpoint_missing`, unless
 * its entry has gone out in a CSV export, which resolves the one raised before.
 */
async function alertEndpointMissing(
  runtime: ActorRuntime,
  exported: (entry: EntryKey) => Promise<boolean>,
  tenant: string,
  event: OutboundEventSummary,
): Promise<void> {
  if (event.stream !== "billing") return;
  // spec: courier 3.1: the event waits and is tried again hourly; raised when a retry still
  // finds no endpoint. At the first try its entry has had no time to go out in a CSV export,
  // so a courier that exports would have been alerted of every charge it makes.
  if (!waitedForEndpoint(event, event.endpoint_missing_at)) return;
  // spec: courier 3.1: only when the entry has not gone out in a CSV export either; one
  // raised before the export no longer stands and is resolved at this retry (also after a
  // crash between the export and its resolution: the event is retried hourly until sent).
  if (event.entry && await exported({ tenant, ...event.entry })) {
    return await resolveEndpointMissing(runtime, tenant, event.event_id, {
      resolution: "the entry went out in a billing export (courier 3.1)",
      evidence: `the entry of ${event.event_id} is marked exported in the billing export`,
    });
  }
  // spec: courier 2.9: never silently dismissed: a resolved alert whose event an hourly retry
  // after the resolution still finds waiting, unexported, is the condition back, raised
  // again (once: the next key); a retry noted before it (a change delivered again) is the
  // condition the resolution closed. Keyed by the event id alone, it stayed resolved for good.
  const noted = event.endpoint_missing_at ?? event.created_at;
  for (let n = 0; n < ENDPOINT_MISSING_ALERTS_MAX; n++) {
    const alert = await raiseAlert(runtime, tenant, {
      kind: "billing_endpoint_missing",
      condition_key: endpointMissingKey(event.event_id, n),
      owner: "billing",
      subject: { type: "outbound_event", id: event.event_id },
      message: `${event.event_type} (${event.event_id}) has no billing endpoint or webhook ` +
        `URL to go to and its entry has not been exported; set one, or export the entry`,
      detail: { event_id: event.event_id, event_type: event.event_type },
    });
    if (alert.status !== "resolved" || (alert.resolved_at ?? 0) >= noted) return;
  }
  throw new Error(
    `billing_endpoint_missing of ${event.event_id}: resolved ${ENDPOINT_MISSING_ALERTS_MAX} ` +
      `times and still waiting`,
  );
}

/**
 * The last attempt as evidence (the delivering one, or the last failed one): its id, time and HTTP
 * status or error; never the URL (it may carry a token), the body sent, nor the receiver's answer.
 */
function lastAttemptEvidence(event: OutboundEventSummary): string {
  // A settled event takes no attempt after the one that settled it: it is the change's last.
  const last = event.last_attempt;
  if (last === null || last.outcome.result === "no_endpoint") {
    return `${event.event_id} is marked ${event.status}`;
  }
  const at = new Date(last.at).toISOString();
  const outcome = last.outcome;
  if (outcome.result === "delivered") {
    return `${event.event_id} delivered by attempt ${last.attempt_id} at ${at}: ` +
      `HTTP ${outcome.http_status}`;
  }
  // The error's kind only (`fetch_failed`, `timeout`): its text may name the URL.
  const why = outcome.http_status === null
    ? (outcome.error?.split(":")[0] ?? "no answer")
    : `HTTP ${outcome.http_status}`;
  return `${event.event_id} failed after ${event.attempts_total} attempts, the last ` +
    `${last.attempt_id} at ${at}: ${why}`;
}

/**
 * Resolves the `billing_endpoint_missing` alert of an event whose entry went out in an export, or
 * that was delivered or failed its schedule at an endpoint set since: spec: courier 2.9: never silently dismissed, so with a resolution and
 * evidence. Nothing when none was raised or it is resolved already.
 */
async function resolveEndpointMissing(
  runtime: ActorRuntime,
  tenant: string,
  eventId: string,
  why: { readonly resolution: string; readonly evidence: string },
): Promise<void> {
  // The open one of the event's alerts, if any: those before it were resolved (by a person, the
  // condition then raised again under the next key), and none is raised past an open one.
  for (let n = 0; n < ENDPOINT_MISSING_ALERTS_MAX; n++) {
    const id = alertIdOf("billing_endpoint_missing", endpointMissingKey(eventId, n));
    const r = await runtime.ask(alertActor, tenant, id, {
      kind: "resolve",
      ...why,
      by: SYSTEM_PRINCIPAL,
    });
    if (r.ok || r.code === "not_found") return;
    if (r.code !== "alert_already_resolved") {
      throw new Error(`alert of ${eventId} not resolved: ${r.code}: ${r.message}`);
    }
  }
}

/** The condition key of an event's `n`th billing_endpoint_missing alert (0: the first). */
function endpointMissingKey(eventId: string, n: number): string {
  return n === 0 ? eventId : `${eventId}:again:${n}`;
}

interface EntryKey {
  readonly tenant: string;
  readonly client_id: string;
  readonly reference: string;
  readonly kind?: string;
}

/** Entries looked up in one statement at most. */
const LOOKUPS_PER_SELECT_MAX = 500;

/**
 * Whether an entry has gone out in a CSV export. The lookups asked in one turn of the event loop
 * go to Postgres as one statement: every billing event of a busy courier without an endpoint asks,
 * and one round trip each cost more than the rest of its alerting.
 */
export function exportedLookup(db: Kysely<Database>): TurnBatch<EntryKey, boolean> {
  return turnBatch(LOOKUPS_PER_SELECT_MAX, async (batch) => {
    const rows = await db.selectFrom("ledger_entries")
      .select(["tenant", "client_id", "reference", "kind", "export_state"])
      .where((eb) =>
        eb(
          eb.refTuple("tenant", "client_id", "reference"),
          "in",
          batch.map((e) => eb.tuple(e.tenant, e.client_id, e.reference)),
        )
      )
      .execute();
    const byEntry = Map.groupBy(rows, (r) => keyOf(r));
    return batch.map((e) => {
      // A reference is unique within its kind only; a link made before it named the kind
      // names none.
      const found = (byEntry.get(keyOf(e)) ?? []).filter((r) =>
        e.kind === undefined || r.kind === e.kind
      );
      return found.length > 0 && found.every((r) => r.export_state !== "pending");
    });
  });
}

function keyOf(e: { tenant: string; client_id: string; reference: string }): string {
  return `${e.tenant}\u0000${e.client_id}\u0000${e.reference}`;
}

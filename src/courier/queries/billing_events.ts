/**
 * Outbound events (courier 3.1, 6.1, 6.2) over the `outbound_events` read table (migration 0016):
 * the billing event outbox, newest first (courier 4.3).
 */
import type { Kysely } from "kysely";
import {
  type OutboundEventSummary,
  summaryOf,
} from "../../../actors/platform/outbound_event/mod.ts";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";
import { LOG_COLUMNS, loggedEventOfRow } from "./outbound_log.ts";

interface OutboundEventValues {
  readonly stream: string;
  readonly event_type: string;
  readonly status: string;
  readonly client_id: string | null;
  readonly recipient_kind: string | null;
  readonly recipient_client_id: string | null;
  readonly endpoint_missing_at: number | null;
  readonly reported_state: string | null;
  readonly external_references: Readonly<Record<string, string>> | null;
  readonly created_at: number;
}

/** The `outbound_events` read table: one row per outbound event, from its summary. */
export const outboundEventsTable: ReadTable<OutboundEventValues> = {
  table: "outbound_events",
  actorType: "outbound_event",
  columns: {
    stream: "text",
    event_type: "text",
    status: "text",
    client_id: "text",
    recipient_kind: "text",
    recipient_client_id: "text",
    endpoint_missing_at: "bigint",
    reported_state: "text",
    external_references: "jsonb",
    created_at: "bigint",
  },
  rowOf: (snapshot) => {
    const e = snapshot as Partial<OutboundEventSummary>;
    if (typeof e.stream !== "string" || typeof e.event_type !== "string") {
      throw new TypeError("an outbound event snapshot must have a stream and an event_type");
    }
    if (typeof e.status !== "string" || !Number.isSafeInteger(e.created_at)) {
      throw new TypeError("an outbound event snapshot must have a status and created_at");
    }
    const recipient = e.recipient ?? null;
    return {
      stream: e.stream,
      event_type: e.event_type,
      status: e.status,
      // Events made before client_id was kept name the client in their entry only.
      client_id: e.client_id ?? e.entry?.client_id ?? null,
      recipient_kind: recipient?.kind ?? null,
      recipient_client_id: recipient?.kind === "client" ? recipient.client_id : null,
      endpoint_missing_at: e.endpoint_missing_at ?? null,
      reported_state: e.acknowledgement?.reported_state ?? null,
      external_references: e.acknowledgement?.external_references ?? null,
      created_at: e.created_at!,
    };
  },
};

export interface BillingEventFilters {
  readonly status?: string | undefined;
  readonly event_type?: string | undefined;
  readonly client_id?: string | undefined;
}

/** One page of a courier's billing events, newest made first (then by id). */
export async function billingEventPage(
  db: Kysely<Database>,
  tenant: string,
  filters: BillingEventFilters,
  page: PageRequest,
): Promise<KeysetPage<OutboundEventSummary>> {
  let q = db.selectFrom("outbound_events")
    .select([...LOG_COLUMNS, snapshotData("outbound_event", "outbound_events.id").as("data")])
    .where("tenant", "=", tenant)
    .where("stream", "=", "billing");
  if (filters.status) q = q.where("status", "=", filters.status);
  if (filters.event_type) q = q.where("event_type", "=", filters.event_type);
  if (filters.client_id) q = q.where("client_id", "=", filters.client_id);
  const found = await keysetPage(
    q,
    { at: "outbound_events.created_at", id: "outbound_events.id", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: r.id }),
  );
  // An event no actor holds is its delivery-log row (issue 36 item 2).
  const rows = found.rows.map((r) => {
    const logged = r.data === null || r.data === undefined ? loggedEventOfRow(r) : null;
    return { data: logged ? summaryOf(logged) : r.data };
  });
  return { rows: snapshotsOf<OutboundEventSummary>(rows), next: found.next };
}

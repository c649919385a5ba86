/** What the crossing shows: the reply naming it, and the summary the query side keeps. */
import type { Crossing, CrossingReply } from "./types.ts";

/** The reply naming the crossing; `created` when this command opened it. */
export function crossingOf(c: Crossing, created = false): CrossingReply {
  return { kind: "crossing", crossing: c, created };
}

/** What the query side keeps (the snapshots table): enough to list a shipment's crossings. */
export function crossingSummary(c: Crossing) {
  const last = c.history.at(-1) ?? null;
  return {
    id: c.id,
    waybill: c.waybill,
    client_id: c.client_id,
    country: c.country,
    to_country: c.to_country,
    border_post: c.border_post,
    run_id: c.run_id,
    stop_id: c.stop_id,
    status: c.status,
    customs_reference: c.customs_reference,
    documents: c.documents.length,
    moves: c.history.length,
    last_move: last ? { action: last.action, by: last.by, at: last.at } : null,
    duties: c.duties.length,
    vehicle_left_at: c.vehicle_left_at,
    released_after_departure: c.released_after_departure,
    exit_at: c.exit_at,
    entry_at: c.entry_at,
    opened_at: c.opened_at,
    updated_at: c.updated_at,
  };
}

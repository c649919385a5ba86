/**
 * One row of the operations board (courier 4.4): a shipment as operations staff scan it, made
 * from the shipment's projected snapshot. Pure; shared by the list endpoint and the live board.
 */
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the projection keeps of a shipment (its snapshot data): the shipment without its token. */
export type ShipmentSnapshot = Omit<
  Shipment,
  "tracking_token" | "tracking_token_hash" | "charges_due"
>;

export interface OperationsRow {
  readonly waybill: string;
  readonly client_id: string;
  readonly external_customer_code: string | null;
  readonly external_billing_reference: string | null;
  readonly client_order_reference: string | null;
  readonly status: string;
  readonly health: string;
  readonly health_reason: string;
  readonly custody: { readonly holder: string | null; readonly facility_id: string | null };
  readonly last_scan: {
    readonly event: string;
    readonly at: string;
    readonly facility_id: string | null;
    readonly note: string | null;
  } | null;
  readonly next_milestone: string | null;
  readonly next_due_at: string | null;
  readonly next_owner: string | null;
  readonly overdue: boolean;
  readonly estimated_delivery_on: string;
  readonly promise: { readonly earliest_delivery: string; readonly latest_delivery: string };
  readonly pieces: { readonly count: number; readonly places: number };
  /** Null on the live feed: the board counts open alerts from its own alert list. */
  readonly open_alerts: number | null;
  readonly age_days: number;
  readonly booked_at: string;
  readonly closed: boolean;
  readonly delivered_at: string | null;
}

export function operationsRow(
  s: ShipmentSnapshot,
  now: number,
  openAlerts: number | null,
): OperationsRow {
  const places = new Set(s.pieces.map((p) => `${p.facility_id ?? "-"}|${p.holder ?? "-"}`));
  // The custody shown is the most recently scanned piece's (all of them when together).
  const latest = [...s.pieces].sort((a, b) => (b.last_scan_at ?? 0) - (a.last_scan_at ?? 0))[0];
  return {
    waybill: s.waybill,
    client_id: s.client_id,
    external_customer_code: s.references.external_customer_code,
    external_billing_reference: s.references.external_billing_reference,
    client_order_reference: s.references.client_order_reference,
    status: s.status,
    health: s.health,
    health_reason: s.health_reason,
    custody: { holder: latest?.holder ?? null, facility_id: latest?.facility_id ?? null },
    last_scan: s.last_scan
      ? {
        event: s.last_scan.event,
        at: iso(s.last_scan.at),
        facility_id: s.last_scan.facility_id,
        note: s.last_scan.note,
      }
      : null,
    next_milestone: s.next_milestone,
    next_due_at: s.next_due_at === null ? null : iso(s.next_due_at),
    next_owner: s.next_owner,
    overdue: s.first_due_at !== null && s.first_due_at <= now,
    estimated_delivery_on: s.estimated_delivery_on,
    promise: {
      earliest_delivery: s.pricing.promise.earliest_delivery,
      latest_delivery: s.pricing.promise.latest_delivery,
    },
    pieces: { count: s.pieces.length, places: places.size },
    open_alerts: openAlerts,
    age_days: Math.max(0, Math.floor((now - s.booked_at) / DAY_MS)),
    booked_at: iso(s.booked_at),
    closed: s.closed_at !== null,
    delivered_at: s.delivered_at === null ? null : iso(s.delivered_at),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

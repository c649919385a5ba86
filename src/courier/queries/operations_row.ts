/**
 * One row of the operations board (courier 4.4): a shipment as operations staff scan it. Made from
 * the shipment's typed read-table row (the list) or from its snapshot (the live board, a single
 * shipment), both through `shipmentValues`, so the two can never show a shipment differently.
 * Pure.
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

/** A shipment's columns in the `shipments` read table (migration 0016), but its key. */
export interface ShipmentValues {
  readonly client_id: string;
  readonly status: string;
  readonly health: string | null;
  readonly health_reason: string | null;
  readonly external_customer_code: string | null;
  readonly external_billing_reference: string | null;
  readonly client_order_reference: string | null;
  readonly recipient_name: string | null;
  readonly custody_holder: string | null;
  readonly custody_facility_id: string | null;
  readonly facility_ids: readonly string[];
  readonly pieces_count: number;
  readonly places_count: number;
  readonly last_scan_event: string | null;
  readonly last_scan_at: number | null;
  readonly last_scan_facility_id: string | null;
  readonly last_scan_note: string | null;
  readonly next_milestone: string | null;
  readonly next_due_at: number | null;
  readonly next_owner: string | null;
  readonly first_due_at: number | null;
  readonly estimated_delivery_on: string | null;
  readonly earliest_delivery: string | null;
  readonly latest_delivery: string | null;
  readonly collection_on: string | null;
  /** The tax frozen at booking (courier 2.4), for the billing export. */
  readonly tax_minor: number | null;
  readonly booked_at: number;
  readonly closed_at: number | null;
  readonly delivered_at: number | null;
}

/** A shipment's typed values: what its row of the board is made from, and the filters. */
export function shipmentValues(s: ShipmentSnapshot): ShipmentValues {
  if (typeof s.client_id !== "string" || typeof s.status !== "string") {
    throw new TypeError("a shipment snapshot must have a client_id and a status");
  }
  if (!Number.isSafeInteger(s.booked_at) || !Array.isArray(s.pieces)) {
    throw new TypeError("a shipment snapshot must have booked_at and pieces");
  }
  const places = new Set(s.pieces.map((p) => `${p.facility_id ?? "-"}|${p.holder ?? "-"}`));
  // The custody shown is the most recently scanned piece's (all of them when together).
  const latest = [...s.pieces].sort((a, b) => (b.last_scan_at ?? 0) - (a.last_scan_at ?? 0))[0];
  const facilities = new Set(s.pieces.flatMap((p) => p.facility_id == null ? [] : [p.facility_id]));
  const promise = s.pricing?.promise;
  return {
    client_id: s.client_id,
    status: s.status,
    health: s.health ?? null,
    health_reason: s.health_reason ?? null,
    external_customer_code: s.references?.external_customer_code ?? null,
    external_billing_reference: s.references?.external_billing_reference ?? null,
    client_order_reference: s.references?.client_order_reference ?? null,
    recipient_name: s.recipient?.name ?? null,
    custody_holder: latest?.holder ?? null,
    custody_facility_id: latest?.facility_id ?? null,
    facility_ids: [...facilities].sort(),
    pieces_count: s.pieces.length,
    places_count: places.size,
    last_scan_event: s.last_scan?.event ?? null,
    last_scan_at: s.last_scan?.at ?? null,
    last_scan_facility_id: s.last_scan?.facility_id ?? null,
    last_scan_note: s.last_scan?.note ?? null,
    next_milestone: s.next_milestone ?? null,
    next_due_at: s.next_due_at ?? null,
    next_owner: s.next_owner ?? null,
    first_due_at: s.first_due_at ?? null,
    estimated_delivery_on: s.estimated_delivery_on ?? null,
    earliest_delivery: promise?.earliest_delivery ?? null,
    latest_delivery: promise?.latest_delivery ?? null,
    collection_on: promise?.collection_on ?? null,
    tax_minor: s.pricing?.tax_minor ?? null,
    booked_at: s.booked_at,
    closed_at: s.closed_at ?? null,
    delivered_at: s.delivered_at ?? null,
  };
}

/** The board's row of a shipment's typed values (its waybill is the row's id). */
export function boardRow(
  waybill: string,
  v: ShipmentValues,
  now: number,
  openAlerts: number | null,
): OperationsRow {
  return {
    waybill,
    client_id: v.client_id,
    external_customer_code: v.external_customer_code,
    external_billing_reference: v.external_billing_reference,
    client_order_reference: v.client_order_reference,
    status: v.status,
    health: v.health!,
    health_reason: v.health_reason!,
    custody: { holder: v.custody_holder, facility_id: v.custody_facility_id },
    last_scan: v.last_scan_event === null || v.last_scan_at === null ? null : {
      event: v.last_scan_event,
      at: iso(v.last_scan_at),
      facility_id: v.last_scan_facility_id,
      note: v.last_scan_note,
    },
    next_milestone: v.next_milestone,
    next_due_at: v.next_due_at === null ? null : iso(v.next_due_at),
    next_owner: v.next_owner,
    overdue: v.first_due_at !== null && v.first_due_at <= now,
    estimated_delivery_on: v.estimated_delivery_on!,
    promise: { earliest_delivery: v.earliest_delivery!, latest_delivery: v.latest_delivery! },
    pieces: { count: v.pieces_count, places: v.places_count },
    open_alerts: openAlerts,
    age_days: Math.max(0, Math.floor((now - v.booked_at) / DAY_MS)),
    booked_at: iso(v.booked_at),
    closed: v.closed_at !== null,
    delivered_at: v.delivered_at === null ? null : iso(v.delivered_at),
  };
}

/** The board's row of a shipment's snapshot (the live board, one shipment's detail). */
export function operationsRow(
  s: ShipmentSnapshot,
  now: number,
  openAlerts: number | null,
): OperationsRow {
  return boardRow(s.waybill, shipmentValues(s), now, openAlerts);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

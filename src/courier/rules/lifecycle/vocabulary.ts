/**
 * The words of a shipment's life (courier 3.2): headlines, health values, milestones and their
 * owners, the scan and custody events, and the service hours deadlines count (courier 2.8).
 */
import type { WorkingCalendar } from "../../../domain/calendar.ts";

/** spec: courier 3.2: headline values (what customers see). */
export const HEADLINES = [
  "booked",
  "awaiting_collection",
  "collected",
  "at_origin_facility",
  "in_transit",
  "at_border",
  "customs_processing",
  "customs_hold",
  "cleared",
  "at_destination_facility",
  "out_for_delivery",
  "delivery_attempted",
  "awaiting_redelivery",
  "delivered",
  "returning",
  "returned",
  "cancelled",
  "lost_or_damaged",
] as const;
export type Headline = typeof HEADLINES[number];

/** spec: courier 3.2: health values (what operations sees). */
export const HEALTHS = [
  "on_schedule",
  "at_risk",
  "late",
  "waiting_customer",
  "waiting_customs",
  "waiting_courier",
  "exception",
  "delivered",
  "closed",
] as const;
export type Health = typeof HEALTHS[number];

/** spec: courier 3.2 milestone table. */
export const MILESTONES = [
  "collection",
  "depot_dwell",
  "linehaul",
  "border_presentation",
  "customs_clearance",
  "customs_documents",
  "delivery_attempt",
  "redelivery",
  "promise",
] as const;
export type Milestone = typeof MILESTONES[number];
/** Who must act next on a shipment (courier 3.2 milestones, owner column). */
export const OWNER_ROLES = ["courier", "customs", "recipient"] as const;
export type Owner = typeof OWNER_ROLES[number];

/** The hours a service level allows each milestone (courier 2.8, 3.2). */
export interface ServiceHours {
  readonly collection_due_hours: number;
  readonly depot_dwell_hours: number;
  readonly border_presentation_hours: number;
  readonly customs_wait_hours: number;
  readonly linehaul_hours: number;
  readonly destination_dwell_hours: number;
  readonly delivery_attempt_hours: number;
  readonly redelivery_due_hours: number;
  readonly no_scan_hours: number;
}

/** The service terms a shipment froze at booking (courier 2.8), as far as deadlines need them. */
export interface LifecycleTerms extends ServiceHours {
  readonly at_risk_pct: number;
  readonly calendar: WorkingCalendar;
}

export interface OpenMilestone {
  readonly name: Milestone;
  readonly owner: Owner;
  readonly opened_at: number;
  readonly due_at: number;
  /** When `at_risk_pct` of the working window is used. */
  readonly at_risk_at: number;
  readonly at_risk_raised: boolean;
  readonly overdue_raised: boolean;
  /** customs_documents: the courier supplied the papers; customs now has them. */
  readonly supplied_at: number | null;
  /**
   * customs_clearance: its working days over customs' wait alerted so far (courier 2.9
   * customs_wait_exceeded, once per day), counted per clearance: one border's each. Absent on a
   * clearance kept before it was counted here (the shipment's customs_days_alerted counts it).
   */
  readonly days_alerted?: number;
}

/** Scan and custody events operations (and later runs and drivers) record (courier 3.2). */
export const SCAN_EVENTS = [
  "scan",
  "collected",
  "received_at_depot",
  "loaded",
  "departed",
  "departed_to_border",
  "arrived",
  "arrived_at_border",
  "presented_to_customs",
  "customs_hold",
  "documents_requested",
  "documents_supplied",
  "cleared",
  "released",
  "customs_refused",
  "received_at_destination",
  "out_for_delivery",
  "delivery_attempted",
  "delivered",
  "returning",
  "returned",
  "cancelled",
  "exception",
  "exception_cleared",
  "lost_or_damaged",
] as const;
export type ScanEvent = typeof SCAN_EVENTS[number];

/**
 * Trail lines that are no scan: what the service recorded happening to the shipment (courier
 * 3.2 trail: every scan, custody move and status change). Nobody scans them by hand.
 */
export const STATUS_CHANGES = [
  // spec: courier 3.4: a border stop went on without the shipment it had presented to customs.
  "presentation_withdrawn",
] as const;
export type StatusChange = typeof STATUS_CHANGES[number];

/** What a trail line records: a scan or a status change. */
export type TrailEvent = ScanEvent | StatusChange;
export const TRAIL_EVENTS = [...SCAN_EVENTS, ...STATUS_CHANGES] as const;

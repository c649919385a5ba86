/**
 * The shipment's state, commands, events and replies (courier 2.3, 3.2): the booking as frozen,
 * the lifecycle that scans and checks move, and the later charges it keeps due.
 */
import type { Decision } from "../../../src/runtime/actor.ts";
import type {
  Headline,
  Health,
  Milestone,
  OpenMilestone,
  Owner,
  ScanEvent,
  TrailEvent,
} from "../../../src/courier/rules/lifecycle.ts";
import type { DueCharge } from "../../../src/courier/rules/charges_due.ts";
import type { PriceLine } from "../../../src/courier/rules/pricing.ts";
import type { SettlementMode } from "../../../src/courier/rules/settlement.ts";
import type { AlertKind } from "../alert.ts";

/**
 * spec: courier 2.3: rate-card version, inputs, service, every line, tax, currency, payer,
 * promise.
 */
export interface FrozenPricing {
  readonly prices_reference: string;
  readonly rate_card_id: string;
  readonly rate_card_version: number;
  readonly service: { readonly code: string; readonly name: string };
  readonly chargeable_grams: number;
  readonly lines: readonly PriceLine[];
  readonly tax_minor: number;
  readonly total_minor: number;
  readonly currency: string;
  readonly payer: "client";
  readonly settlement_mode: SettlementMode;
  readonly promise: {
    readonly collection_on: string;
    readonly earliest_delivery: string;
    readonly latest_delivery: string;
  };
}

export interface ShipmentParty {
  readonly name: string | null;
  readonly address: string | null;
  readonly phone: string | null;
  readonly lat: number | null;
  readonly lng: number | null;
}

/** The shipment as booked: what the booking flow hands the actor. */
export interface ShipmentBooking {
  readonly waybill: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly booked_at: number;
  readonly booked_by: string;
  readonly from_country: string;
  readonly to_country: string;
  readonly sender: ShipmentParty;
  readonly recipient: ShipmentParty;
  readonly parcels: readonly {
    weight_kg: number;
    length_cm: number;
    width_cm: number;
    height_cm: number;
    /** What this parcel holds, when the booking says so per parcel (courier 4.6). */
    contents?: string;
  }[];
  readonly contents: string | null;
  readonly declared_value_minor: number | null;
  readonly liability_cover: boolean;
  readonly dangerous_goods_confirmed: boolean;
  readonly references: {
    readonly external_customer_code: string | null;
    readonly external_billing_reference: string | null;
    readonly client_order_reference: string | null;
  };
  readonly pricing: FrozenPricing;
  /** spec: courier 2.8: the service level as it stood at booking. */
  readonly service_terms: Readonly<Record<string, unknown>>;
  /**
   * The customer tracking link's token. Kept readable (not only hashed) because every read of the
   * booking shows its tracking_url again (courier 4.1, Business API 2.2); found by its hash.
   */
  readonly tracking_token: string;
  readonly tracking_token_hash: string;
}

/** One piece's custody (courier 3.2): who holds it and where. */
export interface PieceCustody {
  readonly id: string;
  readonly holder: string | null;
  readonly facility_id: string | null;
  readonly last_scan_at: number | null;
}

/** One line of the full trail: every scan, custody move and status change. */
export interface TrailEntry {
  readonly at: number;
  readonly event: TrailEvent;
  readonly facility_id: string | null;
  readonly holder: string | null;
  readonly note: string | null;
  readonly reason: string | null;
  readonly pieces: readonly string[] | null;
  readonly by: string;
}

/** A scan's trail line (record.ts). */
export type ScanEntry = TrailEntry & { readonly event: ScanEvent };

export interface LastScan {
  readonly event: ScanEvent;
  readonly at: number;
  readonly facility_id: string | null;
  readonly note: string | null;
}

/** A border stop's presentation of the shipment to customs (courier 3.4): its crossing, run, stop. */
export interface Presentation {
  readonly crossing_id: string;
  readonly run_id: string;
  readonly stop_id: string;
}

/**
 * The presentation the shipment stands in, as recorded (`at`), and its headline and open
 * customs_clearance before it (an earlier border's): what a withdrawal of it gives back
 * (presentation.ts).
 */
export interface PresentedAt extends Presentation {
  readonly at: number;
  readonly status_before: Headline;
  readonly clearance_before: OpenMilestone | null;
  /** When customs cleared or released its crossing (presentation.ts settledAfter); absent: not. */
  readonly settled_at?: number;
}

/** Where the shipment stands after booking (courier 1.4, 3.2). */
export interface Lifecycle {
  readonly status: Headline;
  readonly health: Health;
  readonly health_reason: string;
  readonly pieces: readonly PieceCustody[];
  readonly trail: readonly TrailEntry[];
  readonly trail_total: number;
  /** The last physical scan. */
  readonly last_scan: LastScan | null;
  readonly milestones: readonly OpenMilestone[];
  readonly exception: { readonly reason: string; readonly at: number } | null;
  readonly estimated_delivery_on: string;
  readonly attempts: number;
  readonly delivered_at: number | null;
  readonly pod: { readonly received_by: string | null; readonly note: string | null } | null;
  readonly closed_at: number | null;
  /** Working days over the customs deadline already alerted (once per working day, 2.9). */
  readonly customs_days_alerted: number;
  /** When to count the working days over the customs deadline again (each local day start). */
  readonly customs_check_at?: number | null;
  /** The last-scan instant whose no-scan alert was raised (once per silence). */
  readonly no_scan_raised_for: number | null;
  /** Since when the pieces are in different places (null: together). */
  readonly separated_since: number | null;
  /** The next obligation (courier 4.4): the open milestone due first, its deadline and owner. */
  readonly next_milestone: Milestone | null;
  readonly next_due_at: number | null;
  readonly next_owner: Owner | null;
  /** The earliest deadline of any open milestone: overdue once it has passed. */
  readonly first_due_at: number | null;
  /** The border stop's presentation last recorded; absent or null: none (or withdrawn). */
  readonly presentation?: PresentedAt | null;
  /**
   * How many of its presentations were withdrawn (presentation.ts): a presentation at the same
   * stop after one is a new one (src/courier/flows/customs.ts presentationKey). Absent: none.
   */
  readonly presentations_withdrawn?: number;
}

/**
 * A later charge a scan caused (courier 2.6 rule 3), due on the client's account until the
 * ledger has booked it: kept with the scan's own commit, so a request that dies after the scan
 * still has it booked (scan_charges.ts), and booked again while it stays due.
 */
export interface ChargeDue extends DueCharge {
  /** The scan and the failed attempts counted after it: what `scanCharge` prices. */
  readonly scan: ScanEvent;
  readonly attempts: number;
  readonly by: string;
}

export interface Shipment extends ShipmentBooking, Lifecycle {
  /** At most one per failed attempt and one return; absent (none) on shipments stored before. */
  readonly charges_due?: readonly ChargeDue[];
  /** Runs' steps under way on it (run_steps.ts); absent (none) on shipments stored before. */
  readonly run_steps?: readonly RunStep[];
  /** Operations' scans a customs hold refused before they were recorded (scan_gates.ts). */
  readonly refused_scans?: readonly string[];
}

/** A run's step under way on the shipment: its key (the custody move's) and its run. */
export interface RunStep {
  readonly key: string;
  readonly run_id: string;
}

export type ShipmentState = Shipment | null;

/** A scan or custody move as operations, runs or drivers record it (courier 3.2). */
export interface ScanInput {
  readonly event: ScanEvent;
  readonly facility_id?: string | null;
  readonly holder?: string | null;
  /** Piece ids; absent: every piece. */
  readonly pieces?: readonly string[] | null;
  readonly note?: string | null;
  /** Required for an exception, lost or damaged, or a cancellation. */
  readonly reason?: string | null;
  /** Delivered: who received it (proof of delivery). */
  readonly received_by?: string | null;
  readonly by: string;
}

export type ShipmentCommand =
  | { kind: "book"; shipment: ShipmentBooking }
  /**
   * `ordered`: a scan operations report by hand (courier 4.4), refused when it cannot follow the
   * headline (record.ts outOfOrder); runs and customs moves record what their own steps saw.
   */
  | {
    kind: "record";
    scan: ScanInput;
    ordered?: boolean;
    /** A run's custody move: its key, which ends the step reserved under it (run_steps.ts). */
    step?: string;
    /** Steps under way that their runs voided: a scan closing the shipment passes them. */
    voiding?: readonly string[];
    /** An operations' scan: the token it reserved the shipment's crossings under. */
    customs_gate?: string;
    /** presented_to_customs at a run's border stop: which one (a withdrawal names it). */
    presentation?: Presentation;
    /** cleared or released by customs: the crossing it settles (presentation.ts settledAfter). */
    settles?: string;
  }
  /**
   * spec: courier 3.4: the border stop went on without the shipment before it was recorded: its
   * presentation there is withdrawn from the crossing, and from the shipment (presentation.ts).
   */
  | { kind: "withdraw_presentation"; presentation: Presentation; by: string }
  /** A run's step is under way on the shipment (run_steps.ts); refused once it is closed. */
  | { kind: "reserve_run_step"; step: RunStep }
  /** A customs hold met these scans under way: they are refused (scan_gates.ts). */
  | { kind: "refuse_scans"; tokens: readonly string[] }
  /** The ledger booked these charges (by source event): they are no longer due. */
  | { kind: "confirm_charges"; source_events: readonly string[] }
  /** Writes a shipment stored by an earlier version as load left it (restated, load.ts). */
  | { kind: "restate" }
  | { kind: "get" };

/** An alert the shipment's timers or scans call for; raised by the alert raiser (2.9). */
export interface AlertDue {
  readonly kind: AlertKind;
  readonly condition_key: string;
  readonly owner: string;
  readonly message: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

/**
 * The lifecycle fields a scan or a check changed, the others left out (evolve keeps them), and
 * always the status and health after it (a subscriber reports each event's standing, 2.12). The
 * trail is never repeated: a scan's own line is its `entry`.
 */
export type LifecycleChanges =
  & Partial<Omit<Lifecycle, "trail" | "trail_total">>
  & Pick<Lifecycle, "status" | "health">;

export type ShipmentEvent =
  | { kind: "shipment_booked"; shipment: Shipment }
  /** A scan and what it changed (pure evolve: the values decided, not the rule). */
  | { kind: "scanned"; entry: TrailEntry; changed: LifecycleChanges }
  /** A presentation withdrawn (presentation.ts): its trail line and what it changed. */
  | { kind: "presentation_withdrawn"; entry: TrailEntry; changed: LifecycleChanges }
  /** A deadline passed or neared, or a silence ran long: what it changed. */
  | { kind: "checked"; at: number; changed: LifecycleChanges }
  /** Stored by earlier versions: the lifecycle after a scan or check, whole (still replayed). */
  | { kind: "scanned"; entry: TrailEntry; lifecycle: Lifecycle }
  | { kind: "checked"; at: number; lifecycle: Lifecycle }
  | { kind: "alert_due"; alert: AlertDue }
  | { kind: "estimate_changed"; from: string; to: string; at: number }
  /** The customer-facing stage moved (client webhook `shipment.<stage>`, courier 6.2). */
  | { kind: "stage_reached"; stage: Headline; at: number; occurrence: number }
  /** A later charge is due on the client's account: caused by a scan, or still due later. */
  | { kind: "charge_due"; charge: ChargeDue }
  | { kind: "charges_confirmed"; source_events: readonly string[]; at: number }
  | { kind: "run_step_reserved"; step: RunStep }
  /** Steps under way ended: recorded (their custody move), voided, or the shipment closed. */
  | { kind: "run_steps_ended"; keys: readonly string[] }
  | { kind: "scans_refused"; tokens: readonly string[]; dropped: readonly string[] };

/**
 * `shipment_booked` as the log, the bus and the query side keep it: the commit's state holds the
 * record and the change's snapshot carries it, so the event does not repeat it (the shipment is
 * written once per commit); the booking's instant and standing, for subscribers that report it.
 */
export interface ShipmentBookedNotice {
  readonly kind: "shipment_booked";
  readonly waybill: string;
  readonly booked_at: number;
  readonly status: Headline;
  readonly health: Health;
}

/**
 * A shipment event as the log and the bus keep it (ActorDefinition.logged); logs of earlier
 * versions hold the whole booked shipment.
 */
export type LoggedShipmentEvent = ShipmentEvent | ShipmentBookedNotice;

/** `book` answers whether this call made the shipment (false: it existed, a replay). */
export interface Booking {
  readonly shipment: Shipment;
  readonly created: boolean;
}

export type ShipmentReply = Shipment | Booking;

export function asShipment(reply: ShipmentReply): Shipment {
  return "created" in reply ? reply.shipment : reply;
}

/** What a decision of the shipment answers: its events, or a refusal. */
export type Decided = Decision<ShipmentState, ShipmentEvent, ShipmentReply>;

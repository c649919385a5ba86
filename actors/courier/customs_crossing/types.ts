/**
 * The customs crossing's state, commands, events and replies (courier 2.10, 3.4, 7): the
 * documents supplied, every move with its reason, the duties paid, the border it is presented at.
 */
import type { Decision } from "../../../src/runtime/actor.ts";
import type { DueCharge } from "../../../src/courier/rules/charges_due.ts";

export const CROSSING_STATUSES = [
  "presented",
  "held",
  "documents_requested",
  "cleared",
  "released",
  "refused",
] as const;
export type CrossingStatus = typeof CROSSING_STATUSES[number];

export const CUSTOMS_ACTIONS = [
  "hold",
  "refuse",
  "request_documents",
  "clear",
  "release",
  "duties",
] as const;
export type CustomsAction = typeof CUSTOMS_ACTIONS[number];

export interface SuppliedDocument {
  readonly name: string;
  readonly reference: string | null;
  /** The supply it came with (1, 2, ...). */
  readonly supply: number;
  readonly by: string;
  readonly at: number;
}

export interface Supply {
  readonly n: number;
  readonly note: string | null;
  /** The status the supply found: from held or documents_requested it moves back to presented. */
  readonly from_status: CrossingStatus;
  readonly by: string;
  readonly at: number;
}

export interface CustomsMove {
  /** 1, 2, ...: what follows the move is keyed by it. */
  readonly n: number;
  readonly action: CustomsAction;
  readonly reason: string | null;
  readonly customs_reference: string | null;
  readonly evidence: string | null;
  /** Duties only: the amount in minor units of `currency`, and who pays it. */
  readonly amount_minor: number | null;
  readonly currency: string | null;
  readonly payer: string | null;
  readonly by: string;
  readonly at: number;
}

export interface Duty {
  /** 1, 2, ... on this crossing. */
  readonly n: number;
  /** The move that recorded it. */
  readonly move: number;
  readonly amount_minor: number;
  readonly currency: string;
  readonly payer: string;
  readonly evidence: string;
  readonly by: string;
  readonly at: number;
}

/** What opens a crossing: the shipment and the border stop it is presented at. */
export interface CrossingOpening {
  readonly id: string;
  readonly waybill: string;
  readonly client_id: string;
  readonly country: string;
  readonly to_country: string;
  readonly border_post: string;
  readonly run_id: string | null;
  readonly stop_id: string | null;
}

export interface Crossing extends CrossingOpening {
  readonly status: CrossingStatus;
  readonly opened_at: number;
  readonly opened_by: string;
  readonly documents: readonly SuppliedDocument[];
  readonly supplies: readonly Supply[];
  readonly history: readonly CustomsMove[];
  readonly duties: readonly Duty[];
  /** The clearance's customs reference, once cleared. */
  readonly customs_reference: string | null;
  readonly cleared_at: number | null;
  readonly released_at: number | null;
  readonly refused_at: number | null;
  /** The vehicle went on without the shipment (it stays at the border). */
  readonly vehicle_left_at: number | null;
  /** Customs released it after the vehicle had left: someone must collect it (2.9). */
  readonly released_after_departure: boolean;
  /** Border stop (3.4): the exit from `country` is recorded before the entry to `to_country`. */
  readonly exit_at: number | null;
  readonly entry_at: number | null;
  readonly updated_at: number;
  /** Charges its moves caused that the ledger has not confirmed; absent on older crossings. */
  readonly charges_due?: readonly CrossingChargeDue[];
  /**
   * A run recording a step on the shipment right now (delivery.ts: delivered, attempted,
   * transferred): a hold waits until that run voided it. Internal; absent or null: none.
   */
  readonly delivery_under_way?: DeliveryUnderWay | null;
  /**
   * Operations' delivery scans of the shipment under way, by token (delivery.ts): a hold has the
   * shipment refuse each before it is recorded. Internal; absent: none.
   */
  readonly scans_under_way?: readonly string[];
  /**
   * The post and border a crossing opened at booking had before a border stop presented it: a
   * presentation withdrawn gives them back (border.ts). Internal; absent: never presented so.
   */
  readonly before_stop?: BorderOf | null;
  /**
   * How many times a border stop presented it (presented_at_stop): presented again after a
   * withdrawal is a new presentation (src/courier/flows/customs.ts). Absent: none since kept.
   */
  readonly presentations?: number;
}

/** Where a crossing is: its border post and the border it crosses. */
export interface BorderOf {
  readonly border_post: string;
  readonly country: string;
  readonly to_country: string;
}

/**
 * A step a run is recording on the shipment (delivered, attempted, transferred), by its token
 * (src/courier/flows/runs/customs_gate.ts).
 */
export interface DeliveryUnderWay {
  readonly token: string;
  readonly run_id: string;
  readonly waybill: string;
  /**
   * A report of the shipment as customs_hold under way (reserved while customs holds it): a
   * clearance or release meeting it has the run void it first (delivery.ts). Absent: a step on.
   */
  readonly while_held?: boolean;
}

/**
 * A later charge a move caused (courier 2.6 rule 3: customs administration per crossing
 * cleared), due on the client's account until the ledger has booked it.
 */
export interface CrossingChargeDue extends DueCharge {
  /** The move that caused it. */
  readonly move: number;
}

export type CrossingState = Crossing | null;

export interface MoveInput {
  readonly action: CustomsAction;
  readonly reason?: string | null;
  readonly customs_reference?: string | null;
  readonly evidence?: string | null;
  /** Duties: a decimal amount (`"125.50"`) in `currency`. */
  readonly amount?: string | number | null;
  readonly currency?: string | null;
  readonly payer?: string | null;
  readonly by: string;
  /** The delivery under way this move follows: the run voided it (delivery.ts). */
  readonly voiding?: string | null;
  /** Operations' scans under way this move follows: the shipment refuses them (delivery.ts). */
  readonly voiding_scans?: readonly string[] | null;
}

export interface DocumentInput {
  readonly name: string;
  readonly reference?: string | null;
}

export type CrossingCommand =
  | { kind: "open"; crossing: CrossingOpening; by: string }
  | { kind: "supply"; documents: readonly DocumentInput[]; note?: string | null; by: string }
  | { kind: "move"; move: MoveInput }
  | { kind: "vehicle_left"; by: string }
  | { kind: "record_crossing"; side: "exit" | "entry"; by: string }
  | { kind: "present"; at_stop: StopPresentation }
  /** The border stop went on without the shipment it presented: its presentation is withdrawn. */
  | { kind: "withdraw_presentation"; run_id: string; stop_id: string; by: string }
  /** The ledger booked these charges (by source event): they are no longer due. */
  | { kind: "confirm_charges"; source_events: readonly string[] }
  /** The client's account refused the duties this move recorded: they are taken back. */
  | { kind: "withdraw_duty"; move: CustomsMove }
  /** A run is about to record a step on the shipment: refused while customs holds it. */
  | { kind: "reserve_delivery"; delivery: DeliveryUnderWay }
  | { kind: "reserve_scan"; token: string }
  | { kind: "get" };

/** The border stop a crossing opened at booking is presented at, with the post it names. */
export interface StopPresentation {
  readonly run_id: string;
  readonly stop_id: string;
  readonly border_post: string;
  /** The border the stop crosses (a shipment may transit a third country on its way). */
  readonly country: string;
  readonly to_country: string;
  readonly by: string;
}

export type CrossingEvent =
  | { kind: "crossing_opened"; crossing: Crossing }
  | {
    kind: "documents_supplied";
    supply: Supply;
    documents: readonly SuppliedDocument[];
    /**
     * The status the supply left: presented when the papers customs asked for came, else as it
     * was. Absent on supplies recorded before it was kept (then held or documents_requested went
     * back to presented, as the rule of then: evolve.ts).
     */
    status?: CrossingStatus;
  }
  | { kind: "moved"; move: CustomsMove; status: CrossingStatus; duty: Duty | null }
  | { kind: "vehicle_left"; at: number; by: string }
  | { kind: "crossed"; side: "exit" | "entry"; at: number; by: string }
  | { kind: "presented_at_stop"; at_stop: StopPresentation; at: number }
  /** Bound to no stop again, at the post and border it had before (`border`). */
  | {
    kind: "presentation_withdrawn";
    run_id: string;
    stop_id: string;
    border: BorderOf;
    at: number;
    by: string;
  }
  /** A later charge is due on the client's account: caused by a move, or still due later. */
  | { kind: "charge_due"; charge: CrossingChargeDue }
  | { kind: "charges_confirmed"; source_events: readonly string[]; at: number }
  | { kind: "duty_withdrawn"; move: number; at: number }
  | { kind: "delivery_reserved"; delivery: DeliveryUnderWay }
  | { kind: "delivery_voided"; token: string }
  /** `dropped`: the oldest reservations, past SCANS_UNDER_WAY_MAX (a crashed scan's). */
  | { kind: "scan_reserved"; token: string; dropped: readonly string[] }
  | { kind: "scans_voided"; tokens: readonly string[] };

/** Every reply names the crossing; moves and supplies also say which one and whether it was new. */
export type CrossingReply =
  | { readonly kind: "crossing"; readonly crossing: Crossing; readonly created: boolean }
  | {
    readonly kind: "moved";
    readonly crossing: Crossing;
    readonly move: CustomsMove;
    readonly replayed: boolean;
  }
  | {
    readonly kind: "supplied";
    readonly crossing: Crossing;
    readonly supply: Supply;
    readonly replayed: boolean;
  };

/** What a decision of the crossing answers: its events, or a refusal. */
export type Decided = Decision<CrossingState, CrossingEvent, CrossingReply>;

/**
 * The laboratory sample's state, commands, events and replies (courier 2.10, 3.4): its profile,
 * ticks, seal, readings, blocks and the laboratory's decisions.
 */
import type { Decision } from "../../../src/runtime/actor.ts";
import type { DueCharge } from "../../../src/courier/rules/charges_due.ts";

export const LAB_BLOCK_REASONS = [
  "late_sample",
  "temperature_out_of_range",
  "seal_broken",
] as const;
export type LabBlockReason = typeof LAB_BLOCK_REASONS[number];
/** The handover reason once the laboratory rejected the sample. */
export const REJECTED_BY_LABORATORY = "rejected_by_laboratory";
export const TEMPERATURE_FIELDS = ["value", "unit", "source", "device", "time"] as const;

export const TEMPERATURE_UNITS = ["C", "F"] as const;
export type TemperatureUnit = typeof TEMPERATURE_UNITS[number];
export const SEAL_STATUSES = ["unknown", "intact", "broken"] as const;
export type SealStatus = typeof SEAL_STATUSES[number];
export const LAB_DECISION_KINDS = ["accept", "reject"] as const;
export type LabDecisionKind = typeof LAB_DECISION_KINDS[number];

export interface LabChecklistRef {
  readonly code: string;
  readonly version: number;
  readonly items: readonly { readonly key: string; readonly required: boolean }[];
}

/** What a profile command carries; the bounds in °C exactly as sent. */
export interface LabProfileInput {
  readonly sample_type: string;
  readonly laboratory: string | null;
  readonly min_temp_c: number | null;
  readonly max_temp_c: number | null;
  readonly deadline_at: number | null;
  readonly seal_id: string | null;
  readonly checklist: LabChecklistRef | null;
}

export interface LabProfile {
  readonly sample_type: string;
  readonly laboratory: string | null;
  readonly min_tenths: number | null;
  readonly max_tenths: number | null;
  /** When the laboratory must have the sample (epoch ms), or null. */
  readonly deadline_at: number | null;
  readonly seal_id: string | null;
  readonly checklist: LabChecklistRef | null;
}

export interface LabReading {
  readonly seq: number;
  readonly value: number;
  readonly unit: TemperatureUnit;
  readonly source: string;
  readonly device: string;
  /** When it was measured (epoch ms). */
  readonly time: number;
  readonly celsius_tenths: number;
  /** Null when the profile sets no range. */
  readonly in_range: boolean | null;
  readonly recorded_at: number;
  readonly by: string;
}

export interface LabTick {
  readonly item: string;
  readonly ok: boolean;
  readonly note: string | null;
  readonly seal_id: string | null;
  readonly by: string;
  readonly at: number;
}

export interface LabBlock {
  readonly reason: LabBlockReason;
  readonly opened_at: number;
  readonly last_at: number;
  readonly occurrences: number;
  /** The latest occurrence, in words. */
  readonly detail: string;
}

export interface LabDecision {
  readonly decision: LabDecisionKind;
  readonly note: string;
  /** Who at the laboratory decided, when given. */
  readonly decided_by: string | null;
  /** Who recorded it (a principal with runs:override). */
  readonly recorded_by: string;
  readonly at: number;
  /** The blocks this decision settled. */
  readonly settled: readonly LabBlockReason[];
}

export interface LabSample {
  readonly waybill: string;
  readonly courier_id: string;
  readonly profile: LabProfile;
  readonly cold_chain: boolean;
  readonly profiled_at: number;
  readonly profiled_by: string;
  readonly seal: SealStatus;
  /** The latest tick of each item, in first-ticked order. */
  readonly ticks: readonly LabTick[];
  readonly ticks_total: number;
  /** The latest readings, oldest first, at most LAB_READINGS_IN_STATE_MAX. */
  readonly readings: readonly LabReading[];
  /** Distinct readings kept: a reading sent again is not counted again. */
  readonly readings_total: number;
  /**
   * The digest of every reading kept (digests.ts), oldest first, at most LAB_READINGS_MAX: the
   * same reading sent again however long after is known by it and kept once (courier 2.10).
   */
  readonly reading_digests: readonly string[];
  readonly out_of_range_total: number;
  readonly lowest_tenths: number | null;
  readonly highest_tenths: number | null;
  /** Open blocks, at most one per reason. */
  readonly blocks: readonly LabBlock[];
  /** Lateness is recorded once, whether or not it was later accepted. */
  readonly late_recorded: boolean;
  readonly decisions: readonly LabDecision[];
  readonly decisions_total: number;
  readonly rejected: boolean;
  /**
   * When a run handed the sample to the laboratory (its deliver stop); absent before it was, and
   * on samples kept before this was recorded. Lateness is judged up to it, never after.
   */
  readonly handed_over_at?: number;
  /** Runs' deliveries under way that the handover check allowed (handover.ts). Internal. */
  readonly deliveries_under_way?: readonly LabDelivery[];
  /**
   * The cold-chain charge while the ledger has not confirmed it booked (courier 2.6 rules 2, 3):
   * booked by src/courier/reactors/lab_charges.ts. Internal; absent on samples kept before.
   */
  readonly charges_due?: readonly LabChargeDue[];
}

/** The cold-chain charge kept due until the ledger booked it (src/courier/rules/charges_due.ts). */
export interface LabChargeDue extends DueCharge {
  /** Who set the profile that made the sample cold chain. */
  readonly by: string;
}

/** A run's delivery under way: the run's gate for it (network_run customs_gate.ts), its run. */
export interface LabDelivery {
  readonly token: string;
  readonly run_id: string;
  readonly waybill: string;
}

export type LabSampleState = LabSample | null;

/** A reading as sent: each field may be missing (refused with temperature_fields_required). */
export interface ReadingInput {
  readonly value: number | null;
  readonly unit: TemperatureUnit | null;
  readonly source: string | null;
  readonly device: string | null;
  readonly time: number | null;
}

export type LabSampleCommand =
  | {
    readonly kind: "profile";
    readonly waybill: string;
    readonly courier_id: string;
    readonly profile: LabProfileInput;
    readonly by: string;
    /** The shipment's status when it is closed (delivered, returned, cancelled): none is set. */
    readonly closed?: string;
    /**
     * Until when the cold slots reserved for this profile hold (epoch ms): a profile making the
     * sample cold is refused `cold_reservation_lapsed` from then on (flows/runs/cold_slots.ts).
     */
    readonly reserved_until?: number;
  }
  | {
    readonly kind: "tick";
    readonly item: string;
    readonly ok: boolean;
    readonly note: string | null;
    readonly seal_id: string | null;
    readonly by: string;
    /** Deliveries under way their runs voided: a block meeting them passes (handover.ts). */
    readonly voiding?: readonly string[];
  }
  | {
    readonly kind: "temperature";
    readonly reading: ReadingInput;
    readonly by: string;
    readonly voiding?: readonly string[];
  }
  | {
    readonly kind: "approve";
    readonly decision: LabDecisionKind;
    readonly note: string;
    readonly decided_by: string | null;
    readonly by: string;
    readonly voiding?: readonly string[];
  }
  /** Whether a handover may happen now; `delivery`: the run's delivery it is checked for. */
  | { readonly kind: "handover_check"; readonly delivery?: LabDelivery }
  /** The run's deliver stop handed the sample over at `at` (sent again on its retries). */
  | { readonly kind: "handed_over"; readonly at: number }
  /** The ledger booked these charges (by source event): they are no longer due. */
  | { readonly kind: "confirm_charges"; readonly source_events: readonly string[] }
  | { readonly kind: "get" };

export type LabSampleEvent =
  | {
    readonly kind: "profiled";
    readonly waybill: string;
    readonly courier_id: string;
    readonly profile: LabProfile;
    readonly by: string;
    readonly at: number;
  }
  | { readonly kind: "ticked"; readonly tick: LabTick; readonly seal: SealStatus | null }
  | { readonly kind: "reading_recorded"; readonly reading: LabReading }
  | {
    readonly kind: "blocked";
    readonly reason: LabBlockReason;
    readonly detail: string;
    readonly at: number;
  }
  | { readonly kind: "decided"; readonly decision: LabDecision }
  | { readonly kind: "handed_over"; readonly at: number }
  | { readonly kind: "handover_reserved"; readonly delivery: LabDelivery }
  | { readonly kind: "charge_due"; readonly charge: LabChargeDue }
  | { readonly kind: "charges_confirmed"; readonly source_events: readonly string[] }
  /** Deliveries under way ended: voided by their runs as a block was recorded. */
  | { readonly kind: "handovers_ended"; readonly tokens: readonly string[] };

/** Whether a laboratory handover may happen now, and every reason it may not. */
export interface HandoverVerdict {
  readonly allowed: boolean;
  readonly reasons: readonly string[];
  /** Required checklist items not ticked ok (information; the checklist's supplier decides). */
  readonly missing_items: readonly string[];
}

export type LabSampleReply = LabSample | HandoverVerdict;

/** What a decision of the sample answers: its events, or a refusal. */
export type Decided = Decision<LabSampleState, LabSampleEvent, LabSampleReply>;

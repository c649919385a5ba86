/**
 * A network run's state (courier 2.10, 3.4): its stops, the items it carries and what it counts
 * of them against its capacities, and the pure reads of them every decision shares.
 */

/**
 * A run holds its stops and items (each stop and its item take some 400 bytes), so its state
 * outgrows one store value: the runtime splits it (stateBytesMax). Past RUN_STATE_BUDGET a change
 * is refused (`run_full`), never written half. Items are bounded too: while a driver is assigned
 * each item is one index entry, and one commit writes at most GROUP_COMMIT_MUTATIONS_MAX.
 */
export const STOPS_MAX = 500;
export const ITEMS_MAX = 800;
export const RUN_STATE_BUDGET = 360_000;
export const RUN_STATE_BYTES_MAX = 400_000;
/**
 * How long a change's follow-ups wait for the request that made it to say they are done before
 * they are due again (the request does them within moments, so one still due has met a crash or
 * a failure), and then between tries: long enough that a request under way is not raced, short
 * enough that a shipment's custody waits minutes; one failing for hours costs a try every few
 * minutes (as SCAN_CHARGE_RETRY_MS).
 */
export const RUN_FOLLOW_UP_RETRY_MS = 5 * 60_000;
/** The run's timer that makes what is still due due again. */
export const FOLLOW_UPS_TIMER = "follow_ups";
/**
 * How long a shipment may stay on board after its run arrived before leg_trip_ended is raised for
 * it (courier 2.9; the spec names no time): the unload, delivery or report follows the arrival
 * within a facility's turn, so one still on board 2 hours later was forgotten.
 */
export const TRIP_ENDED_GRACE_MS = 2 * 60 * 60_000;
/** The run's timer that, the grace after its arrival, looks for shipments still on board. */
export const TRIP_ENDED_TIMER = "trip_ended";
/** Actions kept in state; the event log keeps every one. */
export const RUN_HISTORY_MAX = 20;
export const RUN_TEXT_CHARS_MAX = 500;
/**
 * Claims let go kept per run: one is only needed while the request that made it may still be
 * under way (moments), and each run lets go of few.
 */
export const RELEASED_CLAIMS_MAX = 100;
/**
 * Voided steps kept per run: one is only needed while the request that reserved it may still be
 * under way; a closed shipment refuses every reservation after that.
 */
export const VOIDED_STEPS_MAX = 100;

/** Capacity and load in exact integer units: grams, cubic centimetres, pieces, cold slots. */
export interface Load {
  readonly grams: number;
  readonly cm3: number;
  readonly pieces: number;
  readonly cold_slots: number;
}

export const NO_LOAD: Load = { grams: 0, cm3: 0, pieces: 0, cold_slots: 0 };

/** An explicit end state of an item on a run (courier 3.4 close rule). */
export const END_STATES = [
  "delivered",
  "lab_handover",
  "customs_hold",
  "returned",
  "transferred",
  "missing",
  "damaged",
] as const;
export type EndState = typeof END_STATES[number];
export const ITEM_STATES = ["planned", "on_board", "unloaded", ...END_STATES] as const;
export type ItemState = typeof ITEM_STATES[number];

export interface RunItem {
  readonly waybill: string;
  readonly state: ItemState;
  readonly load: Load;
  /** missing or damaged need the exception that explains them. */
  readonly exception: string | null;
  readonly stop_id: string | null;
  /** transferred: the run that carries it on (courier 3.4). */
  readonly to_run?: string;
  /**
   * transferred: the transfer's key (transfer_follow_ups.ts transferKey), which names its step on the
   * shipment (shipment_gate.ts). Internal; absent on items transferred before it was kept.
   */
  readonly transfer_key?: string;
  /**
   * The run's departure it left with (the run's departed_at): absent on one that came on board
   * after it (its own move took it: a stop added, a collection, a transfer in), or kept before.
   */
  readonly departed_at?: number;
}

export interface WorkOrder {
  readonly sender: string;
  readonly recipient: string;
  readonly courier_client_id: string;
  readonly reserved: Load;
}

export const STOP_KINDS = ["deliver", "collect", "checkpoint"] as const;
export type StopKind = typeof STOP_KINDS[number];
export const STOP_STATUSES = [
  "pending",
  "done",
  "failed",
  "presented",
  "cleared",
  "refused",
] as const;
export type StopStatus = typeof STOP_STATUSES[number];

export interface Stop {
  readonly id: string;
  readonly kind: StopKind;
  readonly waybill: string | null;
  readonly work_order: WorkOrder | null;
  readonly country: string | null;
  readonly to_country: string | null;
  readonly border_post: string | null;
  readonly status: StopStatus;
  /** collect: what was collected, each piece labelled. */
  readonly collected: readonly Collected[];
  readonly exit_at: number | null;
  readonly entry_at: number | null;
  readonly crossings: readonly string[];
  /**
   * The shipment whose client the stop's wait was charged to (courier 6.1 `run.waiting:{stop}`,
   * one per stop): a checkpoint carries several clients' shipments, and naming another one must
   * not charge a second client. Absent on stops kept before it was.
   */
  readonly waiting_waybill?: string | null;
  /**
   * collect: the shipment whose client the stop's errand was charged to (courier 6.1
   * `run.collected:{stop}`, one per stop), the stop's first collection. Internal. Absent on a
   * stop that collected before it was kept: those collections were each charged an errand then
   * (`run.collected:{stop}:{waybill}`), and the stop books no errand more.
   */
  readonly errand_waybill?: string;
}

/** One shipment a collect stop collected, each piece labelled (courier 2.10). */
export interface Collected {
  readonly waybill: string;
  readonly labels: readonly string[];
  readonly load: Load;
}

export const RUN_STATUSES = ["planned", "departed", "arrived", "unloaded", "closed"] as const;
export type RunStatus = typeof RUN_STATUSES[number];

/** One action recorded on the run, the newest last. */
export interface HistoryEntry {
  readonly action: string;
  readonly by: string;
  readonly at: number;
  readonly detail: string | null;
}

export interface Expense {
  readonly key: string;
  readonly amount_minor: number;
  readonly currency: string;
  readonly receipt: string;
  readonly note: string | null;
  readonly by: string;
  readonly at: number;
}

export interface NetworkRun {
  readonly id: string;
  readonly courier_id: string;
  readonly facility_id: string;
  readonly kind: string;
  readonly countries: readonly string[];
  /** Its capacities (courier 2.10: kg, m3, pieces, cold slots), in exact units. */
  readonly capacity: Load;
  readonly vehicle: string | null;
  readonly driver_id: string | null;
  readonly status: RunStatus;
  readonly stops: readonly Stop[];
  readonly items: readonly RunItem[];
  readonly expenses: readonly Expense[];
  readonly history: readonly HistoryEntry[];
  readonly created_at: number;
  readonly closed_at: number | null;
  /**
   * When the run departed: its departure's identity, kept for good (the history keeps the
   * latest RUN_HISTORY_MAX actions only), so a departure sent again finds the one recorded.
   * null until it departs; absent on runs kept before it was (their history is read instead).
   */
  readonly departed_at?: number | null;
  /**
   * How many times the run, with stops, was left without a driver (courier 2.9 leg_unassigned:
   * each time is one condition, raised once), counting the one it is in. Internal; absent on
   * runs kept before it was.
   */
  readonly unassigned_times?: number;
  /**
   * The shipments a laboratory profile made cold chain after they boarded, or while they were
   * boarding (src/courier/flows/runs/cold_slots.ts): each of their pieces takes a cold slot
   * here, whenever it comes on board. Internal; absent on runs kept before it was.
   */
  readonly cold_chain_waybills?: readonly string[];
  /**
   * The latest cold-chain tell taken about each shipment, by its order (commands.ts
   * `cold_chain` seq): a stale one (a release overtaken by a reservation made since) changes
   * nothing. Internal; absent on runs kept before it was.
   */
  readonly cold_chain_told?: readonly ColdTold[];
  /**
   * The changes whose follow-ups (events.ts `follow_ups_due`) are not yet known done, by batch.
   * Internal; absent on runs kept before it was.
   */
  readonly follow_ups_due?: readonly string[];
  /**
   * The claims on shipments (planning.ts) this run let go to another run, the newest
   * RELEASED_CLAIMS_MAX: a deliver stop still under way with one is refused. Internal; absent on
   * runs kept before it was.
   */
  readonly released_claims?: readonly string[];
  /**
   * Per waybill, how many of the steps under way on it (delivery, attempt, transfer) customs
   * voided: one recorded under an earlier gate is refused (customs_gate.ts). Internal; absent on
   * runs kept before it was.
   */
  readonly delivery_voids?: Readonly<Record<string, number>>;
  /**
   * Per waybill, why its last step under way was voided when it was not customs (the laboratory
   * handover blocked, customs letting go of it): the refusal a step recorded under an earlier
   * gate gets. Internal.
   */
  readonly delivery_void_codes?: Readonly<
    Record<string, "held_by_customs" | "lab_handover_blocked" | "released_by_customs">
  >;
  /**
   * The steps on shipments (their keys) operations voided by closing the shipment while they were
   * under way, the newest VOIDED_STEPS_MAX: one recorded after is refused (shipment_gate.ts).
   * Internal; absent on runs kept before it was.
   */
  readonly voided_steps?: readonly string[];
}

export type NetworkRunState = NetworkRun | null;

export type NewRun = Omit<
  NetworkRun,
  | "status"
  | "stops"
  | "items"
  | "expenses"
  | "history"
  | "created_at"
  | "closed_at"
  | "departed_at"
  | "unassigned_times"
  | "cold_chain_waybills"
  | "cold_chain_told"
  | "follow_ups_due"
  | "released_claims"
  | "delivery_voids"
  | "delivery_void_codes"
  | "voided_steps"
>;

export type NewStop = Omit<Stop, "status" | "collected" | "exit_at" | "entry_at" | "crossings"> & {
  /** deliver: the shipment's load, counted against capacity. */
  readonly load: Load;
};

export function addLoad(a: Load, b: Load): Load {
  return {
    grams: a.grams + b.grams,
    cm3: a.cm3 + b.cm3,
    pieces: a.pieces + b.pieces,
    cold_slots: a.cold_slots + b.cold_slots,
  };
}

/** The first capacity a load exceeds, or null (courier 4.5: never exceeded silently). */
export function overCapacity(load: Load, capacity: Load): keyof Load | null {
  for (const k of ["grams", "cm3", "pieces", "cold_slots"] as const) {
    if (load[k] > capacity[k]) return k;
  }
  return null;
}

/** Whether an item counts against capacity: planned or on board, not yet ended. */
export function isCarried(i: RunItem): boolean {
  return i.state === "planned" || i.state === "on_board";
}

/** The load the run carries or has planned (items not yet ended). */
export function loadOf(run: NetworkRun): Load {
  return run.items.filter(isCarried).reduce((sum, i) => addLoad(sum, i.load), NO_LOAD);
}

/** Whether an item has its explicit end state (courier 3.4). */
export function isEnded(i: RunItem): boolean {
  return (END_STATES as readonly string[]).includes(i.state);
}

/**
 * Whether the run has the shipment open, so it keeps its claim on it (courier 3.4: one run carries
 * a shipment out at a time): an item without its end state, except one unloaded at a depot that
 * no deliver stop here is for (collected or carried in, handed over there: a trunk's work is done,
 * another run plans its delivery).
 */
export function holdsOpen(run: NetworkRun, waybill: string): boolean {
  const delivers = run.stops.some((s) => s.kind === "deliver" && s.waybill === waybill);
  return run.items.some((i) =>
    i.waybill === waybill && !isEnded(i) && (i.state !== "unloaded" || delivers)
  );
}

/** Whether the run waits for a driver: it has stops and none is assigned (courier 2.9). */
export function isUnassigned(run: NetworkRun): boolean {
  return run.driver_id === null && run.stops.length > 0 && run.status !== "closed";
}

/** A cold-chain tell about one shipment, by its order. */
export interface ColdTold {
  readonly waybill: string;
  readonly seq: number;
}

/** The order of the latest cold-chain tell the run took about `waybill`, if any. */
export function toldSeq(run: NetworkRun, waybill: string): number | undefined {
  return (run.cold_chain_told ?? []).find((t) => t.waybill === waybill)?.seq;
}

/** The run's latest tells with `told` in place of the one before about its shipment. */
export function withTold(run: NetworkRun, told: ColdTold): readonly ColdTold[] {
  return [...(run.cold_chain_told ?? []).filter((t) => t.waybill !== told.waybill), told];
}

/** A load as a run counts it: a cold-chain shipment takes a cold slot per piece (courier 2.10). */
export function withColdSlots(load: Load, cold: boolean): Load {
  return cold ? { ...load, cold_slots: load.pieces } : load;
}

/** A shipment's load as the run counts it: one it was told is cold chain takes its cold slots. */
export function coldLoad(run: NetworkRun, waybill: string | null, load: Load): Load {
  return withColdSlots(load, waybill !== null && (run.cold_chain_waybills ?? []).includes(waybill));
}

/** Another item of the same waybill on the run still open (it came back after it ended). */
export function openTwin(run: NetworkRun, i: RunItem): boolean {
  return run.items.some((x) => x !== i && x.waybill === i.waybill && !isEnded(x));
}

/** Capacity still reserved by collect stops not yet worked. */
export function reservedOpen(run: NetworkRun): Load {
  return run.stops
    .filter((s) => s.kind === "collect" && s.status === "pending" && s.work_order)
    .reduce((sum, s) => addLoad(sum, s.work_order!.reserved), NO_LOAD);
}

/** The positions of the run's items `pick` chooses, in order. */
export function itemsWhere(run: NetworkRun, pick: (i: RunItem) => boolean): number[] {
  return run.items.flatMap((i, n) => pick(i) ? [n] : []);
}

/** The state of an item coming on board: planned before the run departs, else on board. */
export function boardingState(run: NetworkRun): "planned" | "on_board" {
  return run.status === "planned" ? "planned" : "on_board";
}

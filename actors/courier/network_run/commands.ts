/**
 * What a network run is asked (courier 4.5) and what it answers. A change carries the facts of
 * the request the steps after it need (who received a delivery, the facility an unload reaches,
 * the minutes of a wait): the run records those steps with the change (follow_ups.ts).
 */
import type { ScanEvent } from "../../../src/courier/rules/lifecycle.ts";
import type { Load, NetworkRun, NewRun, NewStop, RunStatus } from "./run.ts";
import type { StopAnswer } from "./summary.ts";

/** A fee of a client's rate card as it stood when the fact happened, in minor units. */
export interface ClientFee {
  readonly amount_minor: number;
  readonly currency: string;
}

/** What the run a transfer goes to tells of the items it took: who holds them, how they left. */
export interface TransferTarget {
  /** The holder custody names on the target (its driver, else its vehicle). */
  readonly holder: string;
  /**
   * The items the target took already under way, each with its departure event there (courier
   * 3.2), its holder then and the key of that move (one per boarding of the target).
   */
  readonly boarded: readonly {
    readonly waybill: string;
    readonly key: string;
    readonly event: ScanEvent;
    readonly holder: string;
  }[];
}

export type RunCommand =
  | { kind: "create"; run: NewRun; by: string }
  | {
    kind: "add_stop";
    stop: NewStop;
    /**
     * A deliver stop's claim on its shipment (src/courier/flows/runs/planning.ts): refused when
     * this run let that claim go (another run planned the shipment since).
     */
    claim?: string | null;
    by: string;
  }
  | { kind: "assign_driver"; driver_id: string | null; by: string }
  | { kind: "depart"; by: string }
  | { kind: "arrive"; by: string }
  | {
    kind: "unload";
    waybills: readonly string[] | null;
    /** Where what is unloaded is received; absent or null: the run's facility. */
    facility_id?: string | null;
    by: string;
  }
  | { kind: "reorder"; order: readonly string[]; by: string }
  | {
    kind: "transfer";
    waybills: readonly string[];
    to_run: string;
    to: TransferTarget;
    /** Per waybill, the crossings' reservation it records under (customs_gate.ts). */
    gates?: Readonly<Record<string, string>> | null;
    by: string;
  }
  /** The items another run transfers to this one: it carries them on (courier 3.4). */
  | {
    kind: "transfer_in";
    from_run: string;
    items: readonly { waybill: string; load: Load }[];
    /** The gates the run sending them records the transfer under (customs_gate.ts). */
    gates?: Readonly<Record<string, string>> | null;
    /**
     * Per waybill, the claim that passed to this run with the transfer (src/courier/flows/runs/
     * planning.ts passClaim): refused when this run let it go (another run plans it since).
     */
    claims?: Readonly<Record<string, string>> | null;
    by: string;
  }
  /**
   * The items a transfer_in took back off this run, when the run sending them refused (one ended
   * there meanwhile): only those still riding without a stop, open or ended by the shipment's
   * close meanwhile (item_closed).
   */
  | { kind: "transfer_in_undo"; from_run: string; waybills: readonly string[]; by: string }
  | {
    kind: "report";
    waybill: string;
    condition: "missing" | "damaged" | "returned" | "customs_hold";
    note: string;
    /** A customs_hold's: the holding crossing's reservation it records under (customs_gate.ts). */
    gate?: string | null;
    by: string;
  }
  | { kind: "close"; by: string }
  /**
   * Operations closed the shipment (delivered, returned or cancelled): the run ends its item as
   * the shipment ended (courier 3.4: an item's end state is what happened; a cancelled one never
   * left its sender: returned to origin).
   */
  | {
    kind: "item_closed";
    waybill: string;
    status: "delivered" | "returned" | "cancelled";
    by: string;
  }
  /**
   * Another run plans the shipment for delivery (courier 3.4): refused while this run has it
   * open; else `claim`, the claim this run held on it, is let go for good (an add_stop still
   * under way with it is refused).
   */
  | { kind: "let_go"; waybill: string; claim: string; by: string }
  | {
    kind: "expense";
    key: string;
    amount_minor: number;
    currency: string;
    receipt: string;
    note: string | null;
    by: string;
  }
  /**
   * A laboratory profile made the shipment cold chain (or no longer): its pieces take a cold slot
   * each (courier 2.10), now and when it comes on board later; refused when that exceeds the
   * run's cold slots. `seq` orders the tells about one shipment (src/courier/flows/runs/
   * cold_slots.ts): one older than the latest the run took is stale and changes nothing.
   */
  | { kind: "cold_chain"; waybill: string; cold: boolean; by: string; seq?: number }
  | {
    kind: "stop_border";
    stop_id: string;
    crossings: readonly string[];
    /** The shipments on board the crossings were opened for (absent: sent before it was named). */
    waybills?: readonly string[];
    by: string;
  }
  | { kind: "stop_cross"; stop_id: string; side: "exit" | "entry"; by: string }
  | {
    kind: "stop_deliver";
    stop_id: string;
    lab_handover: boolean;
    /** Proof of delivery (courier 3.2): who received it, and a note. */
    received_by?: string | null;
    note?: string | null;
    /** The crossings' reservation it records under (src/courier/flows/runs/customs_gate.ts). */
    gate?: string | null;
    by: string;
  }
  | {
    kind: "stop_collect";
    stop_id: string;
    waybill: string;
    labels: readonly string[];
    load: Load;
    /** runs:override held and a reason given: collecting more than reserved is allowed. */
    override_reason: string | null;
    /**
     * The collection's claim on its shipment (src/courier/flows/runs/planning.ts): refused when
     * this run let that claim go (another run planned the shipment since). Absent: none taken.
     */
    claim?: string | null;
    by: string;
  }
  | {
    kind: "stop_fail";
    stop_id: string;
    reason: string;
    /** A failed collection's shipment, charged on its card; absent: the work order's client. */
    waybill?: string | null;
    /**
     * Without a shipment: the work order's client's failed-collection fee in force now (null:
     * none), decided before the run records the failure, so its charge books the same whenever.
     */
    fee?: ClientFee | null;
    /** A deliver stop's: the crossings' reservation it records under (customs_gate.ts). */
    gate?: string | null;
    by: string;
  }
  /**
   * Customs holds the shipment while a step on it (delivery, attempt, transfer) was under way
   * with `gate`: that step is refused from now on (courier 3.4); refused once it was recorded.
   */
  | {
    kind: "void_delivery";
    waybill: string;
    gate: string;
    by: string;
    /** Why: customs held it (absent), or the laboratory handover is blocked. */
    code?: VoidCode;
  }
  /**
   * Operations close the shipment while the step `step` (its key, shipment_gate.ts) on it was
   * under way: that step is refused from now on; refused `step_recorded` once it was recorded.
   */
  | { kind: "void_step"; waybill: string; step: string; by: string }
  | {
    kind: "stop_waiting";
    stop_id: string;
    waybill: string;
    minutes: number;
    note: string | null;
    by: string;
  }
  /**
   * A change sent under an idempotency key, with `request`: a digest of what the caller sent.
   * The reply names it, and so does the reply kept under the key: a replay of that request is
   * told from another request sent under the same key (courier 4.5; src/courier/flows/runs).
   */
  | { kind: "keyed"; request: string; change: RunChange }
  /**
   * A change a driver makes: refused `not_found`, as another driver's run is, unless the run is
   * open and assigned to `driver_id` when it is decided (courier 4.5).
   */
  | {
    kind: "as_driver";
    driver_id: string;
    change: RunChange | Extract<RunCommand, { kind: "keyed" }>;
  }
  /** The follow-ups of these changes were done (events.ts FollowUpEvent). */
  | { kind: "follow_ups_done"; batches: readonly string[] }
  | { kind: "get" };

/** Why a step under way on a shipment was voided: the refusal the step recorded after gets. */
export type VoidCode = "held_by_customs" | "lab_handover_blocked" | "released_by_customs";

/** A change to a run: what was decided, not the whole run again (a run can be large). */
export type RunChange = Exclude<
  RunCommand,
  | { kind: "create" }
  | { kind: "get" }
  | { kind: "keyed" }
  | { kind: "as_driver" }
  | { kind: "follow_ups_done" }
>;

/** A stop action: a change naming one stop. */
export type StopChange = Extract<RunChange, { stop_id: string }>;

/**
 * The reply to a change: small, since replies to idempotency-keyed commands are stored; read the
 * run with `get` (src/courier/flows/runs askRun does).
 */
export interface RunAck {
  readonly id: string;
  readonly status: RunStatus;
  /** A keyed change's request digest (absent: sent without one, or kept before it was). */
  readonly request?: string;
  /** The batch of follow-ups the change recorded, to be done (absent: none). */
  readonly follow_ups?: string;
}

/**
 * The reply to a stop action (courier 4.5: a replay after lost signal answers the first): the
 * answer goes to the first asker; what is kept under the idempotency key is `seq`, the run's
 * sequence number then (an answer can outgrow a store value), and a replay rebuilds the same
 * answer from the run's events 1..seq (src/courier/flows/runs).
 */
export interface StopAck extends RunAck {
  readonly stop_id: string;
  readonly seq: number;
  readonly answer?: StopAnswer;
}

export type RunReply = NetworkRun | RunAck | StopAck;

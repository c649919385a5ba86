/**
 * One outbound event's state, commands and events (courier 3.1 "Event delivery", 6.1, 6.2): what
 * is sent, to whom, and the record of its attempts, requeues and acknowledgement.
 */
import type { SealedSecret } from "../../../src/domain/secrets.ts";
import type { ReportedState } from "../../../src/platform/rules/export_state.ts";

export type OutboundStream =
  | "billing"
  | "client_webhook"
  | "business_webhook"
  // spec: shopping 6: a business's shopping events, to its shopping webhook URL.
  | "shopping_webhook";
export const OUTBOUND_STATUSES = ["pending", "delivered", "failed"] as const;
export type OutboundStatus = typeof OUTBOUND_STATUSES[number];

/**
 * Whose endpoint receives the event, looked up at every attempt (so a courier that sets its
 * billing endpoint later, or rotates its secret, is honoured by the retries): the courier's
 * billing endpoint or else its webhook URL, or a client's webhook (courier 6.1, 6.2), or the
 * business's own webhook URL (Business API 6: its trip and wallet events), or the business's
 * shopping webhook URL (shopping 6: signed V2 only, with the `shf_` secret held then).
 */
export type Recipient =
  | { readonly kind: "courier" }
  | { readonly kind: "client"; readonly client_id: string }
  | { readonly kind: "business" }
  | { readonly kind: "shopping" };

/** The ledger entry a billing event reports (courier 2.7, 3.1), for export and alerts. */
export interface EntryLink {
  readonly client_id: string;
  readonly reference: string;
  /** A reference is unique within its kind (courier 2.6); absent on events made before. */
  readonly kind?: string;
}

/** Courier 4.3: the furthest state reported and the first reference reported per state. */
export interface Acknowledgement {
  readonly reported_state: ReportedState;
  readonly external_references: Readonly<Partial<Record<ReportedState, string>>>;
  readonly at: number;
}

/** Who receives the event: the URL, the key id named in headers, the sealed signing secret. */
export interface OutboundTarget {
  readonly url: string;
  readonly key_id: string;
  readonly sealed_secret: SealedSecret;
}

export type AttemptOutcome =
  | {
    readonly result: "delivered";
    readonly http_status: number;
    /**
     * The built-in receiver that took the delivery instead of the network (the sandbox inbox,
     * Business API 4.4); absent for a delivery an endpoint answered.
     */
    readonly receiver?: string;
  }
  /** No endpoint is configured: nothing was sent; tried again hourly (courier 3.1). */
  | { readonly result: "no_endpoint" }
  | {
    readonly result: "failed";
    readonly http_status: number | null;
    readonly error: string | null;
  };

/** An attempt made before its event's actor existed: its id and outcome. */
export interface FirstAttempt {
  readonly attempt_id: string;
  readonly outcome: AttemptOutcome;
}

export interface AttemptRecord {
  readonly attempt_id: string;
  readonly at: number;
  readonly outcome: AttemptOutcome;
}

export interface RequeueRecord {
  readonly reason: string;
  readonly by: string;
  readonly at: number;
}

export interface OutboundEvent {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly raw_body: string;
  /** A fixed target (set at creation), or else `recipient`, looked up at each attempt. */
  readonly target?: OutboundTarget;
  readonly recipient?: Recipient;
  readonly entry?: EntryLink | null;
  /**
   * The client a billing event concerns: its entry's, or the completed shipment's (courier 4.3:
   * the outbox by client); absent on events made before it was kept.
   */
  readonly client_id?: string;
  /** The request that caused the event (X-Request-Id), for its attempts' log lines. */
  readonly request_id?: string;
  readonly status: OutboundStatus;
  readonly created_at: number;
  /** The latest attempts, oldest first, at most ATTEMPT_HISTORY_MAX. */
  readonly attempts: readonly AttemptRecord[];
  /** Attempts ever made, beyond what the bounded history shows. */
  readonly attempts_total: number;
  /** Attempts in the current round (since creation or the last requeue). */
  readonly round_attempts: number;
  /** When the first attempt of the current round was made; the schedule counts from it. */
  readonly round_started_at: number | null;
  readonly next_attempt_at: number | null;
  /** The latest requeues, at most REQUEUES_MAX. */
  readonly requeues: readonly RequeueRecord[];
  /**
   * Requeues ever made, beyond what the bounded history shows; absent on events made before it
   * was kept (then as many as the history holds).
   */
  readonly requeues_total?: number;
  /** The attempt under way and until when it holds the event (one sender among instances). */
  readonly claim?: { readonly attempt_id: string; readonly until: number } | null;
  /** When an attempt last found no endpoint configured (courier 3.1). */
  readonly endpoint_missing_at?: number | null;
  /**
   * The same, kept when a later attempt clears `endpoint_missing_at`: whether the event waited long
   * enough to have raised billing_endpoint_missing, which its delivery then resolves (courier 2.9,
   * 3.1). Absent on events stored before it was kept (then `endpoint_missing_at`, until cleared).
   */
  readonly endpoint_waited_at?: number | null;
  readonly acknowledgement?: Acknowledgement | null;
}

export type OutboundEventState = OutboundEvent | null;

export interface NewOutboundEvent {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly raw_body: string;
  readonly target?: OutboundTarget;
  readonly recipient?: Recipient;
  readonly entry?: EntryLink | null;
  readonly client_id?: string;
  readonly request_id?: string;
}

export type OutboundEventCommand =
  | {
    readonly kind: "create";
    readonly event: NewOutboundEvent;
    /**
     * The creator found no endpoint for the recipient: the first attempt is noted as finding
     * none in the creating commit (courier 3.1: it waits and is tried again hourly), instead of
     * a commit of its own a moment later.
     */
    readonly endpoint_missing?: boolean;
    /**
     * The creator already made the first attempt (an outbox's handler, issue 36 item 2): it is
     * recorded in the creating commit, which schedules the retries from it, instead of an
     * attempt due at once.
     */
    readonly first_attempt?: FirstAttempt;
  }
  | {
    readonly kind: "record_attempt";
    readonly attempt_id: string;
    readonly outcome: AttemptOutcome;
  }
  | { readonly kind: "requeue"; readonly reason: string; readonly by: string }
  /**
   * Takes the event for one attempt; refused while another attempt holds it. `first_only`: only
   * for the round's first attempt (a sender making it at once, as POST /business/webhook-test
   * does), refused `already_attempted` once another sender has made it.
   */
  | { readonly kind: "claim"; readonly attempt_id: string; readonly first_only?: boolean }
  /**
   * The attempt due at `due_at` found no endpoint, so nothing is sent and no claim is taken:
   * recorded once per due attempt, however many instances heard it.
   */
  | { readonly kind: "endpoint_missing"; readonly due_at: number }
  /**
   * The recipient has set an endpoint: an event waiting for one is due now, not at its next
   * hourly try (courier 3.1). Nothing for an event that is not waiting for an endpoint.
   */
  | { readonly kind: "endpoint_set" }
  /**
   * The hourly retry of an event waiting as a delivery-log row (no actor, so no timer of its
   * own) found an endpoint set since: an attempt is due now.
   */
  | { readonly kind: "due" }
  | {
    readonly kind: "acknowledge";
    readonly state: ReportedState;
    readonly external_reference: string | null;
    readonly by: string;
  }
  | { readonly kind: "get" };

export type OutboundEventEvent =
  | { readonly kind: "created"; readonly event: NewOutboundEvent; readonly at: number }
  | { readonly kind: "attempt_due"; readonly at: number }
  | { readonly kind: "attempt_recorded"; readonly attempt: AttemptRecord }
  | { readonly kind: "event_delivered"; readonly at: number }
  | { readonly kind: "event_failed"; readonly at: number }
  | { readonly kind: "retry_scheduled"; readonly at: number }
  | { readonly kind: "requeued"; readonly requeue: RequeueRecord }
  | {
    readonly kind: "attempt_claimed";
    readonly attempt_id: string;
    readonly until: number;
  }
  | { readonly kind: "endpoint_missing"; readonly at: number; readonly retry_at: number }
  | {
    readonly kind: "acknowledged";
    readonly state: ReportedState;
    readonly external_reference: string | null;
    readonly by: string;
    readonly at: number;
  };

export type OutboundEventReply = OutboundEvent | undefined;

/** Timer name; its firing means "an attempt is due". */
export const ATTEMPT_TIMER = "attempt";

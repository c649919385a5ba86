/**
 * A recurring delivery (Business API 2.3, 4.2): its schedule, the booking it repeats, and its next
 * occurrence on a durable timer. When the timer fires the occurrence goes to the occurrence outbox
 * in the same commit as the next one's timer; the outbox's handler books it once (a key derived
 * from the subscription and the date) and answers the outcome here. Dates only move forward, so
 * each listed day is due once whatever the clock does. Tenant: the business; id: `sub_...`.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  bookingDueAt,
  firstOccurrence,
  type Occurrence,
  OCCURRENCE_OUTBOX,
  occurrenceAfter,
  OCCURRENCES_KEPT,
  type SubscriptionSchedule,
} from "../../src/business/rules/subscription.ts";

export type SubscriptionStatus = "active" | "paused" | "cancelled";

/**
 * One due occurrence and what came of it: its trip, the booking's refusal, or its failure after
 * SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX attempts (`refusal` says why; neither is tried again).
 */
export interface OccurrenceRecord {
  readonly date: string;
  readonly pickup_at: number;
  readonly status: "booking" | "booked" | "refused" | "failed";
  readonly trip_reference: string | null;
  readonly refusal: { readonly code: string; readonly message: string } | null;
}

export interface Subscription {
  readonly id: string;
  readonly business_id: string;
  readonly segment: "parcel" | "cargo";
  readonly schedule: SubscriptionSchedule;
  /** The booking body (Business API 2.1) each occurrence sends, as the route checked it. */
  readonly delivery: Readonly<Record<string, unknown>>;
  readonly external_reference: string | null;
  /** Tells a retry of the create (same Idempotency-Key) from other details. */
  readonly fingerprint: string;
  readonly status: SubscriptionStatus;
  /** The next occurrence to fall due; null once cancelled. */
  readonly next: Occurrence | null;
  /** The last date that fell due: resuming never makes it or an earlier one due again. */
  readonly last_due: string | null;
  readonly occurrences: readonly OccurrenceRecord[];
  readonly created_at: number;
  readonly updated_at: number;
}

export type SubscriptionState = Subscription | null;

/** A due occurrence handed to the outbox's handler. */
export interface OccurrenceItem {
  readonly business_id: string;
  readonly subscription_id: string;
  readonly date: string;
  readonly pickup_at: number;
}

export type NewSubscription = Omit<
  Subscription,
  "status" | "next" | "last_due" | "occurrences" | "created_at" | "updated_at"
>;

export type SubscriptionCommand =
  | { kind: "create"; subscription: NewSubscription }
  /** A keyed retry's first read: the first subscription, or its conflict; changes nothing. */
  | { kind: "replay"; fingerprint: string }
  | { kind: "get" }
  | { kind: "pause" }
  | { kind: "resume" }
  | { kind: "cancel" }
  | { kind: "occurrence_booked"; date: string; trip_reference: string }
  | { kind: "occurrence_refused"; date: string; code: string; message: string }
  | { kind: "occurrence_failed"; date: string; code: string; message: string };

export type SubscriptionEvent =
  | { kind: "subscription_created"; subscription: Subscription }
  | { kind: "subscription_paused"; at: number }
  | { kind: "subscription_resumed"; at: number; next: Occurrence }
  | { kind: "subscription_cancelled"; at: number }
  | { kind: "occurrence_due"; occurrence: Occurrence; next: Occurrence; at: number }
  | { kind: "occurrence_booked"; date: string; trip_reference: string; at: number }
  | { kind: "occurrence_refused"; date: string; code: string; message: string; at: number }
  | { kind: "occurrence_failed"; date: string; code: string; message: string; at: number };

export interface SubscriptionReply {
  readonly subscription: Subscription;
  readonly replayed: boolean;
  /** A cancel of a subscription already cancelled: answered as done, nothing changed. */
  readonly already_cancelled?: boolean;
}

const TIMER = "occurrence";

function setTimer(o: Occurrence): TimerOp[] {
  return [{ op: "set", name: TIMER, at: bookingDueAt(o) }];
}

const replyOf = (replayed: boolean) => (s: SubscriptionState): SubscriptionReply => ({
  subscription: s!,
  replayed,
});

/** spec: business 4.2 pause, resume, cancel: which status each action leaves. */
type SubscriptionDecision = Decision<SubscriptionState, SubscriptionEvent, SubscriptionReply>;

function transition(
  s: Subscription,
  kind: "pause" | "resume" | "cancel",
  now: number,
): SubscriptionDecision {
  const refused = (why: string) =>
    reject("invalid_transition", `cannot ${kind} a subscription that is ${why}`, {
      status: s.status,
    });
  if (s.status === "cancelled") {
    // spec: business 3.1, 7: as a trip's second cancel, 200 already_cancelled (a lost answer's
    // retry is told it is done); pause and resume of a cancelled one stay refused.
    if (kind !== "cancel") return refused("cancelled");
    return accept([], (state) => ({ ...replyOf(false)(state), already_cancelled: true }));
  }
  switch (kind) {
    case "pause":
      if (s.status !== "active") return refused(s.status);
      return accept([{ kind: "subscription_paused", at: now }], replyOf(false), [
        { op: "cancel", name: TIMER },
      ]);
    case "resume": {
      if (s.status !== "paused") return refused(s.status);
      // The days of the pause are not delivered: the first pickup still ahead.
      const next = firstOccurrence(s.schedule, now, s.last_due);
      return accept(
        [{ kind: "subscription_resumed", at: now, next }],
        replyOf(false),
        setTimer(next),
      );
    }
    case "cancel":
      return accept([{ kind: "subscription_cancelled", at: now }], replyOf(false), [
        { op: "cancel", name: TIMER },
      ]);
    default:
      return unreachable(kind);
  }
}

/** spec: business appendix 2: the same key and body answers the first; another body 409. */
function retried(s: Subscription, fingerprint: string): SubscriptionDecision {
  return s.fingerprint === fingerprint
    ? accept<SubscriptionState, SubscriptionEvent, SubscriptionReply>([], replyOf(true))
    : reject(
      "reference_conflict",
      "the external_reference or Idempotency-Key was used with another body",
      {
        id: s.id,
      },
    );
}

function create(
  state: SubscriptionState,
  c: { subscription: NewSubscription },
  now: number,
): SubscriptionDecision {
  if (state !== null) return retried(state, c.subscription.fingerprint);
  const next = firstOccurrence(c.subscription.schedule, now, null);
  const subscription: Subscription = {
    ...c.subscription,
    status: "active",
    next,
    last_due: null,
    occurrences: [],
    created_at: now,
    updated_at: now,
  };
  return accept<SubscriptionState, SubscriptionEvent, SubscriptionReply>(
    [{ kind: "subscription_created", subscription }],
    replyOf(false),
    setTimer(next),
  );
}

/** An outcome for a date still being booked; a repeat (the handler ran twice) changes nothing. */
function outcome(s: Subscription, date: string, event: SubscriptionEvent): SubscriptionDecision {
  const open = s.occurrences.some((o) => o.date === date && o.status === "booking");
  return accept<SubscriptionState, SubscriptionEvent, SubscriptionReply>(
    open ? [event] : [],
    replyOf(false),
  );
}

function decideExisting(
  s: Subscription,
  command: SubscriptionCommand,
  now: number,
): SubscriptionDecision {
  switch (command.kind) {
    case "create":
      return unreachable(command as never);
    case "replay":
      return retried(s, command.fingerprint);
    case "get":
      return accept<SubscriptionState, SubscriptionEvent, SubscriptionReply>([], replyOf(false));
    case "pause":
    case "resume":
    case "cancel":
      return transition(s, command.kind, now);
    case "occurrence_booked":
      return outcome(s, command.date, { ...command, at: now });
    case "occurrence_refused":
    case "occurrence_failed":
      return outcome(s, command.date, { ...command, at: now });
    default:
      return unreachable(command);
  }
}

export const subscriptionActor: ActorDefinition<
  SubscriptionState,
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionReply
> = {
  type: "business_subscription",
  noun: "subscription",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    if (command.kind === "create") return create(state, command, ctx.now);
    if (state === null) return reject("not_found", "subscription not found");
    if (command.kind === "timer") {
      // A timer left from before a pause or a cancel finds nothing due.
      if (state.status !== "active" || state.next === null) return accept([]);
      const occurrence = state.next;
      const next = occurrenceAfter(state.schedule, occurrence.date);
      return accept([{ kind: "occurrence_due", occurrence, next, at: ctx.now }], undefined, [
        ...setTimer(next),
      ]);
    }
    return decideExisting(state, command, ctx.now);
  },
  evolve(state, event) {
    if (event.kind === "subscription_created") return event.subscription;
    if (state === null) throw new Error(`${event.kind} before subscription_created`);
    switch (event.kind) {
      case "subscription_paused":
        return { ...state, status: "paused", next: null, updated_at: event.at };
      case "subscription_resumed":
        return { ...state, status: "active", next: event.next, updated_at: event.at };
      case "subscription_cancelled":
        return { ...state, status: "cancelled", next: null, updated_at: event.at };
      case "occurrence_due": {
        const o = event.occurrence;
        const record: OccurrenceRecord = {
          date: o.date,
          pickup_at: o.at,
          status: "booking",
          trip_reference: null,
          refusal: null,
        };
        const occurrences = keptOccurrences([...state.occurrences, record]);
        return { ...state, next: event.next, last_due: o.date, occurrences, updated_at: event.at };
      }
      case "occurrence_booked":
      case "occurrence_refused":
      case "occurrence_failed":
        return {
          ...state,
          // Noted, an occurrence kept past the bound while owed is let go.
          occurrences: keptOccurrences(
            state.occurrences.map((o) => o.date !== event.date ? o : recordOf(o, event)),
          ),
          updated_at: event.at,
        };
      default:
        return unreachable(event);
    }
  },
  outbox: (e, next) => {
    if (e.kind !== "occurrence_due" || next === null) return [];
    const item: OccurrenceItem = {
      business_id: next.business_id,
      subscription_id: next.id,
      date: e.occurrence.date,
      pickup_at: e.occurrence.at,
    };
    return [{ outbox: OCCURRENCE_OUTBOX, payload: item }];
  },
  project: (s) => s,
};

/**
 * The last OCCURRENCES_KEPT occurrences, and any older one still being booked: its booking reads
 * its record (a day forgotten while owed is never delivered), and its outcome is noted on it.
 */
function keptOccurrences(all: readonly OccurrenceRecord[]): readonly OccurrenceRecord[] {
  let drop = all.length - OCCURRENCES_KEPT;
  if (drop <= 0) return all;
  return all.filter((o) => o.status === "booking" || drop-- <= 0);
}

function recordOf(
  o: OccurrenceRecord,
  e: Extract<
    SubscriptionEvent,
    { kind: "occurrence_booked" | "occurrence_refused" | "occurrence_failed" }
  >,
): OccurrenceRecord {
  if (e.kind === "occurrence_booked") {
    return { ...o, status: "booked", trip_reference: e.trip_reference };
  }
  const status = e.kind === "occurrence_refused" ? "refused" : "failed";
  return { ...o, status, refusal: { code: e.code, message: e.message } };
}

/**
 * A Business API batch (2.3, 4.2): up to 50 stops for one driver and one vehicle, each stop a trip
 * of its own. Keyed by the batch's id, derived from its external_reference or batch_reference, so
 * the actor is also the reference's claim: the first body owns it, the same body replays the
 * batch, another body is refused; a claim whose money the wallet refused is released, so the
 * reference stays free (spec: business 7 insufficient_balance). The stops' trips are booked after
 * the claim under keys derived from the batch (the flow), so a retry after a crash between two
 * stops books only what is missing; a claim its request has not booked in time is handed to the
 * sweep (BATCH_STALL_TIMER, BATCH_STALLED_OUTBOX), which books it as the request would.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  type OutboxAdd,
  reject,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { VehicleFields } from "../../src/business/rules/vehicle.ts";
import type { BodyType, CapacityClass } from "../../src/business/rules/catalogue.ts";
import {
  BATCH_BOOKING_STALL_MS,
  BATCH_STALL_TIMER,
  BATCH_STALLED_OUTBOX,
  type StopSize,
} from "../../src/business/rules/batch.ts";
import type { Place } from "./trip/mod.ts";

/** One stop as the batch decided it: its trip, its place in the driving order, its price. */
export interface BatchStop {
  /** The stop's index in the request (`stops[index]`). */
  readonly index: number;
  /** 1 for the first stop the driver calls at. */
  readonly position: number;
  readonly trip_reference: string;
  readonly recipient_name: string | null;
  readonly recipient_phone: string | null;
  readonly pickup: Place;
  readonly dest: Place;
  readonly size: StopSize;
  readonly parcel_size: string;
  readonly weight_kg: number | null;
  readonly billing_amount_minor: number;
}

/**
 * What the request's stops need beyond the stops themselves, kept so the sweep books them as the
 * request would (spec: business 2.3 top-level cargo fields; who booked, as the trail names it).
 */
export interface BatchFinish {
  readonly cargo_body_type: BodyType | null;
  readonly cargo_capacity_class: CapacityClass | null;
  readonly by: string;
}

/**
 * spec: business 2.3: the business's reference of a batch: its external_reference, else its
 * batch_reference (null: neither given).
 */
export function batchReferenceOf(
  b: { readonly external_reference: string | null; readonly batch_reference: string | null },
): string | null {
  return b.external_reference ?? b.batch_reference;
}

/** What the batch's claim decided: everything but the trips' creation. */
export interface BatchDraft {
  readonly id: string;
  readonly business_id: string;
  readonly segment: "parcel" | "cargo";
  readonly external_reference: string | null;
  readonly batch_reference: string | null;
  /** spec: business 4.2: one vehicle, fitted to the largest stop. */
  readonly vehicle: VehicleFields;
  readonly billing_currency: string;
  readonly billing_amount_minor: number;
  /** In the driving order. */
  readonly stops: readonly BatchStop[];
  /** What the sweep books the stops with; absent on batches stored before (never swept). */
  readonly finish?: BatchFinish;
  /**
   * The id of the record of each stop's price as the batch answered it (batch_prices.ts), which
   * its stops are booked and billed at; absent on batches stored before: priced at booking.
   */
  readonly prices?: string;
}

export interface Batch extends BatchDraft {
  /**
   * This claim of the batch's reference, unique (two claims can share a `created_at`): the
   * attempt its wallet hold belongs to (spec: business 4.2). Absent on claims made before.
   */
  readonly claim_id?: string;
  readonly created_at: number;
  /** When every stop's trip was booked; null while a stop is still being booked. */
  readonly booked_at: number | null;
}

export type BatchState =
  | { readonly phase: "free" }
  | {
    readonly phase: "claimed";
    readonly batch: Batch;
    readonly fingerprint: string;
    /** A hold for the claim was placed: the claim can no longer be released. */
    readonly funded?: boolean;
    /** The sweep could not book the claim (its refusal): it looks no more; a retry still may. */
    readonly sweep_refused?: {
      readonly at: number;
      readonly code: string;
      readonly message: string;
    };
  };

/** A claim its request has not booked in time, handed to the sweep (BATCH_STALLED_OUTBOX). */
export interface BatchStalledItem {
  readonly business_id: string;
  readonly id: string;
  /** The claim's body, as its stops' bodies name it. */
  readonly fingerprint: string;
  readonly created_at: number;
  readonly claim_id?: string | undefined;
}

/** The claim a sweep acts on, as `fund` and `release` name it. */
type ClaimNamed = { fingerprint: string; created_at: number; claim_id?: string | undefined };

export type BatchCommand =
  | { kind: "claim"; draft: BatchDraft; fingerprint: string }
  | { kind: "booked" }
  /** The claim `claim_id` (`created_at`) made, freed while no stop is booked (money refused). */
  | { kind: "release"; fingerprint: string; created_at: number; claim_id?: string | undefined }
  /** The hold for the claim `claim_id` (`created_at`) is placed: its stops may be booked. */
  | { kind: "fund"; fingerprint: string; created_at: number; claim_id?: string | undefined }
  /** The sweep could not book the claim named: it stops looking (spec: business 4.2, 7). */
  | ({ kind: "sweep_refused"; code: string; message: string } & ClaimNamed)
  | { kind: "get" };

export type BatchEvent =
  | { kind: "batch_claimed"; batch: Batch; fingerprint: string }
  | { kind: "batch_booked"; at: number }
  | { kind: "batch_released"; at: number }
  | { kind: "batch_funded"; at: number }
  | { kind: "batch_booking_stalled"; at: number }
  | { kind: "batch_sweep_refused"; at: number; code: string; message: string };

export interface BatchReply {
  readonly batch: Batch;
  /** The claim was made before this command: the same body again. */
  readonly replayed: boolean;
}

type D = Decision<BatchState, BatchEvent, BatchReply>;

const missing = () => reject("not_found", "batch not found");

/** The batch as the state after a command holds it. */
function replyOf(replayed: boolean) {
  return (s: BatchState): BatchReply => {
    if (s.phase === "free") throw new Error("a batch reply needs a claimed batch");
    return { batch: s.batch, replayed };
  };
}

function claim(s: BatchState, c: Extract<BatchCommand, { kind: "claim" }>, ctx: Ctx): D {
  if (s.phase === "free") {
    const batch: Batch = {
      ...c.draft,
      claim_id: ctx.newId("bcl"),
      created_at: ctx.now,
      booked_at: null,
    };
    // A crash between two steps leaves state that a retry or a sweep completes: the sweep looks
    // at a claim still unbooked after the bound (spec: business 4.2, product rule).
    return accept(
      [{ kind: "batch_claimed", batch, fingerprint: c.fingerprint }],
      replyOf(false),
      [{ op: "set", name: BATCH_STALL_TIMER, at: ctx.now + BATCH_BOOKING_STALL_MS }],
    );
  }
  // spec: business 4.2, 7: the batch reference with another body is a reference_conflict.
  if (s.fingerprint !== c.fingerprint) {
    return reject(
      "reference_conflict",
      `batch reference already used with other details: ${s.batch.id}`,
      { id: s.batch.id },
    );
  }
  return accept([], replyOf(true));
}

/** The claim a release or fund names is the one standing (not a later claim of the same body). */
function sameClaim(
  s: Extract<BatchState, { phase: "claimed" }>,
  c: { fingerprint: string; created_at: number; claim_id?: string | undefined },
) {
  return s.fingerprint === c.fingerprint && s.batch.created_at === c.created_at &&
    s.batch.claim_id === c.claim_id;
}

/**
 * spec: business 7 insufficient_balance, appendix 1: a batch refused for its money leaves its
 * reference free. Only the claim named (a later one is another attempt's) and only before booked.
 */
function release(s: BatchState, c: Extract<BatchCommand, { kind: "release" }>, ctx: Ctx): D {
  if (s.phase === "free") return missing();
  const mine = sameClaim(s, c);
  // A claim a replay has funded may be charged for its stops: it stays (spec: business 4.2).
  if (!mine || s.batch.booked_at !== null || s.funded) return accept([], replyOf(false));
  return accept([{ kind: "batch_released", at: ctx.now }], () => ({
    batch: s.batch,
    replayed: false,
  }), [STALL_CANCEL]);
}

/**
 * spec: business 4.2, 7: the fence between a claim's release and its stops' charges. A hold
 * placed for a claim released meanwhile (or released and claimed again) is refused here, so the
 * flow gives the money back before any stop is booked; a funded claim is never released.
 */
function fund(s: BatchState, c: Extract<BatchCommand, { kind: "fund" }>, ctx: Ctx): D {
  if (s.phase === "free" || !sameClaim(s, c)) {
    return reject("claim_released", "the batch's claim was released before its hold");
  }
  const events: BatchEvent[] = s.funded || s.batch.booked_at !== null
    ? []
    : [{ kind: "batch_funded", at: ctx.now }];
  return accept(events, replyOf(true));
}

const STALL_CANCEL: TimerOp = { op: "cancel", name: BATCH_STALL_TIMER };

/**
 * A claim still unbooked is handed to the sweep, and looked at again later, until it is booked,
 * released, or the sweep found it cannot be booked.
 */
function stalled(s: BatchState, name: string, ctx: Ctx): D {
  if (name !== BATCH_STALL_TIMER || s.phase === "free") return accept([]);
  if (s.batch.booked_at !== null || s.sweep_refused) return accept([]);
  return accept(
    [{ kind: "batch_booking_stalled", at: ctx.now }],
    undefined,
    [{ op: "set", name: BATCH_STALL_TIMER, at: ctx.now + BATCH_BOOKING_STALL_MS }],
  );
}

/** The sweep's refusal, recorded on the claim it looked at (a later claim is another attempt's). */
function sweepRefused(
  s: BatchState,
  c: Extract<BatchCommand, { kind: "sweep_refused" }>,
  ctx: Ctx,
): D {
  if (s.phase === "free") return missing();
  if (!sameClaim(s, c) || s.batch.booked_at !== null || s.sweep_refused) {
    return accept([], replyOf(false));
  }
  return accept(
    [{ kind: "batch_sweep_refused", at: ctx.now, code: c.code, message: c.message }],
    replyOf(false),
    [STALL_CANCEL],
  );
}

function stalledOutbox(e: BatchEvent, next: BatchState): readonly OutboxAdd[] {
  if (e.kind !== "batch_booking_stalled" || next.phase === "free") return [];
  const b = next.batch;
  const item: BatchStalledItem = {
    business_id: b.business_id,
    id: b.id,
    fingerprint: next.fingerprint,
    created_at: b.created_at,
    ...(b.claim_id === undefined ? {} : { claim_id: b.claim_id }),
  };
  return [{ outbox: BATCH_STALLED_OUTBOX, payload: item }];
}

export const batchActor: ActorDefinition<BatchState, BatchCommand, BatchEvent, BatchReply> = {
  type: "business_batch",
  noun: "batch",
  version: 1,
  initial: { phase: "free" },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "claim":
        return claim(state, command, ctx);
      case "booked":
        if (state.phase === "free") return missing();
        return accept(
          state.batch.booked_at === null ? [{ kind: "batch_booked", at: ctx.now }] : [],
          replyOf(false),
          state.batch.booked_at === null ? [STALL_CANCEL] : [],
        );
      case "release":
        return release(state, command, ctx);
      case "fund":
        return fund(state, command, ctx);
      case "sweep_refused":
        return sweepRefused(state, command, ctx);
      case "get":
        return state.phase === "free" ? missing() : accept([], replyOf(false));
      case "timer":
        return stalled(state, command.name, ctx);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "batch_claimed":
        return { phase: "claimed", batch: event.batch, fingerprint: event.fingerprint };
      case "batch_booked":
        if (state.phase !== "claimed") return state;
        return { ...state, batch: { ...state.batch, booked_at: event.at } };
      case "batch_released":
        return { phase: "free" };
      case "batch_funded":
        return state.phase === "claimed" ? { ...state, funded: true } : state;
      case "batch_booking_stalled":
        return state;
      case "batch_sweep_refused":
        if (state.phase !== "claimed") return state;
        return {
          ...state,
          sweep_refused: { at: event.at, code: event.code, message: event.message },
        };
      default:
        return unreachable(event);
    }
  },
  outbox: stalledOutbox,
  project: (s) => (s.phase === "claimed" ? s.batch : null),
};

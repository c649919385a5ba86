/**
 * The price of each stop of a batch as the batch answered it (Business API 2.3, 4.2): the fare's
 * lines, its road metres and the vehicle each stop's trip is billed and carried in, so the stop is
 * booked at that price whatever the catalogue says by the time it is booked (a retry after a
 * crash, the batch's sweep, a retry after the hold expired): the batch's listed prices, its hold
 * and its trips' billing agree. Kept apart from the batch, whose record of 50 stops with every
 * text at its longest is near the state's bound. Keyed by the id the batch's draft names (one per
 * draft: a draft planned again is priced again); tenant: the business. Kept once, before the
 * claim that names it, and never changed: keeping it again answers what was kept. Once their batch
 * no longer needs them (booked, released, or claimed under another draft, or never claimed), the
 * batch sweep removes them (BATCH_PRICES_TIMER): a draft's prices do not outlive its batch.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type OutboxAdd,
  reject,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { FareLine } from "../../src/business/rules/fare.ts";
import type { VehicleFields } from "../../src/business/rules/vehicle.ts";
import {
  BATCH_PRICES_CHECK_MS,
  BATCH_PRICES_DUE_OUTBOX,
  BATCH_PRICES_TIMER,
} from "../../src/business/rules/batch.ts";

/** One stop's price: what its trip is billed (in the batch's currency) and carried in. */
export interface StopPrice {
  readonly vehicle: VehicleFields;
  readonly amount_minor: number;
  /** The lines add up to the amount exactly. */
  readonly lines: readonly FareLine[];
  /** Road metres, as the fare counted them. */
  readonly distance_m: number;
}

/** Whose prices these are: what the sweep reads to tell whether they are still needed. */
export interface BatchPricesOwner {
  readonly business_id: string;
  readonly batch_id: string;
  /** These prices' own id (the batch's draft names it). */
  readonly id: string;
}

/** The batch sweep's look at prices whose check is due (BATCH_PRICES_DUE_OUTBOX). */
export type BatchPricesDueItem = BatchPricesOwner;

export type BatchPricesState =
  | { readonly phase: "none" }
  | {
    readonly phase: "kept";
    /** By the stop's index in the batch's request (`stops[index]`). */
    readonly stops: readonly StopPrice[];
    readonly kept_at: number;
    /** Absent on prices kept before they were swept: never looked at, kept for good. */
    readonly owner?: BatchPricesOwner;
  }
  /** Their batch ended without needing them: removed by the sweep, never kept again. */
  | { readonly phase: "removed"; readonly removed_at: number };

export type BatchPricesCommand =
  | { kind: "keep"; stops: readonly StopPrice[]; owner?: BatchPricesOwner }
  | { kind: "get" }
  /** The sweep found their batch still needing them: looked at again later. */
  | { kind: "still_needed" }
  /** The sweep found their batch no longer needing them. */
  | { kind: "remove" };

export type BatchPricesEvent =
  | { kind: "batch_prices_kept"; stops: readonly StopPrice[]; at: number; owner?: BatchPricesOwner }
  | { kind: "batch_prices_due"; at: number }
  | { kind: "batch_prices_removed"; at: number };

/** The stops' prices, by their index in the request. */
export type BatchPricesReply = readonly StopPrice[];

type State = BatchPricesState;

const gone = () => reject("not_found", "batch prices not found");

const checkLater = (ctx: Ctx): TimerOp => ({
  op: "set",
  name: BATCH_PRICES_TIMER,
  at: ctx.now + BATCH_PRICES_CHECK_MS,
});

function keep(state: State, c: Extract<BatchPricesCommand, { kind: "keep" }>, ctx: Ctx) {
  // Kept once: a retry of the same draft's keep answers what the first kept.
  if (state.phase === "kept") {
    return accept<State, BatchPricesEvent, BatchPricesReply>([], () => state.stops);
  }
  if (state.phase === "removed") return gone();
  const owner = c.owner === undefined ? {} : { owner: c.owner };
  return accept<State, BatchPricesEvent, BatchPricesReply>(
    [{ kind: "batch_prices_kept", stops: c.stops, at: ctx.now, ...owner }],
    (s) => s.phase === "kept" ? s.stops : [],
    c.owner === undefined ? [] : [checkLater(ctx)],
  );
}

function dueItem(e: BatchPricesEvent, next: State): readonly OutboxAdd[] {
  if (e.kind !== "batch_prices_due" || next.phase !== "kept" || !next.owner) return [];
  const item: BatchPricesDueItem = next.owner;
  return [{ outbox: BATCH_PRICES_DUE_OUTBOX, payload: item }];
}

export const batchPricesActor: ActorDefinition<
  BatchPricesState,
  BatchPricesCommand,
  BatchPricesEvent,
  BatchPricesReply
> = {
  type: "business_batch_prices",
  noun: "batch prices",
  version: 1,
  initial: { phase: "none" },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "keep":
        return keep(state, command, ctx);
      case "get":
        return state.phase === "kept" ? accept([], () => state.stops) : gone();
      case "still_needed":
        return state.phase === "kept" ? accept([], () => state.stops, [checkLater(ctx)]) : gone();
      case "remove":
        return state.phase === "kept"
          ? accept([{ kind: "batch_prices_removed", at: ctx.now }], () => [], [
            { op: "cancel", name: BATCH_PRICES_TIMER },
          ])
          : accept([], () => []);
      case "timer":
        // spec: business 4.2: the sweep asks whether their batch still needs them.
        if (command.name !== BATCH_PRICES_TIMER || state.phase !== "kept") return accept([]);
        return accept([{ kind: "batch_prices_due", at: ctx.now }]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, e) {
    switch (e.kind) {
      case "batch_prices_kept":
        return {
          phase: "kept",
          stops: e.stops,
          kept_at: e.at,
          ...(e.owner === undefined ? {} : { owner: e.owner }),
        };
      case "batch_prices_due":
        return state;
      case "batch_prices_removed":
        return { phase: "removed", removed_at: e.at };
      default:
        return unreachable(e);
    }
  },
  outbox: dueItem,
  // The state says it all: the log would only repeat it; nobody downstream reads it.
  logEvents: false,
  publishEvents: false,
};

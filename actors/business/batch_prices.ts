/**
 * The price of each stop of a batch as the batch answered it (Business API 2.3, 4.2): the fare's
 * lines, its road metres and the vehicle each stop's trip is billed and carried in, so the stop is
 * booked at that price whatever the catalogue says by the time it is booked (a retry after a
 * crash, the batch's sweep, a retry after the hold expired): the batch's listed prices, its hold
 * and its trips' billing agree. Kept apart from the batch, whose record of 50 stops with every
 * text at its longest is near the state's bound. Keyed by the id the batch's draft names (one per
 * draft: a draft planned again is priced again); tenant: the business. Kept once, before the
 * claim that names it, and never changed: keeping it again answers what was kept.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import type { FareLine } from "../../src/business/rules/fare.ts";
import type { VehicleFields } from "../../src/business/rules/vehicle.ts";

/** One stop's price: what its trip is billed (in the batch's currency) and carried in. */
export interface StopPrice {
  readonly vehicle: VehicleFields;
  readonly amount_minor: number;
  /** The lines add up to the amount exactly. */
  readonly lines: readonly FareLine[];
  /** Road metres, as the fare counted them. */
  readonly distance_m: number;
}

export type BatchPricesState =
  | { readonly phase: "none" }
  | {
    readonly phase: "kept";
    /** By the stop's index in the batch's request (`stops[index]`). */
    readonly stops: readonly StopPrice[];
    readonly kept_at: number;
  };

export type BatchPricesCommand =
  | { kind: "keep"; stops: readonly StopPrice[] }
  | { kind: "get" };

export type BatchPricesEvent = {
  kind: "batch_prices_kept";
  stops: readonly StopPrice[];
  at: number;
};

/** The stops' prices, by their index in the request. */
export type BatchPricesReply = readonly StopPrice[];

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
        // Kept once: a retry of the same draft's keep answers what the first kept.
        if (state.phase === "kept") return accept([], () => state.stops);
        return accept(
          [{ kind: "batch_prices_kept", stops: command.stops, at: ctx.now }],
          (s) => s.phase === "kept" ? s.stops : [],
        );
      case "get":
        return state.phase === "kept"
          ? accept([], () => state.stops)
          : reject("not_found", "batch prices not found");
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve: (_state, e) => ({ phase: "kept", stops: e.stops, kept_at: e.at }),
  // The state is the one event: the log would only repeat it; nobody downstream reads it.
  logEvents: false,
  publishEvents: false,
};

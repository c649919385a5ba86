/**
 * Each stop of a batch booked at the price its batch answered (Business API 2.3, 4.2): the plan's
 * prices are kept in one record (actors/business/batch_prices.ts) before the claim that names it,
 * and every booking of the claim's stops (the request, its retry, the batch's sweep) bills each
 * stop from it instead of pricing it again, so a catalogue changed meanwhile neither bills a stop
 * more than the batch listed nor refuses it part way.
 */
import {
  batchPricesActor,
  type BatchPricesOwner,
  type BatchPricesReply,
  type StopPrice,
} from "../../../actors/business/batch_prices.ts";
import type { Batch, BatchStop } from "../../../actors/business/batch.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";
import type { BatchPlan } from "../rules/batch_plan.ts";
import { vehicleFields } from "../rules/vehicle.ts";
import type { Billed } from "./book.ts";

/** A new id for a draft's prices: one per draft, so a draft planned again is priced again. */
export function newPricesId(batch: string): string {
  return `${batch}:${crypto.randomUUID()}`;
}

/**
 * Keeps the plan's prices under `owner.id`, once (the same keep again changes nothing), with whose
 * they are, so the batch sweep removes them once their batch needs them no more.
 */
export async function keepPrices(
  deps: Pick<Deps, "runtime" | "requestId">,
  owner: BatchPricesOwner,
  plan: BatchPlan,
) {
  const stops = plan.prices.map((p): StopPrice => ({
    vehicle: vehicleFields(p.resolution),
    amount_minor: p.fare.amount_minor,
    lines: p.fare.lines,
    distance_m: p.fare.distance_m,
  }));
  orRefuse(
    await deps.runtime.ask(batchPricesActor, owner.business_id, owner.id, {
      kind: "keep",
      stops,
      owner,
    }, { requestId: deps.requestId }),
  );
}

/**
 * The prices the claim's stops are billed at; null for a batch stored before they were kept, and
 * for one booked (its stops replay their trips: the sweep may have removed its prices).
 */
export async function keptPrices(
  deps: Pick<Deps, "runtime">,
  business: string,
  batch: Batch,
): Promise<BatchPricesReply | null> {
  if (batch.prices === undefined || batch.booked_at !== null) return null;
  return orRefuse(
    await deps.runtime.read(batchPricesActor, business, batch.prices, { kind: "get" }),
  );
}

/** What the stop `s` is billed and carried in, as its batch answered it. */
export function billedStop(prices: BatchPricesReply, s: BatchStop, batch: Batch): Billed {
  const p = prices[s.index]!;
  return {
    vehicle: p.vehicle,
    fare: {
      amount_minor: p.amount_minor,
      currency: batch.billing_currency,
      lines: p.lines,
      distance_m: p.distance_m,
    },
  };
}

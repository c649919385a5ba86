/**
 * The sweep of a batch its request stopped booking (Business API 2.3, 4.2; the product rule: a
 * crash between two steps leaves state that a retry or a sweep completes). The batch's timer hands
 * a claim still unbooked after the bound to this flow, which completes it with the request's own
 * steps under the request's keys: the claim's hold (placed again for what is owed if it is gone),
 * each stop booked once as the request would (same trips, same charges), the batch marked booked
 * and what is left of the hold freed. A late wake-up of the request then finds every step done
 * (its stops replay their trips). Where the sweep cannot book it, it ends it as the request ends
 * on the same refusal: money refused before the claim was funded releases the claim (the
 * reference stays free, nothing created); a refusal after leaves the stops booked and the claim
 * for a retry; either way the claim's hold is given back and the sweep looks no more.
 */
import { type Batch, batchActor, type BatchStalledItem } from "../../../actors/business/batch.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import {
  batchPricesActor,
  type BatchPricesDueItem,
} from "../../../actors/business/batch_prices.ts";
import {
  foundOrNull,
  lastingRefusal,
  orRefuse,
  Refused,
  type Rejection,
} from "../../runtime/actor.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { BATCH_HOLD_MS } from "../rules/batch.ts";
import { creditLimitMinor } from "./complete_booking.ts";
import {
  type BatchDeps,
  bookStops,
  claimOf,
  holdOf,
  releaseHold,
  settleBooked,
  unbookedMinor,
} from "./batches.ts";

/** The claim the item names is the one standing, not booked yet, and kept what the sweep needs. */
function stillStalled(b: Batch | undefined, item: BatchStalledItem): b is Batch {
  return b !== undefined && b.booked_at === null && b.finish !== undefined &&
    b.created_at === item.created_at && b.claim_id === item.claim_id;
}

/** Completes a batch claimed and not booked in time, or ends it as its request would have. */
export async function sweepStalledBatch(deps: BatchDeps, item: BatchStalledItem): Promise<void> {
  const business = item.business_id;
  const got = await deps.runtime.read(batchActor, business, item.id, { kind: "get" });
  // A busy or failed read says nothing of the batch: thrown, so the item is tried again.
  const batch = foundOrNull(got)?.batch;
  if (!stillStalled(batch, item)) return;
  const finish = batch.finish!;
  try {
    await holdOwed(deps, business, batch, item.fingerprint);
    await bookStops(deps, business, batch, {
      cargo: {
        ...(finish.cargo_body_type === null ? {} : { cargo_body_type: finish.cargo_body_type }),
        ...(finish.cargo_capacity_class === null
          ? {}
          : { cargo_capacity_class: finish.cargo_capacity_class }),
      },
      fingerprint: item.fingerprint,
      by: finish.by,
    });
    await settleBooked(deps, business, batch);
  } catch (e) {
    const refused = lastingRefusal(e);
    // Not now (an actor busy, a stop's claim still being completed): the item is tried again.
    if (refused === null || refused.code.endsWith("_in_progress")) throw e;
    await endRefused(deps, batch, item, refused);
  }
}

/**
 * spec: business 4.2, 7: the stops left are paid from the claim's hold, placed again for what
 * they owe if it is gone (expired, or never placed: the request stopped before it), and the claim
 * marked funded. Money refused: a claim no hold funded yet is released, as the request releases
 * it (the reference stays free, nothing created); a funded one stays, stops booked and all.
 */
async function holdOwed(deps: BatchDeps, business: string, batch: Batch, fingerprint: string) {
  const owed = await unbookedMinor(deps, business, batch);
  const currency = batch.billing_currency;
  const held = owed === 0 ? null : await deps.runtime.ask(walletActor, business, business, {
    kind: "reserve",
    hold: holdOf(batch),
    amount_minor: owed,
    currency,
    limit_minor: creditLimitMinor(await businessOf(deps.runtime, business), currency),
    hold_ms: BATCH_HOLD_MS,
  });
  if (held !== null && !held.ok) {
    orRefuse(
      await deps.runtime.ask(batchActor, business, batch.id, {
        kind: "release",
        fingerprint,
        ...claimOf(batch),
      }),
    );
    throw new Refused(held);
  }
  // The fence: a claim released meanwhile (the request's money refused) is not booked.
  orRefuse(
    await deps.runtime.ask(batchActor, business, batch.id, {
      kind: "fund",
      fingerprint,
      ...claimOf(batch),
    }),
  );
}

/**
 * The sweep cannot book the batch: the claim's hold is given back (its stops left are booked by a
 * retry only, paid then) and the refusal recorded, so the sweep looks no more.
 */
async function endRefused(
  deps: BatchDeps,
  batch: Batch,
  item: BatchStalledItem,
  refused: Rejection,
) {
  const business = item.business_id;
  await releaseHold(deps, business, holdOf(batch));
  const r = await deps.runtime.ask(batchActor, business, batch.id, {
    kind: "sweep_refused",
    code: refused.code,
    message: refused.message,
    fingerprint: item.fingerprint,
    ...claimOf(batch),
  });
  // Released (its money refused): nothing is left to record.
  if (!r.ok && r.code !== "not_found") throw new Refused(r);
}

/**
 * spec: business 4.2: a batch's prices are needed while the claim naming them is not booked (its
 * stops left are billed at them, by a retry or the sweep above, however long that takes). Once
 * their batch is booked, released, claimed under another draft or was never claimed, nothing
 * reads them again: removed. Still needed: looked at again later.
 */
export async function sweepBatchPrices(deps: Pick<BatchDeps, "runtime">, item: BatchPricesDueItem) {
  const got = await deps.runtime.read(batchActor, item.business_id, item.batch_id, {
    kind: "get",
  });
  // A busy or failed read says nothing of the batch: thrown, so the item is tried again.
  const batch = foundOrNull(got)?.batch;
  const needed = batch !== undefined && batch.prices === item.id && batch.booked_at === null;
  // Removed already (a second handling of the item): nothing is left to do.
  foundOrNull(
    await deps.runtime.ask(batchPricesActor, item.business_id, item.id, {
      kind: needed ? "still_needed" : "remove",
    }),
  );
}

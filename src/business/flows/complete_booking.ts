/**
 * The steps of a booking after its claim (Business API 2.1, appendix; 4.3 wallet): its charge, its
 * number, its trip. The charge and the trip are asks under keys derived from the claim, so the
 * request and the completing sweep (a booking stopped between two steps) run the same code and do
 * each once. The number is taken from this instance's block (trip_numbers.ts), not asked under a
 * key: it is decided once, by the trip's `create` commit. A crash before that commit leaves the
 * claim, and the sweep completes it with a number of its own (the first one is a gap); a second
 * completion of the same claim (the request's and the sweep's) gets `booked` with the first's
 * trip from the trip actor, so the number it took is only a gap. Numbers stay unique (business
 * 2.2 `id`): every number comes from a block the sequence reserved once.
 */
import { newScanCode } from "../rules/driver_actions.ts";
import {
  type Claim,
  type Money,
  type Trip,
  tripActor,
  type TripDraft,
  type TripOffer,
} from "../../../actors/business/trip/mod.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import type { DispatchTimes } from "../rules/dispatch.ts";
import type { Business } from "../../../actors/platform/business/types.ts";
import type { Deps } from "../../environment.ts";
import { toMinor } from "../../domain/money.ts";
import { orRefuse, Refused } from "../../runtime/actor.ts";
import { passGate } from "./claim_gates.ts";
import { lowBalanceWatch } from "./low_balance.ts";
import { stopHold } from "../rules/batch.ts";
import type { TripNumbers } from "./trip_numbers.ts";

/** A trip's first offer as the dispatcher chooses it for the trip's creation. */
export interface FirstOffer {
  readonly offer: TripOffer;
  readonly window_ends_at: number;
}

/** The dispatcher as a booking reaches it (reactors/dispatcher.ts). */
export interface FirstOffers {
  /** The first offer of a trip about to be created, its driver held; null: it waits. */
  choose(draft: TripDraft): Promise<FirstOffer | null>;
  /** The trip was not created with the offer chosen: its driver is free again. */
  release(draft: TripDraft, driverId: string): void;
}

/**
 * The steps' dependencies: the environment's trip numbers; without `offers` the dispatcher offers
 * once it hears the trip.
 */
export type CompleteDeps = Pick<Deps, "runtime" | "requestId"> & {
  readonly offers?: FirstOffers | undefined;
  readonly numbers: TripNumbers;
};

/** The key of one claim's steps: a later claim of a freed reference is another booking. */
function stepKey(c: Claim): string {
  return `${c.draft.reference}:${c.claimed_at}`;
}

/** spec: CONTRACT operator API: a credit account may go down to -credit_limit. */
export function creditLimitMinor(account: Business, currency: string): number {
  const text = account.settings.credit_limit ?? null;
  if (account.settings.billing_type !== "credit" || text === null) return 0;
  if (currency !== account.currency) return 0;
  const m = toMinor(text, currency);
  return m.ok ? m.minor : 0;
}

/**
 * Charges, numbers and creates the claimed trip; a refused charge (insufficient_balance) releases
 * the claim, so the reference stays free, and is thrown.
 */
export async function completeBooking(
  deps: CompleteDeps,
  account: Business,
  claim: Claim,
  by: string,
): Promise<Trip> {
  const { runtime } = deps;
  const d = claim.draft, key = stepKey(claim), business = d.business_id;
  await passGate(deps, claim);
  // The trip's number is reserved beside the charge, taken once the charge went through.
  deps.numbers.ready(business);
  // spec: business 4.3, 7: charged inside the wallet's turn, or refused with nothing charged.
  const charged = await runtime.ask(walletActor, business, business, {
    kind: "debit",
    amount_minor: d.billing_amount_minor,
    currency: d.billing_currency,
    reference: `trip:${d.reference}`,
    by,
    limit_minor: creditLimitMinor(account, d.billing_currency),
    // spec: business 4.2, 7: a batch's stop is paid from the money its batch held; watched all
    // the same (business 6 wallet.low_balance: the posted balance falls as for any charge).
    ...(d.batch === undefined ? {} : { hold: stopHold(d.batch) }),
    low_balance: lowBalanceWatch(account, d.billing_currency),
  }, { idempotencyKey: `charge:${key}`, permanent: true, requestId: deps.requestId });
  if (!charged.ok) {
    const released = await runtime.ask(tripActor, business, d.reference, {
      kind: "release",
      fingerprint: claim.fingerprint,
    }, { requestId: deps.requestId });
    // Not released (the trip's mailbox full): the claim stands and its sweep may yet book it, so
    // the caller is told "not now" and its retry finds what happened, never "nothing booked".
    if (!released.ok) throw new Refused(released);
    throw new Refused(charged);
  }
  const t = charged.reply.transaction;
  const charge = {
    transaction_id: t?.id ?? null,
    amount_minor: d.billing_amount_minor,
    currency: d.billing_currency,
  };
  // spec: business 2.2: a custody token when the business has the scanning add-on.
  const scan = account.settings.custody_scanning ? newScanCode() : null;
  // Taken once the charge went through, so a refused charge leaves no gap; a second
  // completion's number is a gap (see above).
  const id = await deps.numbers.take(business);
  const made = await createTrip(deps, claim, { id, charge, scan_code: scan });
  if (made.ok && made.reply.phase === "booked") return made.reply.trip;
  // Not now (the trip's mailbox full): the claim still holds, and its sweep creates the trip
  // under the same charge, so the charge is kept (given back, the trip would run unpaid).
  if (!made.ok && made.code !== "not_found") throw new Refused(made);
  // The claim was released meanwhile (the request's charge was refused while this one's went
  // through): the charge is given back, so nobody pays for a trip that does not exist.
  await refundCharge(deps, business, `stale:${key}`, charge, by);
  throw new Refused(made.ok ? { ok: false, code: "not_found", message: "trip not found" } : made);
}

/**
 * Creates the claimed trip, with its first offer when the dispatcher finds a driver now (spec:
 * business 3.1): one commit makes the trip and offers it, so the offer does not queue behind the
 * other bookings' commits. The driver is held for the offer from the choice; a trip not created
 * with it (a replay, a refusal, a failure) gives the driver back.
 */
async function createTrip(
  deps: CompleteDeps,
  claim: Claim,
  made: { id: number; charge: Money | null; scan_code: string | null },
) {
  const d = claim.draft;
  const offers = deps.offers;
  const first = offers ? await offers.choose(d) : null;
  const times = await dispatchTimes(deps);
  const create = (offer: FirstOffer | null) =>
    deps.runtime.ask(tripActor, d.business_id, d.reference, {
      kind: "create",
      fingerprint: claim.fingerprint,
      ...made,
      offer,
      times,
    }, { requestId: deps.requestId });
  const created = await create(first).catch((e) => {
    if (first) offers!.release(d, first.offer.driver_id);
    throw e;
  });
  const kept = created.ok && created.reply.phase === "booked" &&
    created.reply.trip.offer?.offer_id === first?.offer.offer_id;
  if (first && !kept) offers!.release(d, first.offer.driver_id);
  // Another instance's offer to that driver committed first (one at a time, spec: business 3.1):
  // the trip is created without it and waits for the dispatcher, as one with no driver near.
  if (first && !created.ok && created.code === "index_taken") return await create(null);
  return created;
}

/**
 * spec: business 3.1, CONTRACT PUT /operator/settings: the times a trip's dispatch is decided
 * with at its creation (when it is first due to be offered, when its window ends).
 */
async function dispatchTimes(deps: Pick<Deps, "runtime">): Promise<DispatchTimes> {
  const s = orRefuse(
    await deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  );
  const { prep_offer_lead_minutes, schedule_offer_lead_minutes, dispatch_window_minutes } = s;
  return { prep_offer_lead_minutes, schedule_offer_lead_minutes, dispatch_window_minutes };
}

/** Credits a charge back once per `key` (a cancellation's refund, a stale charge). */
export async function refundCharge(
  deps: Pick<Deps, "runtime" | "requestId">,
  business: string,
  key: string,
  charge: { readonly amount_minor: number; readonly currency: string },
  by: string,
) {
  return orRefuse(
    await deps.runtime.ask(walletActor, business, business, {
      kind: "credit",
      amount_minor: charge.amount_minor,
      currency: charge.currency,
      reference: `refund:${key}`,
      by,
    }, { idempotencyKey: `refund:${key}`, permanent: true, requestId: deps.requestId }),
  );
}

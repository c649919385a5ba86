/**
 * POST /business/batches (Business API 2.3, 4.2): plans the batch (one vehicle fitted to the
 * largest stop, each stop priced on its own size, the driving order), claims its reference, holds
 * its total in the wallet (refused: the claim is released, nothing is created or charged), then
 * books each stop as a trip through the single booking's flow under a key derived from the batch
 * and the stop, each billed the price the batch answered (kept before the claim, apart from it:
 * batch_prices.ts) and paid from the hold; what is left of it is then released. A crash between two
 * stops leaves the claim and the hold: the retry replays the stops booked and books the rest; each
 * trip claimed and not completed is completed by the booking's own sweep; a claim not booked in
 * time is completed by the batch's sweep (batch_sweep.ts) with the same steps; the hold's timer
 * frees what neither finished.
 */
import {
  type Batch,
  batchActor,
  type BatchDraft,
  batchReferenceOf,
  type BatchReply,
  type BatchStop,
} from "../../../actors/business/batch.ts";
import { freeMinor, walletActor } from "../../../actors/platform/wallet.ts";
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import type { Business } from "../../../actors/platform/business/types.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { formatMinor } from "../../domain/money.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import {
  BATCH_HOLD_MS,
  batchHold,
  type BatchKey,
  batchReference,
  parcelSizeOf,
  stopKey,
  type StopSize,
  stopTexts,
} from "../rules/batch.ts";
import { type BatchPlan, planBatch, type PlanCargo } from "../rules/batch_plan.ts";
import { bookingReference, fingerprintOf } from "../rules/booking.ts";
import { vehicleFields } from "../rules/vehicle.ts";
import {
  type BookingRequest,
  bookTrip,
  type Place,
  refuseTestFlags,
  refuseTestTraffic,
  type TestFlags,
} from "./book.ts";
import { catalogueOf } from "./fares.ts";
import { billedStop, keepPrices, keptPrices, newPricesId } from "./batch_prices.ts";
import { type CompleteDeps, creditLimitMinor } from "./complete_booking.ts";

export interface BatchStopInput {
  readonly recipient_name?: string | undefined;
  readonly recipient_phone?: string | undefined;
  readonly pickup: Place;
  readonly dest: Place;
  readonly size: StopSize;
  readonly weight_kg?: number | undefined;
}

/** The batch body of 2.3 as the route parsed it. */
export interface BatchRequest extends PlanCargo, TestFlags {
  readonly segment: "parcel" | "cargo";
  readonly stops: readonly BatchStopInput[];
  readonly external_reference?: string | undefined;
  readonly batch_reference?: string | undefined;
}

export interface BatchInput {
  readonly request: BatchRequest;
  /** The body as sent: its fingerprint tells a retry from other details. */
  readonly body: unknown;
  /** The `Idempotency-Key` header (spec: business appendix 2), when sent. */
  readonly idempotencyKey: string | null;
  readonly by: string;
}

export interface BookedBatch {
  readonly batch: Batch;
  /** The stops' trips, in the driving order. */
  readonly trips: readonly Trip[];
  readonly replayed: boolean;
}

export type BatchDeps =
  & Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">
  & Pick<CompleteDeps, "offers" | "numbers">;

/** The wallet hold of the claim `b` names (spec: business 4.2: each attempt's own money). */
export function holdOf(b: Batch): string {
  return batchHold(b.id, b.claim_id);
}

/** What names the claim `b` is of, to the batch's fund and release. */
export function claimOf(b: Batch) {
  return { created_at: b.created_at, claim_id: b.claim_id };
}

/**
 * A stop as the single booking's flow takes it: a parcel with the batch's vehicle, paid from the
 * hold of the batch's claim (`d` is that claim's batch; a draft not claimed yet names none), with
 * the request's cargo fields (`r`: the request's, or those its claim kept for the sweep).
 */
function stopRequest(r: PlanCargo, s: BatchStop, d: BatchDraft | Batch): BookingRequest {
  const hold = "created_at" in d ? { hold: holdOf(d) } : {};
  const batchReference = batchReferenceOf(d);
  const reference = batchReference === null ? {} : { reference: batchReference };
  return {
    type: "parcel",
    segment: d.segment,
    passenger_name: s.recipient_name ?? undefined,
    passenger_phone: s.recipient_phone ?? undefined,
    pickup: s.pickup,
    dest: s.dest,
    parcel_size: s.parcel_size,
    parcel_weight_kg: s.weight_kg ?? undefined,
    cargo_body_type: r.cargo_body_type,
    cargo_capacity_class: r.cargo_capacity_class,
    // spec: business 4.2: one vehicle for the batch, fitted to its largest stop.
    vehicle_type_id: d.vehicle.vehicle_class.id,
    batch: { id: d.id, position: s.position, stops: d.stops.length, ...hold, ...reference },
  };
}

function draftOf(
  referenceKey: Uint8Array,
  account: Business,
  id: string,
  input: { readonly request: BatchRequest; readonly by: string },
  plan: BatchPlan,
): BatchDraft {
  const r = input.request;
  const business = account.id;
  const stops = plan.order.map((index, i): BatchStop => {
    const s = r.stops[index]!;
    const key = { kind: "idempotency_key" as const, value: stopKey(id, index) };
    return {
      index,
      position: i + 1,
      trip_reference: bookingReference(referenceKey, account, key, () => crypto.randomUUID()),
      recipient_name: s.recipient_name ?? null,
      recipient_phone: s.recipient_phone ?? null,
      pickup: s.pickup,
      dest: s.dest,
      size: s.size,
      parcel_size: parcelSizeOf(s.size),
      weight_kg: s.weight_kg ?? null,
      billing_amount_minor: plan.prices[index]!.fare.amount_minor,
    };
  });
  return {
    id,
    business_id: business,
    segment: r.segment,
    external_reference: r.external_reference ?? null,
    batch_reference: r.batch_reference ?? null,
    vehicle: vehicleFields(plan.vehicle),
    billing_currency: plan.currency,
    billing_amount_minor: plan.total_minor,
    stops,
    // What the sweep books the stops with, should the request stop (batch_sweep.ts).
    finish: {
      cargo_body_type: r.cargo_body_type ?? null,
      cargo_capacity_class: r.cargo_capacity_class ?? null,
      by: input.by,
    },
    // spec: business 4.2: the stops are booked at these prices (batch_prices.ts).
    prices: newPricesId(id),
  };
}

/**
 * spec: business 4.3, 7: a batch the free money (balance and credit limit, less what holds keep)
 * cannot pay is refused before its claim. A plain read: the hold after the claim decides.
 */
async function checkFunds(deps: BatchDeps, account: Business, plan: BatchPlan) {
  const id = account.id;
  const wallet = orRefuse(await deps.runtime.read(walletActor, id, id, { kind: "get" }));
  const limit = creditLimitMinor(account, plan.currency);
  const available = freeMinor(wallet.state, plan.currency, limit);
  if (available >= plan.total_minor) return;
  refuse(
    "insufficient_balance",
    `insufficient balance for the batch: available ${formatMinor(available, plan.currency)} ` +
      `${plan.currency}, needed ${formatMinor(plan.total_minor, plan.currency)} ${plan.currency}`,
  );
}

/** What the stops not booked yet cost (a stop still being booked counts: it may not be paid). */
export async function unbookedMinor(deps: BatchDeps, business: string, batch: Batch) {
  const owed = await Promise.all(batch.stops.map(async (s) => {
    // A refused read (a full mailbox) is thrown: a booked stop counted owed is held for again.
    const r = await deps.runtime.read(tripActor, business, s.trip_reference, { kind: "get" });
    return foundOrNull(r)?.phase === "booked" ? 0 : s.billing_amount_minor;
  }));
  return owed.reduce((a, b) => a + b, 0);
}

/**
 * spec: business 4.2, 7: the batch's money is held in the wallet's own turn before any stop is
 * booked, so another booking cannot spend it meanwhile and no stop's charge is refused; refused,
 * nothing is created and the claim this request made is released (the reference stays free). A
 * retry finds the hold its first try placed; once that has expired, it holds what is still owed.
 * The hold is the claim's own, never another claim's (`replaces`: this request's hold for a claim
 * released meanwhile, moved to this one in the same turn, or given back).
 */
async function holdFunds(
  deps: BatchDeps,
  business: string,
  claimed: BatchReply,
  fp: string,
  replaces?: string,
): Promise<BatchReply> {
  const batch = claimed.batch, currency = batch.billing_currency;
  const owed = claimed.replayed
    ? await unbookedMinor(deps, business, batch)
    : batch.billing_amount_minor;
  const held = owed === 0 ? null : await deps.runtime.ask(walletActor, business, business, {
    kind: "reserve",
    hold: holdOf(batch),
    amount_minor: owed,
    currency,
    limit_minor: creditLimitMinor(await businessOf(deps.runtime, business), currency),
    hold_ms: BATCH_HOLD_MS,
    ...(replaces === undefined ? {} : { replaces }),
  }, { requestId: deps.requestId });
  if (held?.ok) return await fundClaim(deps, business, claimed, fp, replaces !== undefined);
  // Not moved: the money this request held for the released claim is given back.
  if (replaces !== undefined) await releaseHold(deps, business, replaces);
  if (held === null) return claimed;
  // Another request for the batch booked every stop and freed its hold since `owed` was counted
  // (two at once): nothing is owed, the replay answers the batch (spec: business 4.2).
  if (claimed.replayed && await unbookedMinor(deps, business, batch) === 0) return claimed;
  // A claim an earlier try made may have stops booked: it stays, for a retry once funded.
  if (!claimed.replayed) {
    const after = orRefuse(
      await deps.runtime.ask(batchActor, business, batch.id, {
        kind: "release",
        fingerprint: fp,
        ...claimOf(batch),
      }, { requestId: deps.requestId }),
    );
    // A replay funded the claim meanwhile (it was not released): its stops are booked and paid
    // from that replay's hold, so this request answers the batch, never 422 (spec: business 4.2).
    if (await stillClaimed(deps, business, after.batch)) return claimed;
  }
  throw new Refused(held);
}

/** Gives back what is left of one hold (none left: nothing changes). */
export async function releaseHold(deps: BatchDeps, business: string, hold: string) {
  orRefuse(
    await deps.runtime.ask(walletActor, business, business, { kind: "release", hold }, {
      requestId: deps.requestId,
    }),
  );
}

/** The claim `batch` names still stands (a release it asked for left it: it was funded). */
async function stillClaimed(deps: BatchDeps, business: string, batch: Batch) {
  const now = await deps.runtime.read(batchActor, business, batch.id, { kind: "get" });
  return now.ok && now.reply.batch.created_at === batch.created_at &&
    now.reply.batch.claim_id === batch.claim_id;
}

/**
 * spec: business 4.2, 7: the hold placed, the claim it stands on is marked funded, so it is no
 * longer released. One released meanwhile (the first request's hold was refused before money
 * arrived) is claimed again by this same body, the money moved to that claim's hold in the
 * wallet's turn; refused (another body has the reference now), this request's own hold is given
 * back before any stop is booked or charged, and no other claim's.
 */
async function fundClaim(
  deps: BatchDeps,
  business: string,
  claimed: BatchReply,
  fp: string,
  moved: boolean,
): Promise<BatchReply> {
  const funded = await deps.runtime.ask(batchActor, business, claimed.batch.id, {
    kind: "fund",
    fingerprint: fp,
    ...claimOf(claimed.batch),
  }, { requestId: deps.requestId });
  if (funded.ok) return claimed;
  // Claimed again once at most: a second release meanwhile answers this request's refusal.
  if (funded.code === "claim_released" && !moved) {
    const again = await deps.runtime.ask(batchActor, business, claimed.batch.id, {
      kind: "claim",
      draft: claimed.batch,
      fingerprint: fp,
    }, { requestId: deps.requestId });
    if (again.ok) return await holdFunds(deps, business, again.reply, fp, holdOf(claimed.batch));
    await releaseHold(deps, business, holdOf(claimed.batch));
    throw new Refused(again);
  }
  await releaseHold(deps, business, holdOf(claimed.batch));
  throw new Refused(funded);
}

/** Plans and checks a new batch: every refusal here leaves nothing created. */
async function newDraft(deps: BatchDeps, business: string, id: string, input: BatchInput) {
  const r = input.request;
  // spec: business 7, 9.3: live refuses the test flags before the batch is planned or charged.
  if (deps.name === "live") refuseTestFlags(r);
  const account = await businessOf(deps.runtime, business);
  const catalogue = await catalogueOf(deps);
  const planned = planBatch(catalogue, r.stops, r, account.settings.vehicle_upgrade_policy);
  if (!planned.ok) throw new Refused(planned);
  const draft = draftOf(deps.referenceKey, account, id, input, planned.plan);
  if (deps.name === "live") {
    for (const s of draft.stops) {
      const stop = { ...stopRequest(r, s, draft), marked_texts: stopTexts(s) };
      await refuseTestTraffic(deps, business, stop);
    }
  }
  await checkFunds(deps, account, planned.plan);
  // Kept before the claim that names them, so no claim's stop is ever priced again.
  await keepPrices(deps, { business_id: business, batch_id: id, id: draft.prices! }, planned.plan);
  return draft;
}

/**
 * spec: business 2.3, appendix 2: the body's external_reference (else batch_reference) wins over
 * the Idempotency-Key header.
 */
function keyOf(input: BatchInput): BatchKey | null {
  const body = input.request.external_reference ?? input.request.batch_reference;
  if (body !== undefined) return { kind: "reference", value: body };
  return input.idempotencyKey === null
    ? null
    : { kind: "idempotency_key", value: input.idempotencyKey };
}

/** Books a batch, or answers the batch a retry of the same body made (`replayed`). */
export async function bookBatch(
  deps: BatchDeps,
  business: string,
  input: BatchInput,
): Promise<BookedBatch> {
  const r = input.request;
  const id = batchReference(business, keyOf(input), () => crypto.randomUUID());
  const fingerprint = fingerprintOf(input.body);
  // A claimed reference is the claim's to answer (replay or conflict), whatever has changed since;
  // a refused read (a full mailbox) is thrown, never taken as free (a new draft refused).
  const known = foundOrNull(await deps.runtime.read(batchActor, business, id, { kind: "get" }));
  const draft = known ? known.batch : await newDraft(deps, business, id, input);
  const claimed = orRefuse(
    await deps.runtime.ask(batchActor, business, id, { kind: "claim", draft, fingerprint }, {
      requestId: deps.requestId,
    }),
  );
  // The claim the hold stands on: a replay whose claim was released meanwhile claims it again.
  const funded = claimed.batch.booked_at === null
    ? await holdFunds(deps, business, claimed, fingerprint)
    : claimed;
  const batch = funded.batch;
  const trips = await bookStops(deps, business, batch, { cargo: r, fingerprint, by: input.by });
  const done = await settleBooked(deps, business, batch);
  return { batch: done, trips, replayed: funded.replayed };
}

/**
 * Books each stop of the claim `batch` as a trip, under keys derived from the batch and the stop,
 * so the request, its retry and the sweep book each stop once (a stop booked answers its trip).
 */
export async function bookStops(
  deps: BatchDeps,
  business: string,
  batch: Batch,
  o: { readonly cargo: PlanCargo; readonly fingerprint: string; readonly by: string },
): Promise<Trip[]> {
  const prices = await keptPrices(deps, business, batch);
  return await Promise.all(batch.stops.map(async (s) => {
    const booked = await bookTrip(deps, business, {
      request: stopRequest(o.cargo, s, batch),
      body: { batch: batch.id, fingerprint: o.fingerprint, stop: s.index },
      idempotencyKey: stopKey(batch.id, s.index),
      by: o.by,
      // spec: business 4.2: billed the price the batch answered, whatever the catalogue says now.
      ...(prices === null ? {} : { kept: billedStop(prices, s, batch) }),
    });
    return booked.trip;
  }));
}

/** Every stop booked: the batch is marked booked and what is left of its claim's hold freed. */
export async function settleBooked(deps: BatchDeps, business: string, batch: Batch) {
  const done = batch.booked_at !== null ? batch : orRefuse(
    await deps.runtime.ask(batchActor, business, batch.id, { kind: "booked" }, {
      requestId: deps.requestId,
    }),
  ).batch;
  // Every stop is paid: what is left of the hold (none, unless a price moved) is free again.
  await releaseHold(deps, business, holdOf(batch));
  return done;
}

/** A stop's trip now: its integer id and status; null while the stop is still being booked. */
export type StopTrips = ReadonlyMap<string, { readonly id: number; readonly status: string }>;

/** GET /business/batches/{id}: the batch and each stop's trip as it is now (the actors). */
export async function readBatch(deps: Pick<Deps, "runtime">, business: string, id: string) {
  const batch = orRefuse(await deps.runtime.read(batchActor, business, id, { kind: "get" })).batch;
  const trips = new Map<string, { id: number; status: string }>();
  await Promise.all(batch.stops.map(async (s) => {
    // A refused read is thrown (503), never shown as a stop still being booked.
    const r = foundOrNull(
      await deps.runtime.read(tripActor, business, s.trip_reference, { kind: "get" }),
    );
    if (r?.phase === "booked") {
      trips.set(s.trip_reference, { id: r.trip.id, status: r.trip.status });
    }
  }));
  return { batch, trips: trips as StopTrips };
}

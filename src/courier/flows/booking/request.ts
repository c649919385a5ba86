/**
 * Courier 4.6: a shipment booked in one call (POST /client/shipments, a bulk row, a CSV line, the
 * office's POST /business/shipments) is the price request plus the chosen service: makeOffer,
 * then bookOffer of that option. A request with an identity (an idempotency key, or its
 * client_order_reference) is bound to one offer by the booking_request actor, and so to one
 * waybill: the same request again answers the shipment it booked (already_booked) and books
 * nothing twice. A refused booking frees the identity.
 */
import {
  bookingRequestActor,
  bookingRequestId,
} from "../../../../actors/courier/booking_request.ts";
import type { CourierClient } from "../../../../actors/courier/courier_client.ts";
import { asOffer, priceOfferActor } from "../../../../actors/courier/price_offer.ts";
import { canonicalJson, hashSecret } from "../../../domain/secrets.ts";
import type { Deps } from "../../../environment.ts";
import { foundOrNull, orRefuse, Refused } from "../../../runtime/actor.ts";
import { newOfferReference } from "../waybills.ts";
import { bookOffer } from "./book.ts";
import { withdrawBooking, withdrawStopped } from "./fence.ts";
import { type Caller, conflict, inProgress, releaseStale, shipmentOf } from "./request_identity.ts";
import { makeOffer, type PriceInput } from "./offer.ts";
import type { Booked } from "./replay.ts";

export type { Caller } from "./request_identity.ts";

type BookingDeps = Pick<Deps, "runtime" | "clock" | "db" | "requestId">;

/**
 * A request bookRequest books (courier 2.1 plus the booking fields of 4.1): a client's always
 * names its service; the office's may leave it out, and then books the cheapest option of its
 * prices (POST /business/shipments).
 */
export interface BookingRequest extends PriceInput {
  readonly service_level?: string | undefined;
  readonly dangerous_goods_confirmed: boolean;
  readonly idempotency_key?: string | undefined;
}

/**
 * A request's identity, first that applies: its own idempotency key; its client_order_reference
 * when the client books each external reference once; `derived` (from the request's
 * Idempotency-Key header: a bulk row's index, a CSV line's content). None: the request books
 * each time it is sent.
 */
export function identityOf(
  req: BookingRequest,
  derived: string | null,
  client: CourierClient,
): string | null {
  if (req.idempotency_key) return `key:${req.idempotency_key}`;
  // spec: courier 7: a repeated reference is a duplicate order only under
  // unique_external_reference; otherwise it is a searchable reference, and may repeat.
  if (req.client_order_reference && client.settings.unique_external_reference) {
    return `order:${req.client_order_reference}`;
  }
  return derived;
}

/**
 * The identity of a request booked in one call that may carry the `Idempotency-Key` header: the
 * header stands for the body's idempotency_key, never over it (business appendix 2: a body
 * reference wins over the header, as a bulk row's key wins over the call's), so a retry sent
 * under a new header still finds what the body's key booked.
 */
export function oneCallIdentity(
  req: BookingRequest,
  header: string | null,
  client: CourierClient,
): string | null {
  if (header === null || req.idempotency_key) return identityOf(req, null, client);
  return `key:${header}`;
}

/**
 * The identity a request booked in one call had before the body's idempotency_key won over the
 * header (oneCallIdentity): the header's, when the body names another key. Null: the same now.
 */
export function formerOneCallIdentity(req: BookingRequest, header: string | null): string | null {
  if (header === null || !req.idempotency_key || req.idempotency_key === header) return null;
  return `key:${header}`;
}

/** An identity and whose it is, as bookRequest takes them. */
export interface NamedIdentity {
  readonly identity: string;
  readonly owner: string;
}

/**
 * Books one request; the same identity again answers the shipment it booked. `owner` is whose
 * identity it is: the client's own (its keys, its order references), or the courier's for an
 * office's key (POST /business/shipments), which names one request whatever client it books for.
 */
export async function bookRequest(
  deps: BookingDeps,
  caller: Caller,
  req: BookingRequest,
  identity: string | null,
  owner: string = caller.clientId,
  former: NamedIdentity | null = null,
): Promise<Booked> {
  if (identity === null) return await bookUnnamed(deps, caller, req);
  // spec: courier 4.1: the same request again books nothing new, also when it was booked under
  // the identity it had before (formerOneCallIdentity): that booking answers it.
  if (former !== null && await boundTo(deps, caller, req, former)) {
    return await bookRequest(deps, caller, req, former.identity, former.owner);
  }
  const id = bookingRequestId(owner, identity);
  const fingerprint = await requestFingerprint(caller, req, owner);
  for (let attempt = 0;; attempt++) {
    const begun = await deps.runtime.ask(bookingRequestActor, caller.courierId, id, {
      kind: "begin",
      reference: await newOfferReference(deps.runtime, "prices"),
      fingerprint,
    }, { requestId: deps.requestId });
    if (!begun.ok) {
      // Another request holds the identity; an attempt of it that can no longer book gives way.
      if (attempt === 0 && await releaseStale(deps, caller, id, begun)) continue;
      throw await conflict(deps.runtime, caller, identity, begun);
    }
    const bound = { id, identity, attempt, ...begun.reply! };
    const booked = await bookBound(deps, caller, req, bound);
    if (booked !== "again") return booked;
  }
}

/**
 * spec: courier 4.1, 7: the same key with another request (here: for another client) is
 * refused, never booked as a second shipment: the fingerprint names the client when the
 * identity is not the client's own.
 */
async function requestFingerprint(caller: Caller, req: BookingRequest, owner: string) {
  return await fingerprintOf(
    owner === caller.clientId ? req : { ...req, courier_client_id: caller.clientId },
  );
}

/** Whether `named` holds this very request (bound, with its fingerprint). */
async function boundTo(
  deps: BookingDeps,
  caller: Caller,
  req: BookingRequest,
  named: NamedIdentity,
): Promise<boolean> {
  const id = bookingRequestId(named.owner, named.identity);
  const got = foundOrNull(
    await deps.runtime.read(bookingRequestActor, caller.courierId, id, { kind: "get" }),
  );
  return got?.fingerprint === await requestFingerprint(caller, req, named.owner);
}

/**
 * Priced and booked in one call, the caller saw no dates: prices the cut-off overtook between
 * the two steps are priced again, once.
 */
async function bookUnnamed(deps: BookingDeps, caller: Caller, req: BookingRequest) {
  for (let attempt = 0;; attempt++) {
    const offer = await makeOffer(deps, caller.client, req, { kind: "prices" });
    try {
      return await book(deps, caller, req, offer.reference);
    } catch (e) {
      if (attempt === 0 && isRefusal(e) && e.rejection.code === "prices_expired") continue;
      throw e;
    }
  }
}

/** An identity bound to the offer `reference` by one attempt (`resumed`: bound before). */
interface Bound {
  readonly id: string;
  readonly identity: string;
  readonly attempt: number;
  readonly reference: string;
  readonly resumed: boolean;
}

/** One attempt of a named request on the offer its identity is bound to; "again": begin anew. */
async function bookBound(
  deps: BookingDeps,
  caller: Caller,
  req: BookingRequest,
  bound: Bound,
): Promise<Booked | "again"> {
  const { reference, resumed } = bound;
  try {
    if (resumed) {
      const made = await shipmentOf(deps.runtime, caller, reference);
      if (made) return { shipment: made, already_booked: true };
    }
    if (!await ensureOffer(deps, caller, req, reference, resumed)) {
      // Its reference was voided: this attempt stalled before its offer and the identity went
      // to another request (releaseStale). Begun again, it answers what that request holds.
      if (bound.attempt === 0) return "again";
      throw inProgress(bound.identity);
    }
    return await book(deps, caller, req, reference);
  } catch (e) {
    if (!isRefusal(e)) throw e;
    return await afterRefusal(deps, caller, req, bound, e);
  }
}

/**
 * A refused attempt frees its identity, unless its prices may still be charged. spec: courier
 * 4.1: the same request again books nothing new. Expired prices may still be charged by another
 * attempt of the request that checked them in time (a first attempt, or a retry that resumed
 * them) and stalled for any length: priced again, the request would be booked and charged
 * twice. So their charge is withdrawn before the identity is freed: at once when this attempt
 * bound them, once their attempt looks stopped when it resumed them (at once too when their
 * charge is already withdrawn: withdrawStopped). Charged just before, their booking is the answer.
 */
async function afterRefusal(
  deps: BookingDeps,
  caller: Caller,
  req: BookingRequest,
  bound: Bound,
  e: Refused,
): Promise<Booked | "again"> {
  const { reference, attempt } = bound;
  const expired = e.rejection.code === "prices_expired";
  if (expired) {
    const withdrawal = bound.resumed
      ? await withdrawStopped(deps, caller.courierId, reference)
      : await withdrawBooking(deps.runtime, caller.courierId, reference);
    if (withdrawal === "on_its_way") throw inProgress(bound.identity);
    if (withdrawal === "charged") {
      return { ...await book(deps, caller, req, reference), already_booked: true };
    }
  }
  const freed = await deps.runtime.ask(bookingRequestActor, caller.courierId, bound.id, {
    kind: "release",
    reference,
  }, { requestId: deps.requestId });
  // spec: courier 4.1: another attempt of the request took its identity over meanwhile (its
  // prices expired, withdrawStopped) and bound it to new prices: this attempt's refusal (a
  // claim of its reference the other holds: duplicate_order; its charge withdrawn, after which
  // the claim is the other's or the prices are expired) is not the request's answer. Begun
  // again, it answers the booking the identity holds, or that it is in progress. So whichever
  // attempt this is: one that priced again (its first prices expired) is as late as the first.
  if (freed.ok && freed.reply?.reference !== undefined) return beginAgain(bound);
  // A retry found its first attempt's prices expired unbooked, or the cut-off overtook this
  // call's own prices (never shown to the caller): price it again, once.
  if (expired && attempt === 0) return "again";
  throw e;
}

/**
 * Attempts of one call at most: its first, one priced again (its prices expired, or its
 * reference voided), and those that answer what another attempt of the request bound its
 * identity to meanwhile. An identity moved on at every attempt is being booked by others.
 */
const ATTEMPTS_PER_CALL_MAX = 4;

/** "again" for one more attempt of the call, while it has one left. */
function beginAgain(bound: Bound): "again" {
  if (bound.attempt + 1 >= ATTEMPTS_PER_CALL_MAX) throw inProgress(bound.identity);
  return "again";
}

async function book(deps: BookingDeps, caller: Caller, req: BookingRequest, reference: string) {
  return await bookOffer(deps, {
    courierId: caller.courierId,
    clientId: caller.clientId,
    reference,
    serviceLevel: req.service_level ?? await cheapestOf(deps, caller, reference),
    dangerousGoodsConfirmed: req.dangerous_goods_confirmed,
    by: caller.by,
  });
}

/** The code of the cheapest option of the offer `reference` (first of equals, as offered). */
async function cheapestOf(deps: BookingDeps, caller: Caller, reference: string): Promise<string> {
  const offer = asOffer(orRefuse(
    await deps.runtime.read(priceOfferActor, caller.courierId, reference, { kind: "get" }),
  ));
  return [...offer.options].sort((a, b) => a.total_minor - b.total_minor)[0]!.code;
}

/**
 * The offer of a bound reference: made now unless a retry (or a twin in flight) made it. False
 * when the reference was voided (stoppedBeforeOffer): it can never have an offer.
 */
async function ensureOffer(
  deps: BookingDeps,
  caller: Caller,
  req: BookingRequest,
  reference: string,
  resumed: boolean,
): Promise<boolean> {
  const exists = async () =>
    (await deps.runtime.read(priceOfferActor, caller.courierId, reference, { kind: "get" })).ok;
  if (resumed && await exists()) return true;
  try {
    await makeOffer(deps, caller.client, req, { kind: "prices", reference });
  } catch (e) {
    if (!(e instanceof Refused && e.rejection.code === "already_exists")) throw e;
    // Made by a twin, or voided: a voided offer reads as none.
    return await exists();
  }
  return true;
}

/**
 * Codes that decide nothing (answered 5xx: an actor too busy to take the command, a ledger
 * catching up): the step may yet run, so they are failures, not refusals.
 */
const UNDECIDED = new Set(["actor_busy", "ledger_catching_up", "internal_error"]);

/** A refusal leaves nothing booked, so the identity is freed; a failure may not have. */
function isRefusal(e: unknown): e is Refused {
  if (!(e instanceof Refused)) return false;
  const code = e.rejection.code;
  return !UNDECIDED.has(code) && code !== "reference_conflict";
}

/** SHA-256 of the request with its keys sorted (the idempotency key itself left out). */
export async function fingerprintOf(
  req: BookingRequest & { readonly courier_client_id?: string },
): Promise<string> {
  const { idempotency_key: _k, ...rest } = req;
  return await hashSecret(canonicalJson(rest));
}

/**
 * Courier 4.6: a shipment booked in one call (POST /client/shipments, a bulk row, a CSV line) is
 * the price request plus the chosen service: makeOffer, then bookOffer of that option. A request
 * with an identity (an idempotency key, or its client_order_reference) is bound to one offer by
 * the booking_request actor, and so to one waybill: the same request again answers the shipment
 * it booked (already_booked) and books nothing twice. A refused booking frees the identity.
 */
import type { Context } from "hono";
import { bookingRequestActor, bookingRequestId } from "../../actors/courier/booking_request.ts";
import type { CourierClient } from "../../actors/courier/courier_client.ts";
import { asOffer, priceOfferActor } from "../../actors/courier/price_offer.ts";
import { asShipment, shipmentActor } from "../../actors/courier/shipment.ts";
import { canonicalJson, hashSecret } from "../../src/domain/secrets.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, asApiError, fromRejection } from "../../src/http/errors.ts";
import { z } from "../../src/http/route.ts";
import type { Rejection } from "../../src/runtime/actor.ts";
import { newOfferReference } from "../../src/courier/flows/waybills.ts";
import { BOOKING_ROWS_CONCURRENCY } from "../../src/limits.ts";
import { read } from "../../src/http/ask.ts";
import {
  type Booked,
  BOOKING_REFUSALS,
  bookOffer,
  makeOffer,
  OFFER_REFUSALS,
  PriceRequest,
  waybillOf,
  withdrawBooking,
  withdrawStopped,
} from "../../src/courier/flows/booking.ts";

const IdempotencyKey = z.string().trim().min(1).max(120);

/**
 * A request that bound its identity this long ago and has made no offer has stopped: making the
 * offer is its very next step, milliseconds later even under load.
 */
const STALLED_BEFORE_OFFER_MS = 2 * 60_000;

/** spec: courier 2.1 plus the booking fields of 4.1; one shipment of POST /client/shipments. */
export const ShipmentRequest = PriceRequest.extend({
  service_level: z.string().trim().min(1).max(64),
  dangerous_goods_confirmed: z.boolean().default(false),
  idempotency_key: IdempotencyKey.optional(),
}).openapi("ShipmentRequest");

export type ShipmentRequestBody = z.infer<typeof ShipmentRequest>;

/**
 * A request bookRequest books: a client's always names its service; the office's may leave it
 * out, and then books the cheapest option of its prices (POST /business/shipments).
 */
export type BookingRequestBody = Omit<ShipmentRequestBody, "service_level"> & {
  readonly service_level?: string | undefined;
};

/**
 * What booking a request in one call can refuse: pricing's and booking's refusals, and those of
 * its identity (bookRequest).
 */
export const REQUEST_REFUSALS = {
  ...OFFER_REFUSALS,
  ...BOOKING_REFUSALS,
  validation_failed: `${OFFER_REFUSALS.validation_failed}; ${BOOKING_REFUSALS.validation_failed}`,
  duplicate_order: `${BOOKING_REFUSALS.duplicate_order}, or booked before with other details`,
  request_in_progress: "another request with this idempotency key or client_order_reference is " +
    "being booked; retry shortly",
  idempotency_key_reused: "the idempotency key was sent before with another request",
} as const;

/** The calling client, as every booking of a request needs it. */
export interface Caller {
  readonly courierId: string;
  readonly clientId: string;
  readonly client: CourierClient;
  /** Who booked (audit). */
  readonly by: string;
}

/** What the OpenAPI document says of replays on the routes that price and book in one call. */
export const ONE_CALL_BOOKING_DOCS = {
  replay:
    "The same Idempotency-Key or idempotency_key, or client_order_reference under unique_external_reference",
  idempotencyKey: "Books once per key: the same request again answers 200 `already_booked: " +
    "true`; the same key with other details answers 409",
} as const;

/** The `Idempotency-Key` header, checked like the body field. */
export function idempotencyHeader(c: Context<AppEnv>): string | null {
  const raw = c.req.header("Idempotency-Key");
  if (raw === undefined) return null;
  const parsed = IdempotencyKey.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError(
      "validation_failed",
      "invalid request: Idempotency-Key: 1 to 120 characters",
      { errors: [{ path: "Idempotency-Key", message: "1 to 120 characters" }] },
    );
  }
  return parsed.data;
}

/**
 * A request's identity, first that applies: its own idempotency key; its client_order_reference
 * when the client books each external reference once; `derived` (from the request's
 * Idempotency-Key header: a bulk row's index, a CSV line's content). None: the request books
 * each time it is sent.
 */
export function identityOf(
  req: BookingRequestBody,
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
 * Books one request; the same identity again answers the shipment it booked. `owner` is whose
 * identity it is: the client's own (its keys, its order references), or the courier's for an
 * office's key (POST /business/shipments), which names one request whatever client it books for.
 */
export async function bookRequest(
  c: Context<AppEnv>,
  caller: Caller,
  req: BookingRequestBody,
  identity: string | null,
  owner: string = caller.clientId,
): Promise<Booked> {
  if (identity === null) {
    // Priced and booked in one call, the caller saw no dates: prices the cut-off overtook between
    // the two steps are priced again, once.
    for (let attempt = 0;; attempt++) {
      const offer = await makeOffer(c, caller.client, req, "prices");
      try {
        return await book(c, caller, req, offer.reference);
      } catch (e) {
        if (attempt === 0 && isRefusal(e) && e.code === "prices_expired") continue;
        throw e;
      }
    }
  }
  const runtime = c.get("env").runtime;
  const id = bookingRequestId(owner, identity);
  // spec: courier 4.1, 7: the same key with another request (here: for another client) is
  // refused, never booked as a second shipment.
  const fingerprint = await fingerprintOf(
    owner === caller.clientId ? req : { ...req, courier_client_id: caller.clientId },
  );
  for (let attempt = 0;; attempt++) {
    const begun = await runtime.ask(bookingRequestActor, caller.courierId, id, {
      kind: "begin",
      reference: await newOfferReference(runtime, "prices"),
      fingerprint,
    });
    if (!begun.ok) {
      // Another request holds the identity; an attempt of it that can no longer book gives way.
      if (attempt === 0 && await releaseStale(c, caller, id, begun)) continue;
      throw await conflict(c, caller, identity, begun);
    }
    const { reference, resumed } = begun.reply!;
    try {
      if (resumed) {
        const made = await shipmentOf(c, caller, reference);
        if (made) return { shipment: made, already_booked: true };
      }
      if (!await ensureOffer(c, caller, req, reference, resumed)) {
        // Its reference was voided: this attempt stalled before its offer and the identity went
        // to another request (releaseStale). Begun again, it answers what that request holds.
        if (attempt === 0) continue;
        throw inProgress(identity);
      }
      return await book(c, caller, req, reference);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      // spec: courier 4.1: the same request again books nothing new. Expired prices may still be
      // charged by another attempt of the request that checked them in time (a first attempt, or
      // a retry that resumed them) and stalled for any length: priced again, the request would be
      // booked and charged twice. So their charge is withdrawn before the identity is freed: at
      // once when this attempt bound them, once their attempt looks stopped when it resumed them
      // (at once too when their charge is already withdrawn: withdrawStopped). Charged just
      // before, their booking is the answer.
      if (e.code === "prices_expired") {
        const withdrawal = resumed
          ? await withdrawStopped(c, caller.courierId, reference)
          : await withdrawBooking(c, caller.courierId, reference);
        if (withdrawal === "on_its_way") throw inProgress(identity);
        if (withdrawal === "charged") {
          return { ...await book(c, caller, req, reference), already_booked: true };
        }
      }
      const freed = await runtime.ask(bookingRequestActor, caller.courierId, id, {
        kind: "release",
        reference,
      });
      // spec: courier 4.1: another attempt of the request took its identity over meanwhile (its
      // prices expired, withdrawStopped) and bound it to new prices: this attempt's refusal (a
      // claim of its reference the other holds: duplicate_order) is not the request's answer.
      // Begun again, it answers the booking the identity holds, or that it is in progress.
      if (attempt === 0 && freed.ok && freed.reply?.reference !== undefined) continue;
      // A retry found its first attempt's prices expired unbooked, or the cut-off overtook this
      // call's own prices (never shown to the caller): price it again, once.
      if (e.code === "prices_expired" && attempt === 0) continue;
      throw e;
    }
  }
}

/**
 * Books rows with bounded concurrency; each answers its booking or its refusal, in order. Rows
 * that share an identity book one after another, in row order: booked side by side, a later one
 * would find the first still in flight and answer request_in_progress, or duplicate_order, by
 * chance (spec: courier 7: a repeated reference is a duplicate order, every time).
 */
export async function bookRows(
  c: Context<AppEnv>,
  caller: Caller,
  rows: readonly { readonly req: ShipmentRequestBody; readonly identity: string | null }[],
): Promise<(Booked | ApiError)[]> {
  const out = new Array<Booked | ApiError>(rows.length);
  const chains = chainsOf(rows);
  let next = 0;
  const worker = async () => {
    while (next < chains.length) {
      for (const i of chains[next++]!) {
        const row = rows[i]!;
        try {
          out[i] = await bookRequest(c, caller, row.req, row.identity);
        } catch (e) {
          out[i] = asRowError(c, e);
        }
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(BOOKING_ROWS_CONCURRENCY, chains.length) }, worker),
  );
  return out;
}

/**
 * Row indexes grouped by what names them, in row order: its identity, and its
 * client_order_reference (rows with their own keys may still repeat an order reference, a
 * duplicate order under unique_external_reference). A row named by nothing is alone.
 */
function chainsOf(
  rows: readonly { readonly req: ShipmentRequestBody; readonly identity: string | null }[],
): number[][] {
  const chains: number[][] = [];
  const byName = new Map<string, number[]>();
  for (const [i, { req, identity }] of rows.entries()) {
    const reference = req.client_order_reference;
    const names = [identity, reference ? `order:${reference}` : null].filter((n) => n !== null);
    const found = [...new Set(names.map((n) => byName.get(n)).filter((x) => x !== undefined))];
    const chain = found[0] ?? [];
    if (found.length === 0) chains.push(chain);
    chain.push(i);
    // A row naming two chains joins them, in row order (rare: one chain's key, another's order).
    for (const other of found.slice(1)) {
      chain.push(...other.splice(0));
      for (const [name, c] of byName) if (c === other) byName.set(name, chain);
    }
    chain.sort((a, b) => a - b);
    for (const n of names) byName.set(n, chain);
  }
  return chains.filter((c) => c.length > 0);
}

/** A row's failure as its answer: refusals as they are, anything else without internals. */
function asRowError(c: Context<AppEnv>, e: unknown): ApiError {
  const refused = asApiError(e);
  if (refused) return refused;
  const requestId = c.get("requestId");
  console.error(`request ${requestId}: a booking row failed:`, e);
  return new ApiError("internal_error", `internal error; request id: ${requestId}`);
}

async function book(
  c: Context<AppEnv>,
  caller: Caller,
  req: BookingRequestBody,
  reference: string,
) {
  return await bookOffer(c, {
    courierId: caller.courierId,
    clientId: caller.clientId,
    reference,
    serviceLevel: req.service_level ?? await cheapestOf(c, caller, reference),
    dangerousGoodsConfirmed: req.dangerous_goods_confirmed,
    by: caller.by,
  });
}

/** The code of the cheapest option of the offer `reference` (first of equals, as offered). */
async function cheapestOf(c: Context<AppEnv>, caller: Caller, reference: string): Promise<string> {
  const offer = asOffer(
    await read(c, priceOfferActor, caller.courierId, reference, { kind: "get" }),
  );
  return [...offer.options].sort((a, b) => a.total_minor - b.total_minor)[0]!.code;
}

/**
 * The offer of a bound reference: made now unless a retry (or a twin in flight) made it. False
 * when the reference was voided (stoppedBeforeOffer): it can never have an offer.
 */
async function ensureOffer(
  c: Context<AppEnv>,
  caller: Caller,
  req: BookingRequestBody,
  reference: string,
  resumed: boolean,
): Promise<boolean> {
  const exists = async () =>
    (await c.get("env").runtime.read(priceOfferActor, caller.courierId, reference, {
      kind: "get",
    })).ok;
  if (resumed && await exists()) return true;
  try {
    await makeOffer(c, caller.client, req, "prices", { reference });
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "already_exists")) throw e;
    // Made by a twin, or voided: a voided offer reads as none.
    return await exists();
  }
  return true;
}

async function shipmentOf(c: Context<AppEnv>, caller: Caller, reference: string) {
  const waybill = waybillOf(caller.courierId, reference);
  const got = await c.get("env").runtime.read(shipmentActor, caller.courierId, waybill, {
    kind: "get",
  });
  return got.ok ? asShipment(got.reply) : null;
}

/** A refusal leaves nothing booked, so the identity is freed; a failure may not have. */
function isRefusal(e: unknown): e is ApiError {
  return e instanceof ApiError && e.status < 500 && e.code !== "reference_conflict";
}

/**
 * Frees an identity whose other request booked nothing and whose prices expired. One charged
 * before a crash keeps it (nothing is ever lost: its retry completes the booking the charge
 * stands for; freed, the charge would be left with no shipment and no request to complete it).
 */
async function releaseStale(
  c: Context<AppEnv>,
  caller: Caller,
  id: string,
  refused: Rejection,
): Promise<boolean> {
  const held = refused.details?.reference;
  if (typeof held !== "string") return false;
  // Its charge withdrawn first (withdrawStopped), an attempt of it waking later charges nothing.
  if (
    await withdrawStopped(c, caller.courierId, held) !== "withdrawn" &&
    !await stoppedBeforeOffer(c, caller.courierId, held, refused.details?.begun_at)
  ) return false;
  const runtime = c.get("env").runtime;
  await runtime.ask(bookingRequestActor, caller.courierId, id, {
    kind: "release",
    reference: held,
  });
  return true;
}

/**
 * Whether the request bound `begun_at` stopped for good before making its offer: it is long past
 * the moment it would have made one, and its reference is voided here, so that an attempt of it
 * waking later can neither make nor book an offer under it (nothing is booked twice under one
 * identity). A request still under way, or one whose offer exists, keeps its identity.
 */
async function stoppedBeforeOffer(
  c: Context<AppEnv>,
  courierId: string,
  reference: string,
  begunAt: unknown,
): Promise<boolean> {
  const env = c.get("env");
  if (typeof begunAt !== "number" || env.clock.now() - begunAt <= STALLED_BEFORE_OFFER_MS) {
    return false;
  }
  return (await env.runtime.ask(priceOfferActor, courierId, reference, { kind: "void" })).ok;
}

/** The same identity with another request: the booking it made, or the one still in flight. */
async function conflict(
  c: Context<AppEnv>,
  caller: Caller,
  identity: string,
  refused: Rejection,
): Promise<ApiError> {
  const held = refused.details?.reference;
  if (typeof held !== "string") return fromRejection(refused);
  const waybill = waybillOf(caller.courierId, held);
  if (!(await shipmentOf(c, caller, held))) return inProgress(identity);
  // spec: courier 7: a repeated client reference with other details is a duplicate order.
  return identity.startsWith("order:")
    ? new ApiError(
      "duplicate_order",
      `client_order_reference already booked with other details: ${waybill}`,
      { waybill },
    )
    : new ApiError(
      "idempotency_key_reused",
      `${identityName(identity)} already used for another request, booked as: ${waybill}`,
      { waybill },
    );
}

function inProgress(identity: string): ApiError {
  return new ApiError(
    "request_in_progress",
    `another request with this ${identityName(identity)} is being booked; retry shortly`,
  );
}

function identityName(identity: string): string {
  return identity.startsWith("order:") ? "client_order_reference" : "idempotency key";
}

/** SHA-256 of the request with its keys sorted (the idempotency key itself left out). */
export async function fingerprintOf(
  req: BookingRequestBody & { readonly courier_client_id?: string },
): Promise<string> {
  const { idempotency_key: _k, ...rest } = req;
  return await hashSecret(canonicalJson(rest));
}

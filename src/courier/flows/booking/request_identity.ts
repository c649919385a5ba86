/**
 * Courier 4.1, 4.6, 7: a request's identity held by another attempt or another request: given
 * way when that attempt can no longer book, else answered as what holds it (the booking it
 * made, or that it is in progress).
 */
import { bookingRequestActor } from "../../../../actors/courier/booking_request.ts";
import { priceOfferActor } from "../../../../actors/courier/price_offer.ts";
import {
  asShipment,
  type Shipment,
  shipmentActor,
} from "../../../../actors/courier/shipment/mod.ts";
import type { Deps } from "../../../environment.ts";
import { foundOrNull, Refused, reject, type Rejection } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { waybillOf } from "../../rules/waybill.ts";
import type { CourierClient } from "../../../../actors/courier/courier_client.ts";
import { withdrawStopped } from "./fence.ts";

/** The calling client, as every booking of a request needs it. */
export interface Caller {
  readonly courierId: string;
  readonly clientId: string;
  readonly client: CourierClient;
  /** Who booked (audit). */
  readonly by: string;
}

/**
 * A request that bound its identity this long ago and has made no offer has stopped: making the
 * offer is its very next step, milliseconds later even under load.
 */
const STALLED_BEFORE_OFFER_MS = 2 * 60_000;

/** The shipment the offer `reference` booked, if any. */
export async function shipmentOf(
  runtime: ActorRuntime,
  caller: Pick<Caller, "courierId">,
  reference: string,
): Promise<Shipment | null> {
  const waybill = waybillOf(caller.courierId, reference);
  const got = foundOrNull(
    await runtime.read(shipmentActor, caller.courierId, waybill, { kind: "get" }),
  );
  return got ? asShipment(got) : null;
}

/**
 * Frees an identity whose other request booked nothing and whose prices expired. One charged
 * before a crash keeps it (nothing is ever lost: its retry completes the booking the charge
 * stands for; freed, the charge would be left with no shipment and no request to complete it).
 */
export async function releaseStale(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  caller: Pick<Caller, "courierId">,
  id: string,
  refused: Rejection,
): Promise<boolean> {
  const held = refused.details?.reference;
  if (typeof held !== "string") return false;
  // Its charge withdrawn first (withdrawStopped), an attempt of it waking later charges nothing.
  if (
    await withdrawStopped(deps, caller.courierId, held) !== "withdrawn" &&
    !await stoppedBeforeOffer(deps, caller.courierId, held, refused.details?.begun_at)
  ) return false;
  await deps.runtime.ask(bookingRequestActor, caller.courierId, id, {
    kind: "release",
    reference: held,
  }, { requestId: deps.requestId });
  return true;
}

/**
 * Whether the request bound `begun_at` stopped for good before making its offer: it is long past
 * the moment it would have made one, and its reference is voided here, so that an attempt of it
 * waking later can neither make nor book an offer under it (nothing is booked twice under one
 * identity). A request still under way, or one whose offer exists, keeps its identity.
 */
async function stoppedBeforeOffer(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  courierId: string,
  reference: string,
  begunAt: unknown,
): Promise<boolean> {
  if (typeof begunAt !== "number" || deps.clock.now() - begunAt <= STALLED_BEFORE_OFFER_MS) {
    return false;
  }
  return (await deps.runtime.ask(priceOfferActor, courierId, reference, { kind: "void" }, {
    requestId: deps.requestId,
  })).ok;
}

/** The same identity with another request: the booking it made, or the one still in flight. */
export async function conflict(
  runtime: ActorRuntime,
  caller: Pick<Caller, "courierId">,
  identity: string,
  refused: Rejection,
): Promise<Refused> {
  const held = refused.details?.reference;
  if (typeof held !== "string") return new Refused(refused);
  const waybill = waybillOf(caller.courierId, held);
  if (!(await shipmentOf(runtime, caller, held))) return inProgress(identity);
  // spec: courier 7: a repeated client reference with other details is a duplicate order.
  return new Refused(
    identity.startsWith("order:")
      ? reject(
        "duplicate_order",
        `client_order_reference already booked with other details: ${waybill}`,
        { waybill },
      )
      : reject(
        "idempotency_key_reused",
        `${identityName(identity)} already used for another request, booked as: ${waybill}`,
        { waybill },
      ),
  );
}

/** Another attempt of the request holds its identity and may still book. */
/**
 * spec: business 7 (where request_in_progress is defined, with Retry-After): the seconds an
 * answer of it says to wait; the first attempt is usually done well within them.
 */
export const REQUEST_RETRY_AFTER_SECONDS = 5;

export function inProgress(identity: string): Refused {
  return new Refused(reject(
    "request_in_progress",
    `another request with this ${identityName(identity)} is being booked; retry shortly`,
  ));
}

function identityName(identity: string): string {
  return identity.startsWith("order:") ? "client_order_reference" : "idempotency key";
}

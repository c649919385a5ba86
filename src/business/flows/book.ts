/**
 * POST /business/book (Business API 2.1, 3.1, 3.2, 7, appendix): checks what spans fields, prices
 * the trip with the fare estimate's calculator, claims the booking's reference (the trip actor:
 * replay, conflict or in progress), then numbers, charges and creates it (complete_booking.ts).
 */
import {
  type Claim,
  type ClaimGate,
  type KeyKind,
  type Trip,
  tripActor,
  type TripBatch,
  type TripDraft,
} from "../../../actors/business/trip/mod.ts";
import type { Business } from "../../../actors/platform/business/types.ts";
import type { Deps } from "../../environment.ts";
import { toMinor } from "../../domain/money.ts";
import { newSecret } from "../../domain/secrets.ts";
import { invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { raiseAlert } from "../../courier/flows/alerts.ts";
import {
  bookingFingerprint,
  bookingReference,
  bookingTexts,
  type DestAddressField,
  destAddressField,
  etaMinutes,
  fingerprintOf,
  inexactAmounts,
  type MarkedText,
  testMarked,
} from "../rules/booking.ts";
import type { BodyType, CapacityClass } from "../rules/catalogue.ts";
import { type Fare, priceTrip, type TripPrice } from "../rules/fare.ts";
import { type GoodsLine, type VehicleFields, vehicleFields } from "../rules/vehicle.ts";
import { catalogueOf } from "./fares.ts";
import { scheduleOrRefuse } from "./booking_checks.ts";
import { locatePlaces } from "./geocode.ts";
import { completeBooking, type CompleteDeps } from "./complete_booking.ts";
import { autopilotAtBooking, startAutopilot } from "./sandbox_autopilot.ts";
import type { AutopilotScenario, BookedAutopilot } from "../rules/sandbox_steps.ts";

/** A place as sent: without coordinates it is geocoded (spec: business 2.1, 4.1 geocode). */
export interface PlaceInput {
  readonly address: string;
  readonly lat?: number | undefined;
  readonly lng?: number | undefined;
}

/** A place on the map. */
export interface Place {
  readonly address: string;
  readonly lat: number;
  readonly lng: number;
}

/** The test flags of 2.1, also taken by a batch (2.3) and a subscription (4.2). */
export interface TestFlags {
  readonly test?: boolean | undefined;
  readonly dry_run?: boolean | undefined;
}

/** The booking body of 2.1 as the route parsed it (field shapes and ranges checked). */
export interface BookingRequest extends TestFlags {
  readonly type: "ride" | "parcel";
  readonly segment?: "parcel" | "cargo" | undefined;
  readonly passenger_name?: string | undefined;
  readonly passenger_phone?: string | undefined;
  readonly pickup: PlaceInput;
  readonly dest: PlaceInput;
  /** The field the destination's address came in (refusals name it); else the type's own. */
  readonly dest_field?: DestAddressField | undefined;
  readonly stops?: readonly PlaceInput[] | undefined;
  readonly expense_code?: string | undefined;
  readonly vehicle_type_id?: number | undefined;
  readonly external_reference?: string | undefined;
  readonly scheduled_at?: string | undefined;
  readonly prep_minutes?: number | undefined;
  readonly handover_required?: boolean | undefined;
  readonly order_payload?: Readonly<Record<string, unknown>> | undefined;
  readonly item_names?: readonly string[] | undefined;
  /**
   * The texts a test marker is looked for in (business 7 test_booking_refused), each named by
   * its path in the caller's own body (a shopping order's names, items and notes); absent: the
   * fields of this request (bookingTexts: names, items, addresses, note).
   */
  readonly marked_texts?: readonly MarkedText[] | undefined;
  readonly note?: string | undefined;
  readonly cod_amount?: number | undefined;
  readonly shop_deliver?: boolean | undefined;
  readonly delivery_code?: string | undefined;
  readonly age_verification_required?: boolean | undefined;
  readonly parcel_weight_kg?: number | undefined;
  readonly parcel_size?: string | undefined;
  readonly cargo_body_type?: BodyType | undefined;
  readonly cargo_capacity_class?: CapacityClass | undefined;
  readonly goods?: readonly GoodsLine[] | undefined;
  readonly sandbox_scenario?: AutopilotScenario | undefined;
  /** The batch this booking is a stop of (spec: business 2.3), set by the batch's flow. */
  readonly batch?: TripBatch | undefined;
}

/** The request with every place on the map. */
export type LocatedRequest = BookingRequest & {
  readonly pickup: Place;
  readonly dest: Place;
  readonly stops: readonly Place[];
};

export interface BookingInput {
  readonly request: BookingRequest;
  /** The body as sent: its fingerprint tells a retry from other details. */
  readonly body: unknown;
  readonly idempotencyKey: string | null;
  readonly by: string;
  /** What the booking books for: its trip's claim charges only once that let it through. */
  readonly gate?: ClaimGate;
  /** spec: business 4.1 checkouts: the route and price a checkout held; billed as held. */
  readonly held?: {
    readonly price: TripPrice;
    readonly pickup: Place;
    readonly stops: readonly Place[];
    readonly dest: Place;
  };
  /**
   * spec: business 2.3, 4.2: a batch's stop, booked and billed at the price its batch answered
   * (batch_prices.ts), not priced again.
   */
  readonly kept?: Billed;
}

/** What a trip is carried in and billed (spec: business 2.2 vehicle fields, billing_amount). */
export interface Billed {
  readonly vehicle: VehicleFields;
  readonly fare: Pick<Fare, "amount_minor" | "currency" | "lines" | "distance_m">;
}

function billedOf(p: TripPrice): Billed {
  return { vehicle: vehicleFields(p.resolution), fare: p.fare };
}

export interface Booked {
  readonly trip: Trip;
  readonly replayed: boolean;
}

/**
 * spec: business 7: "422 test_mode_moved_to_sandbox | test, dry_run or X-Service-Test: true on
 * live" (the header is refused for every request in src/http/app.ts). Called on live only.
 */
export function refuseTestFlags(r: TestFlags): void {
  if (r.test || r.dry_run) {
    refuse(
      "test_mode_moved_to_sandbox",
      "test and dry_run are refused on live: book in the sandbox",
    );
  }
}

/** spec: business 7, 9.3: live refuses test flags and test markers; the sandbox ignores them. */
export async function refuseTestTraffic(
  deps: Pick<Deps, "runtime">,
  business: string,
  r: BookingRequest,
) {
  refuseTestFlags(r);
  if (r.sandbox_scenario !== undefined) {
    refuse(
      "test_mode_moved_to_sandbox",
      "sandbox_scenario is refused on live: book in the sandbox",
    );
  }
  const marked = testMarked(r.marked_texts ?? bookingTexts(r));
  if (!marked) return;
  const message = `test booking refused on live: ${marked.path} starts with ${marked.marker}`;
  // spec: business 7: "operations is alerted", once per distinct booking of this business. An
  // alert's id is one across tenants (src/courier/flows/alerts.ts): keyed by the body alone, the
  // same marked order from a second business named the first's alert and answered 500.
  await raiseAlert(deps.runtime, business, {
    kind: "test_booking_refused",
    condition_key: `${business}:${fingerprintOf(r)}`,
    owner: "operations",
    subject: { type: "business", id: business },
    message,
    detail: { path: marked.path, marker: marked.marker },
  });
  refuse("test_booking_refused", message, { path: marked.path });
}

/** The trip priced by the one fare calculator, or the refusal every booking of it would get. */
export function priced(deps: Pick<Deps, "runtime">, account: Business, r: LocatedRequest) {
  return catalogueOf(deps).then((catalogue) => {
    const p = priceTrip(catalogue, {
      pickup: r.pickup,
      stops: r.stops,
      dest: r.dest,
    }, {
      type: r.type,
      vehicle_type_id: r.vehicle_type_id,
      parcel_size: r.parcel_size,
      parcel_weight_kg: r.parcel_weight_kg,
      cargo_body_type: r.cargo_body_type,
      cargo_capacity_class: r.cargo_capacity_class,
      goods: r.goods,
    }, account.settings.vehicle_upgrade_policy);
    if (!p.ok) throw new Refused(p);
    return p.price;
  });
}

function draftOf(
  r: LocatedRequest,
  o: {
    business: string;
    reference: string;
    price: Billed;
    scheduledAt: number | null;
    test: boolean;
    autopilot: BookedAutopilot | null;
  },
): TripDraft {
  const { fare, vehicle } = o.price;
  const inexact = inexactAmounts(r, fare.currency);
  if (inexact.length > 0) throw new Refused(invalidFields(inexact));
  const cod = r.cod_amount === undefined ? null : toMinor(r.cod_amount, fare.currency);
  const ext = r.external_reference ?? null;
  return {
    business_id: o.business,
    reference: o.reference,
    type: r.type,
    segment: r.segment ?? null,
    passenger_name: r.passenger_name ?? null,
    passenger_phone: r.passenger_phone ?? null,
    pickup: r.pickup,
    stops: r.stops,
    dest: r.dest,
    external_reference: ext,
    scheduled_at: o.scheduledAt,
    prep_minutes: r.prep_minutes ?? null,
    handover_required: r.handover_required ?? false,
    // spec: business 2.1: external_reference is copied into order_payload.external_reference,
    // an order_payload of its own when none was sent.
    order_payload: r.order_payload
      ? { ...r.order_payload, external_reference: ext }
      : ext === null
      ? null
      : { external_reference: ext },
    cod_amount_minor: cod?.ok ? cod.minor : null,
    delivery_code: r.delivery_code ?? null,
    age_verification_required: r.age_verification_required ?? false,
    expense_code: r.expense_code ?? null,
    // spec: business 2.2: a field the booking took is kept and echoed, never dropped.
    note: r.note ?? null,
    shop_deliver: r.shop_deliver ?? false,
    parcel_weight_kg: r.parcel_weight_kg ?? null,
    vehicle,
    billing_amount_minor: fare.amount_minor,
    billing_currency: fare.currency,
    fare_lines: fare.lines,
    distance_m: fare.distance_m,
    eta_minutes: etaMinutes(fare.distance_m),
    chat_token: newSecret("chat_"),
    tracking_token: newSecret("trk_"),
    is_test: o.test,
    ...(r.sandbox_scenario === undefined ? {} : { sandbox_scenario: r.sandbox_scenario }),
    ...(o.autopilot === null ? {} : { sandbox_autopilot: o.autopilot }),
    ...(r.batch === undefined ? {} : { batch: r.batch }),
  };
}

/** spec: business 2.1: places sent without coordinates are geocoded, or the booking refused. */
export async function located(
  deps: Pick<Deps, "runtime">,
  business: string,
  r: BookingRequest,
): Promise<LocatedRequest> {
  const stops = r.stops ?? [];
  const [pickup, dest, ...between] = await locatePlaces(deps, business, [
    { path: "pickup_address", ...r.pickup },
    { path: destAddressField(r), ...r.dest },
    ...stops.map((s, i) => ({ path: `stops.${i}.address`, ...s })),
  ]);
  return { ...r, pickup: pickup!, dest: dest!, stops: between };
}

/** The key a booking is named by, if any (spec: business appendix 1, 2). */
export type BookingKey = { readonly kind: Exclude<KeyKind, "none">; readonly value: string };

/**
 * spec: business appendix 1, 2: a body external_reference wins over the header, and the header
 * never becomes the order's external_reference.
 */
export function keyOf(input: BookingInput): BookingKey | null {
  const ext = input.request.external_reference;
  if (ext) return { kind: "external_reference", value: ext };
  return input.idempotencyKey ? { kind: "idempotency_key", value: input.idempotencyKey } : null;
}

/**
 * spec: business 7, appendix 2: a retry of a keyed booking is answered by the trip that holds the
 * key (replayed, in progress or conflict) before anything that may have changed since the first
 * attempt (the clock against scheduled_at, geocoding, prices, settings) is checked again. Null:
 * no booking holds the key, so this one claims it.
 */
async function heldTrip(
  deps: Pick<Deps, "runtime">,
  business: string,
  o: { reference: string; key: BookingKey; fingerprint: string },
): Promise<Trip | null> {
  const held = orRefuse(
    await deps.runtime.read(tripActor, business, o.reference, {
      kind: "replay",
      fingerprint: o.fingerprint,
      key_kind: o.key.kind,
    }),
  );
  return held.phase === "booked" ? held.trip : null;
}

/**
 * The first trip answered again. A sandbox retry starts no autopilot: the trip's creation handed
 * its start to an outbox in the same commit (a crash leaves it to the outbox's sweep), and the
 * setting as it is now is not the one the booking was made under (spec: business 4.4).
 */
function replayed(trip: Trip): Booked {
  return { trip, replayed: true };
}

/** Books a trip, or answers the trip a retry of the same booking made (`replayed`). */
export async function bookTrip(
  deps:
    & Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">
    & Pick<CompleteDeps, "offers" | "numbers">,
  business: string,
  input: BookingInput,
): Promise<Booked> {
  const key = keyOf(input);
  // Read first: how the account's references are derived is its own (bookingReference).
  const account = await businessOf(deps.runtime, business);
  const reference = bookingReference(deps.referenceKey, account, key, () => crypto.randomUUID());
  const fingerprint = bookingFingerprint(input.body, deps.name === "sandbox");
  const scenario = input.request.sandbox_scenario;
  const first = key ? await heldTrip(deps, business, { reference, key, fingerprint }) : null;
  if (first) return replayed(first);
  const live = deps.name === "live";
  if (live) await refuseTestTraffic(deps, business, input.request);
  const schedule = await scheduleOrRefuse(
    deps,
    input.request,
    input.held !== undefined || input.kept !== undefined,
  );
  const { held } = input;
  const r = held
    ? { ...input.request, pickup: held.pickup, stops: held.stops, dest: held.dest }
    : await located(deps, business, input.request);
  const price = input.kept ?? billedOf(held ? held.price : await priced(deps, account, r));
  // spec: business 4.4: the setting in force at booking decides, however late the start runs.
  const autopilot = live ? null : await autopilotAtBooking(deps, business, scenario);
  const draft = draftOf(r, {
    business,
    reference,
    price,
    scheduledAt: schedule,
    test: !live,
    autopilot,
  });
  const key_kind = key?.kind ?? "none";
  const gate = input.gate;
  const asked: Omit<Claim, "claimed_at"> = {
    draft,
    fingerprint,
    key_kind,
    ...(gate ? { gate } : {}),
  };
  const claimed = orRefuse(
    await deps.runtime.ask(tripActor, business, reference, {
      kind: "claim",
      claim: asked,
    }, { requestId: deps.requestId, ...(key ? {} : { fresh: true }) }),
  );
  // Another attempt booked it between the read and the claim: the claim answers the replay.
  if (claimed.phase === "booked") return replayed(claimed.trip);
  if (claimed.phase !== "booking") refuse("internal_error", "the booking was not claimed");
  const claim: Claim = { ...asked, claimed_at: claimed.claimed_at };
  const trip = await completeBooking(deps, account, claim, input.by);
  if (autopilot !== null) await startAutopilot(deps, business, reference, autopilot);
  return { trip, replayed: false };
}

/** A booked trip in the actor harness, and the webhooks its steps add (trip actor tests). */
// deno-lint-ignore-file no-explicit-any
import { type Claim, tripActor, type TripDraft } from "../../../actors/business/trip/mod.ts";
import { BUSINESS_WEBHOOK_OUTBOX } from "../../../src/business/rules/webhook_events.ts";
import { ActorHarness } from "../../helpers/actor.ts";

export const draft = (over: Partial<TripDraft> = {}): TripDraft => ({
  business_id: "biz_1",
  reference: "BK-0000000001",
  type: "parcel",
  segment: null,
  passenger_name: "Neo",
  passenger_phone: null,
  pickup: { address: "Main Mall", lat: -24.65, lng: 25.9 },
  stops: [],
  dest: { address: "Block 8", lat: -24.6, lng: 25.93 },
  external_reference: "ORD-1",
  scheduled_at: null,
  prep_minutes: null,
  handover_required: false,
  order_payload: null,
  cod_amount_minor: null,
  delivery_code: null,
  age_verification_required: false,
  expense_code: null,
  shop_deliver: false,
  parcel_weight_kg: null,
  vehicle: {
    parcel_size: "small",
    parcel_size_label: "Small",
    parcel_weight_min_kg: 0,
    parcel_weight_max_kg: 5,
    cargo_body_type: null,
    cargo_capacity_class: null,
    volumetric_weight_kg: null,
    vehicle_class: { id: 1, name: "Motorbike", body_type: "open", capacity_class: null },
    vehicle_upgraded: false,
    vehicle_upgrade_reason: null,
  },
  billing_amount_minor: 4_500,
  billing_currency: "BWP",
  fare_lines: [],
  distance_m: 6_000,
  eta_minutes: 20,
  chat_token: "chat",
  tracking_token: "track",
  is_test: false,
  ...over,
});

export const claimOf = (over: Partial<TripDraft> = {}): Omit<Claim, "claimed_at"> => ({
  draft: draft(over),
  fingerprint: "fp1",
  key_kind: "external_reference",
});

export const CHARGE = { transaction_id: "wtx_1", amount_minor: 4_500, currency: "BWP" };

export function fresh(): ActorHarness<any, any, any, any> {
  return new ActorHarness(tripActor, { now: 1_000 });
}

export function booked(over: Partial<TripDraft> = {}): ActorHarness<any, any, any, any> {
  const h = fresh();
  h.must({ kind: "claim", claim: claimOf(over) });
  h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE });
  return h;
}

/** The webhook events the outbox holds for the events of one step. */
export function webhooks(
  h: ActorHarness<any, any, any, any>,
  events: readonly unknown[],
): string[] {
  const out: string[] = [];
  let s = h.def.initial;
  for (const e of h.log) {
    s = h.def.evolve(s, e);
    if (!events.includes(e)) continue;
    for (const add of tripActor.outbox!(e as never, s)) {
      if (add.outbox === BUSINESS_WEBHOOK_OUTBOX) {
        out.push((add.payload as { event: string }).event);
      }
    }
  }
  return out;
}

export const DRIVER = {
  id: "pdr_1",
  name: "Neo",
  phone: "+26771000001",
  plate: "B 123 ABC",
  color: "white",
  vehicle_type_id: 1,
};

/** A collection without the custody add-on: forced, with its reason. */
export const FORCED = { kind: "collect", force_reason: "no scanner" } as const;

export const PHOTO = {
  sha256: "a".repeat(64),
  name: "door.jpg",
  size: 10,
  content_type: "image/jpeg",
};
export const SIGNATURE = {
  sha256: "b".repeat(64),
  name: "sig.png",
  size: 8,
  content_type: "image/png",
};

/** A parcel's delivery with its proof photo and signature. */
export const PROOF = { kind: "deliver", proof_photo: PHOTO, signature: SIGNATURE } as const;

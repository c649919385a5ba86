/**
 * The driver's view of a trip (CONTRACT "Driver app": no fares beyond COD): where to collect and
 * deliver, who to ask for, and what the door needs (a delivery code is required, never shown; an
 * ID check; COD; proof; the custody scan), with the times of each step.
 */
import type { Trip } from "../../../actors/business/trip/mod.ts";
import { TRIP_STATUSES } from "../../../src/business/rules/trip_status.ts";
import { proofRequired } from "../../../src/business/rules/driver_actions.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";
import { PlaceAnswer } from "./trips.ts";

const when = orNull(z.string());

export const DriverTripAnswer = z.object({
  reference: z.string(),
  status: z.enum(TRIP_STATUSES),
  type: z.enum(["ride", "parcel"]),
  segment: orNull(z.enum(["parcel", "cargo"])),
  is_test: z.boolean(),
  vehicle_class: z.string().openapi({ description: "The vehicle class the trip needs" }),
  passenger_name: orNull(z.string()),
  passenger_phone: orNull(z.string()),
  pickup: PlaceAnswer,
  stops: z.array(PlaceAnswer),
  destination: PlaceAnswer,
  store_name: orNull(z.string()),
  items: z.array(z.object({ name: z.string(), qty: orNull(z.number()) })),
  scheduled_at: when,
  handover_required: z.boolean(),
  ready: z.boolean().openapi({ description: "The store marked the order ready (handover)" }),
  requirements: z.object({
    delivery_code_required: z.boolean(),
    age_verification_required: z.boolean(),
    cod_amount: orNull(z.number()),
    cod_currency: z.string(),
    proof_photo_required: z.boolean(),
    signature_required: z.boolean(),
    custody_scan: z.boolean().openapi({
      description: "The bag carries a custody label to scan at pick_up",
    }),
  }),
  accepted_at: when,
  arrived_at: when,
  collected_at: when,
  scanned_at: when,
  arrived_dropoff_at: when,
  completed_at: when,
  returning: z.boolean(),
  return_reason: orNull(z.string()),
  return_due_at: when,
  delivery_outcome: orNull(z.enum(["delivered", "returned"])),
  cancelled_at: when,
});

/** What the order's items say the driver collects: names and quantities, never prices. */
function itemsOf(t: Trip): { name: string; qty: number | null }[] {
  const items = t.order_payload?.["items"];
  if (!Array.isArray(items)) return [];
  return items.flatMap((i) =>
    typeof i === "object" && i !== null && typeof i.name === "string"
      ? [{ name: i.name, qty: typeof i.qty === "number" ? i.qty : null }]
      : []
  );
}

export function driverTripView(t: Trip): z.infer<typeof DriverTripAnswer> {
  const store = t.order_payload?.["store_name"];
  return {
    reference: t.reference,
    status: t.status,
    type: t.type,
    segment: t.segment,
    is_test: t.is_test,
    vehicle_class: t.vehicle.vehicle_class.name,
    passenger_name: t.passenger_name,
    passenger_phone: t.passenger_phone,
    pickup: t.pickup,
    stops: [...t.stops],
    destination: t.dest,
    store_name: typeof store === "string" ? store : null,
    items: itemsOf(t),
    scheduled_at: iso(t.scheduled_at),
    handover_required: t.handover_required,
    ready: t.ready_at !== null,
    requirements: {
      delivery_code_required: t.delivery_code !== null,
      age_verification_required: t.age_verification_required,
      // spec: CONTRACT "Driver app": the one amount a driver sees.
      cod_amount: t.cod_amount_minor === null
        ? null
        : decimal(t.cod_amount_minor, t.billing_currency),
      cod_currency: t.billing_currency,
      proof_photo_required: proofRequired(t.type),
      signature_required: proofRequired(t.type),
      custody_scan: t.scan_code !== null,
    },
    accepted_at: iso(t.accepted_at),
    arrived_at: iso(t.arrived_at),
    collected_at: iso(t.collected_at),
    scanned_at: iso(t.scanned_at),
    arrived_dropoff_at: iso(t.arrived_dropoff_at),
    completed_at: iso(t.completed_at),
    returning: t.returning,
    return_reason: t.return_reason,
    return_due_at: iso(t.return_due_at),
    delivery_outcome: t.delivery_outcome,
    cancelled_at: iso(t.cancelled_at),
  };
}

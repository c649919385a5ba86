/**
 * The batch body of Business API 2.3 as a schema: every field's shape and range, each bad field
 * named in one 422 validation_failed before anything is stored. What spans stops (the vehicle,
 * the prices, the wallet) is the flow's.
 */
import { TEST_FLAGS } from "../http/schemas.ts";
import { z } from "../http/route.ts";
import { RouteFields, Text } from "./booking_schema.ts";
import type { BatchRequest } from "./flows/batches.ts";
import { EXTERNAL_REFERENCE_CHARS_MAX } from "./rules/booking.ts";
import { BATCH_STOPS_MAX, STOP_SIZES, type StopSize } from "./rules/batch.ts";
import { BODY_TYPES, CAPACITY_CLASSES } from "./rules/catalogue.ts";

const SIZES = Object.keys(STOP_SIZES) as [StopSize, ...StopSize[]];

const BatchStopRequest = z.object({
  recipient_name: Text(200).optional(),
  recipient_phone: Text(40).optional(),
  ...RouteFields,
  size: z.enum(SIZES, { message: `one of ${SIZES.join(", ")}` }).openapi({
    description: "small, medium, large, oversized; also s, m, l, xl (not parcel_size)",
  }),
  weight_kg: z.number().positive().max(100_000).optional(),
});

export const BatchBody = z.object({
  segment: z.enum(["parcel", "cargo"]),
  stops: z.array(BatchStopRequest).min(1).max(BATCH_STOPS_MAX).openapi({
    description: `1 to ${BATCH_STOPS_MAX} stops; the answer lists them in the driving order`,
  }),
  cargo_body_type: z.enum(BODY_TYPES).optional(),
  cargo_capacity_class: z.enum(CAPACITY_CLASSES).optional(),
  external_reference: Text(EXTERNAL_REFERENCE_CHARS_MAX).optional(),
  batch_reference: Text(EXTERNAL_REFERENCE_CHARS_MAX).optional().openapi({
    description: "Used when external_reference is absent; either makes a retry replay the batch",
  }),
  // spec: business 7, 9.3: as on POST /business/book.
  ...TEST_FLAGS,
}).openapi("BatchRequest");

export type BatchBodyValue = z.infer<typeof BatchBody>;

export function toBatchRequest(b: BatchBodyValue): BatchRequest {
  return {
    ...b,
    stops: b.stops.map((s) => ({
      recipient_name: s.recipient_name,
      recipient_phone: s.recipient_phone,
      pickup: { address: s.pickup_address, lat: s.pickup_lat, lng: s.pickup_lng },
      dest: { address: s.dest_address, lat: s.dest_lat, lng: s.dest_lng },
      size: s.size,
      weight_kg: s.weight_kg,
    })),
  };
}

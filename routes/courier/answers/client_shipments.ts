/**
 * Courier 2.3, 4.6: the client's shipments as its list and its detail show them, and the answers
 * of bulk and CSV booking, row by row.
 */
import type { Context } from "hono";
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import type { Booked, RowFailed } from "../../../src/courier/flows/booking/mod.ts";
import { TRAIL_EVENTS } from "../../../src/courier/rules/lifecycle.ts";
import { iso } from "../../../src/domain/iso.ts";
import type { AppEnv } from "../../../src/http/context.ts";
import { ApiError, asApiError, type FieldError } from "../../../src/http/errors.ts";
import { ErrorBody, z } from "../../../src/http/route.ts";
import { orNull, UtcInstant } from "../../../src/http/schemas.ts";
import { bookingView } from "./booking.ts";
import { columnOf } from "./shipment_csv.ts";
import { shipmentDetailView, type ShipmentFields, ShipmentFoundAnswer } from "./shipments.ts";
import { ProofOfDeliveryAnswer, trackingUrl } from "./tracking.ts";

/** spec: courier 2.3: one of the client's shipments in its list (listView). */
export const ClientShipmentAnswer = ShipmentFoundAnswer.extend({
  delivered_at: UtcInstant.nullable(),
}).openapi("ClientShipment");

/** spec: courier 2.3: one shipment with per-piece custody and its timeline (detailView). */
export const ClientShipmentDetailAnswer = ClientShipmentAnswer.extend({
  tracking_url: z.url().openapi({ description: "The public tracking page" }),
  pod: orNull(ProofOfDeliveryAnswer).openapi({ description: "Proof of delivery, once delivered" }),
  pieces: z.array(
    z.object({
      id: z.string(),
      holder: z.string().nullable().openapi({ description: "Who holds the piece now" }),
      facility: z.string().nullable().openapi({ description: "The facility it is at now" }),
      last_scan_at: UtcInstant.nullable(),
    }).openapi("ClientPieceCustody"),
  ).openapi({ description: "Where each piece is now" }),
  timeline: z.array(
    z.object({
      at: UtcInstant,
      event: z.enum(["booked", ...TRAIL_EVENTS]),
      pieces: z.array(z.string()).openapi({ description: "The pieces the event moved" }),
      holder: z.string().nullable(),
      facility: z.string().nullable(),
    }).openapi("ClientCustodyEvent"),
  ).openapi({ description: "The booking, then the latest scans and custody moves in order" }),
  scans_total: z.number().int().openapi({
    description: "Every scan recorded; the timeline keeps the latest",
  }),
}).openapi("ClientShipmentDetail");

const Counts = {
  booked: z.number().int().openapi({
    description: "Rows with a shipment, new or already_booked",
  }),
  failed: z.number().int(),
};

/** A bulk row that booked, or was booked before (rowBooked). */
const BookedRow = {
  waybill: z.string(),
  tracking_url: z.url(),
  already_booked: z.boolean().openapi({
    description: "true: the same row again, answered with the shipment it booked",
  }),
};

export const BulkBookedAnswer = z.object({
  ...Counts,
  results: z.array(z.union([
    z.object({ index: z.number().int(), ...BookedRow }).openapi("BulkRowBooked"),
    z.object({
      index: z.number().int(),
      error: z.looseObject({
        code: z.string(),
        message: z.string(),
        errors: ErrorBody.shape.errors,
        waybill: z.string().optional().openapi({
          description: "duplicate_order, idempotency_key_reused: the shipment booked before",
        }),
      }).openapi("BulkRowRefusal", {
        description: "As an error answer's fields: code, message and the refusal's own details",
      }),
    }).openapi("BulkRowRefused"),
  ])).openapi({ description: "One per row, in order" }),
}).openapi("BulkBooked");

export const CsvBookedAnswer = z.object({
  ...Counts,
  results: z.array(z.union([
    z.object({ line: z.number().int(), ...BookedRow }).openapi("CsvLineBooked"),
    z.object({
      line: z.number().int(),
      code: z.string(),
      errors: z.array(
        z.object({
          column: z.string().nullable().openapi({ description: "null: the whole line" }),
          message: z.string(),
        }).openapi("CsvLineError"),
      ),
    }).openapi("CsvLineRefused"),
  ])).openapi({ description: "One per data line, in order; the header is line 1" }),
  ignored_columns: z.array(z.string()).openapi({
    description: "Header cells that are not template columns",
  }),
}).openapi("CsvBooked");

export function listView(s: ShipmentFields) {
  return {
    ...shipmentDetailView(s),
    // spec: courier 2.3: every shipment carries its next milestone, due time, owner and health.
    health: s.health ?? null,
    next_milestone: s.next_milestone ?? null,
    next_due_at: iso(s.next_due_at ?? null),
    next_owner: s.next_owner ?? null,
    estimated_delivery_on: s.estimated_delivery_on,
    delivered_at: iso(s.delivered_at),
  };
}

/** spec: courier 2.3: per-piece custody now, and every scan in order; never notes or reasons. */
export function detailView(c: Context<AppEnv>, s: Shipment) {
  const all = s.pieces.map((p) => p.id);
  return {
    ...listView(s),
    tracking_url: trackingUrl(c, s.tracking_token),
    pod: s.pod && s.delivered_at !== null
      ? { delivered_at: iso(s.delivered_at), received_by: s.pod.received_by }
      : null,
    pieces: s.pieces.map((p) => ({
      id: p.id,
      holder: p.holder,
      facility: p.facility_id,
      last_scan_at: iso(p.last_scan_at),
    })),
    timeline: [
      { at: iso(s.booked_at), event: "booked", pieces: all, holder: null, facility: null },
      ...s.trail.map((e) => ({
        at: iso(e.at),
        event: e.event,
        pieces: e.pieces ?? all,
        holder: e.holder,
        facility: e.facility_id,
      })),
    ],
    // The timeline keeps the latest scans; this counts them all.
    scans_total: s.trail_total,
  };
}

export function rowBooked(c: Context<AppEnv>, b: Booked) {
  const v = bookingView(c, b);
  return { waybill: v.waybill, tracking_url: v.tracking_url, already_booked: v.already_booked };
}

export function errorView(e: ApiError) {
  return { code: e.code, message: e.message, ...e.extra };
}

/** A refusal of a CSV line as the columns it names (a refusal of the whole line: none). */
export function lineErrors(e: ApiError): { column: string | null; message: string }[] {
  const fields = e.extra.errors as readonly FieldError[] | undefined;
  if (!fields?.length) return [{ column: null, message: e.message }];
  return fields.map((f) => ({ column: columnOf(f.path.split(".")), message: f.message }));
}

export function summary<R extends object>(results: R[]) {
  const failed = results.filter((r) => "error" in r || "errors" in r).length;
  return { booked: results.length - failed, failed, results };
}

/**
 * A booked row's outcome as its answer: its booking, or its refusal as it is; anything else
 * (a failure) without internals, named by the request id.
 */
export function rowOutcome(c: Context<AppEnv>, r: Booked | RowFailed): Booked | ApiError {
  if (!("failed" in r)) return r;
  const refused = asApiError(r.failed);
  if (refused) return refused;
  const requestId = c.get("requestId");
  console.error(`request ${requestId}: a booking row failed:`, r.failed);
  return new ApiError("internal_error", `internal error; request id: ${requestId}`);
}

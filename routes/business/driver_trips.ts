/**
 * The driver app's trips (CONTRACT "Driver app"; Business API 3.1): the trips a platform driver
 * holds, the driver's view of one, and the driver's actions on it (arrive_pickup, pick_up,
 * arrive_dropoff, deliver, fail_delivery, id_refused, complete_return, cancel_by_driver), JSON or
 * multipart with the proof photo and signature files. Another driver's trip is not found.
 */
import {
  DRIVER_TRIP_ACTIONS,
  driverTrip,
  driverTripAction,
  PROOF_FILE_BYTES_MAX,
  type ProofUpload,
} from "../../src/business/flows/driver_trips.ts";
import { poolDriver, poolDriverOf } from "../../src/business/driver_auth.ts";
import { driverTripPage } from "../../src/business/queries/trips.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { IdempotencyKey } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { PlainText, wholeNumber } from "../../src/http/schemas.ts";
import { MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import { DriverTripAnswer, driverTripView } from "./answers/driver_trips.ts";

const tag = "Driver app";
const security = "driver" as const;
const middleware = [poolDriver];
/** The driver app's trips per page, at most. */
const DRIVER_TRIPS_PAGE_MAX = 100;
const Reference = z.object({ reference: z.string().min(1).max(40) });
const NOT_FOUND = "no trip of this reference is offered or assigned to the driver";

/** A boolean as JSON sends it, or as a multipart text field (`true`, `false`). */
const FormBoolean = z.union([
  z.boolean(),
  z.enum(["true", "false"]).transform((v) => v === "true"),
]).openapi({ type: "boolean" });

const ActionBody = z.object({
  idempotency_key: IdempotencyKey.openapi({
    description: "The same request again answers the first answer (a replay after lost " +
      "signal); another request under it is refused 409 reference_conflict. A refused action " +
      "keeps nothing under its key: sent again, it is decided afresh",
  }),
  scan_code: PlainText(40).min(1).optional().openapi({
    description: "pick_up: the custody label's code, with or without the hyphen, any case",
  }),
  force_reason: PlainText(500).min(1).optional().openapi({
    description: "pick_up without a matching scan: recorded as an override",
  }),
  delivery_code: PlainText(40).optional().openapi({ description: "deliver: the recipient's code" }),
  id_checked: FormBoolean.optional().openapi({ description: "deliver: photo ID checked" }),
  cod_collected_amount: z.union([z.number(), z.string().trim().min(1).max(24)]).optional()
    .openapi({ description: "deliver: the COD taken, a decimal equal to the COD amount" }),
  reason: PlainText(500, { lines: true }).min(1).optional().openapi({
    description: "fail_delivery, id_refused, cancel_by_driver: why (required)",
  }),
});

export function driverTripsRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/driver/trips",
    summary: "The trips the driver holds, newest first",
    description: "From the trips' read table, which trails an acceptance by the projection lag.",
    tag,
    security,
    middleware,
    query: z.object({
      per_page: wholeNumber(1, DRIVER_TRIPS_PAGE_MAX).default(25),
      cursor: z.string().max(200).optional(),
    }),
    paged: "cursor",
    response: z.array(DriverTripAnswer),
  }, async (c, { query }) => {
    const page = await driverTripPage(c.get("env").db, poolDriverOf(c), {
      limit: query.per_page,
      after: afterCursor(query.cursor),
    });
    return ok(c, page.rows.map(driverTripView), 200, {
      limit: query.per_page,
      next_cursor: nextCursor(page.next),
    });
  });

  define(
    api,
    {
      method: "get",
      path: "/driver/trips/{reference}",
      summary: "The driver's view of one trip (no fares beyond COD)",
      tag,
      security,
      middleware,
      params: Reference,
      response: DriverTripAnswer,
      refusals: { not_found: NOT_FOUND },
    },
    async (c, { params }) =>
      ok(c, driverTripView(await driverTrip(c.get("env"), poolDriverOf(c), params.reference))),
  );

  actionRoute(api);
}

function actionRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/driver/trips/{reference}/{action}",
    summary: "A driver's action on the trip: arrive_pickup, pick_up, arrive_dropoff, deliver, " +
      "fail_delivery, id_refused, complete_return, cancel_by_driver",
    description: "JSON, or multipart/form-data whose text fields are the body and whose files " +
      "are `proof_photo` and `signature` (JPEG, PNG or WebP). `idempotency_key` makes a replay " +
      "(the same action, fields and files) answer the first answer; another request under it " +
      "is refused 409. cancel_by_driver before collection puts the trip back for " +
      "another driver, or ends it cancelled once the dispatch window has passed; a batch's stop " +
      "is never put back (one driver collects the whole batch): it ends cancelled by its " +
      "driver and refunded, the other stops staying with the driver. fail_delivery and " +
      "id_refused start a delivery's return; a ride has no goods to return (409).",
    tag,
    security,
    middleware,
    params: Reference.extend({ action: z.enum(DRIVER_TRIP_ACTIONS) }),
    body: ActionBody,
    form: {
      files: ["proof_photo", "signature"],
      maxBytes: 2 * PROOF_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    },
    replay: "The same request (idempotency_key, action, fields and files) from the same driver",
    response: DriverTripAnswer,
    refusals: {
      not_found: NOT_FOUND,
      invalid_transition: "the action does not follow from the trip's status",
      awaiting_handover: "pick_up before the store marked a handover_required order ready",
      scan_mismatch: "pick_up: scan_code is not the trip's custody code",
      force_reason_required: "pick_up without a matching scan needs a force_reason",
      delivery_code_required: "deliver: the trip has a delivery code and none was given",
      delivery_code_mismatch: "deliver: delivery_code is not the trip's",
      id_check_required: "deliver: an age-restricted trip needs id_checked true (else id_refused)",
      proof_photo_required: "deliver: a delivery needs a proof_photo file",
      signature_required: "deliver: a delivery needs a signature file",
      cod_amount_mismatch: "deliver: cod_collected_amount differs from the COD amount, or is " +
        "given (above 0) on a trip without COD",
      evidence_file_too_large: "a file is larger than a proof file may be",
      validation_failed: "a field is invalid, a reason is missing, or a file is not an image",
      reference_conflict: "the idempotency_key was sent before on this trip with another " +
        "action, fields or files; nothing is changed",
    },
  }, async (c, { params, body, files }) => {
    const upload = async (field: ProofUpload["field"]): Promise<ProofUpload | undefined> => {
      const f = files[field];
      return f && {
        field,
        name: f.name,
        content_type: f.type,
        bytes: new Uint8Array(await f.arrayBuffer()),
      };
    };
    const trip = await driverTripAction(
      c.get("env"),
      poolDriverOf(c),
      params.reference,
      params.action,
      {
        ...body,
        proof_photo: await upload("proof_photo"),
        signature: await upload("signature"),
      },
    );
    return ok(c, driverTripView(trip));
  });
}

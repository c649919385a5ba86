/**
 * Courier 4.6, the client's shipments: the paged list, booking one in a single call, bulk and CSV
 * booking, the CSV template, and one shipment with its custody timeline. A client sees only its
 * own shipments (another's waybill is not found); the client() guard refuses every call while
 * the courier platform is switched off.
 *
 * Idempotency (one rule for the three booking calls): a request or row is known by, first that
 * applies, its `idempotency_key` (POST /client/shipments also takes the `Idempotency-Key`
 * header); its `client_order_reference` when the client has unique_external_reference (courier
 * 7: only then is a repeated reference a duplicate order); with an `Idempotency-Key` header on
 * a bulk or CSV call, that key plus the row's index or the CSV line's content. Sent again, it
 * answers the shipment it booked (`already_booked: true`); with other details it is refused (409
 * duplicate_order for an order reference, idempotency_key_reused for a key). A refused row books
 * nothing and frees its identity, so a corrected batch can be sent again whole.
 */
import { ProofOfDeliveryAnswer } from "./tracking.ts";
import type { Context } from "hono";
import { courierCatalogueActor } from "../../actors/courier/courier_catalogue.ts";
import type { CourierClient } from "../../actors/courier/courier_client.ts";
import type { Shipment } from "../../actors/courier/shipment.ts";
import { clientShipmentIn } from "../../src/courier/flows/shipments.ts";
import { HEADLINES, SCAN_EVENTS } from "../../src/courier/rules/lifecycle.ts";
import { hashSecret } from "../../src/domain/secrets.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { client, clientPrincipalOf } from "../../src/courier/auth.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { clientShipmentPage } from "../../src/courier/queries/shipments.ts";
import { ApiError, type FieldError, validationFailed } from "../../src/http/errors.ts";
import { define, ErrorBody, z } from "../../src/http/route.ts";
import { orNull, UtcInstant, Waybill, wholeNumber } from "../../src/http/schemas.ts";
import { boundedBody, boundedForm } from "../../src/http/upload.ts";
import {
  BULK_SHIPMENTS_MAX,
  CSV_BOOKING_LINES_MAX,
  UPLOAD_BODY_BYTES_MAX,
} from "../../src/limits.ts";
import { read } from "../../src/http/ask.ts";
import {
  type Booked,
  BookingAnswer,
  bookingView,
  trackingUrl,
  unknownServiceLevel,
} from "../../src/courier/flows/booking.ts";
import { callerClient, shipmentDetailView, ShipmentFoundAnswer } from "./prices.ts";
import { columnOf, type CsvLine, csvTemplate, csvText, readCsv } from "./shipment_csv.ts";
import {
  bookRequest,
  bookRows,
  type Caller,
  idempotencyHeader,
  identityOf,
  ONE_CALL_BOOKING_DOCS,
  REQUEST_REFUSALS,
  ShipmentRequest,
  type ShipmentRequestBody,
} from "./shipment_requests.ts";
import { iso } from "../../src/domain/iso.ts";

const tag = "Client API";
const security = "client" as const;
const SHIPMENTS_PAGE_DEFAULT = 50;
const SHIPMENTS_PAGE_MAX = 200;

const ListQuery = z.object({
  status: z.enum(HEADLINES).optional(),
  reference: z.string().trim().min(1).max(120).optional(),
  limit: wholeNumber(1, SHIPMENTS_PAGE_MAX).default(SHIPMENTS_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

const BulkBody = z.object({
  shipments: z.array(z.unknown()).min(1).max(
    BULK_SHIPMENTS_MAX,
    `at most ${BULK_SHIPMENTS_MAX} shipments per call`,
  ).openapi({ description: "ShipmentRequest rows; each row is checked and booked on its own" }),
}).openapi("BulkShipments");

const WaybillParam = z.object({ waybill: Waybill });

// ---- Answers (documentation: tests/http/answers_client_test.ts holds answers to them).

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
      event: z.enum(["booked", ...SCAN_EVENTS]),
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

async function callerOf(c: Context<AppEnv>): Promise<Caller> {
  const p = clientPrincipalOf(c);
  return {
    courierId: p.business.id,
    clientId: p.client_id,
    client: await callerClient(c),
    by: principalName(p),
  };
}

export function clientShipmentRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/client/shipments",
    summary: "The client's shipments, newest booked first; filter by status, or by reference " +
      "(waybill, client_order_reference, external_customer_code, external_billing_reference); " +
      "`meta.next_cursor` pages on",
    tag,
    security,
    middleware: [client()],
    query: ListQuery,
    paged: "cursor",
    response: z.array(ClientShipmentAnswer),
  }, async (c, { query }) => {
    const p = clientPrincipalOf(c);
    // spec: courier 4.6: always within the courier and the calling client.
    const page = await clientShipmentPage(c.get("env").db, p.business.id, p.client_id, query, {
      limit: query.limit,
      after: afterCursor(query.cursor),
    });
    return ok(c, page.rows.map((s) => listView(s as ShipmentFields)), 200, {
      limit: query.limit,
      next_cursor: nextCursor(page.next),
    });
  });

  define(api, {
    method: "post",
    path: "/client/shipments",
    summary: "Book one shipment in one call: the price request (courier 2.1) plus " +
      "`service_level` and `dangerous_goods_confirmed`. 201 with waybill and tracking_url. " +
      "Idempotent on the `Idempotency-Key` header or `idempotency_key`, else on " +
      "`client_order_reference` (with unique_external_reference): the same request again answers 200 `already_booked: true`; " +
      "the same key with other details answers 409",
    tag,
    security,
    middleware: [client()],
    body: ShipmentRequest,
    status: 201,
    ...ONE_CALL_BOOKING_DOCS,
    response: BookingAnswer,
    refusals: {
      ...REQUEST_REFUSALS,
      validation_failed: `${REQUEST_REFUSALS.validation_failed}; a bad Idempotency-Key header`,
    },
  }, async (c, { body }) => {
    const header = idempotencyHeader(c);
    const caller = await callerOf(c);
    const identity = header ? `key:${header}` : identityOf(body, null, caller.client);
    const booked = await bookRequest(c, caller, body, identity);
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/client/shipments/bulk",
    summary: `Book up to ${BULK_SHIPMENTS_MAX} shipments (rows as POST /client/shipments). ` +
      "Each row answers `{index, waybill, tracking_url, already_booked}` or `{index, error: " +
      "{code, message}}`; a bad row stops no other. A row is known by its idempotency_key, " +
      "else its client_order_reference (with unique_external_reference), else the call's " +
      "Idempotency-Key and its index: " +
      "sending the batch again books no row twice",
    tag,
    security,
    middleware: [client()],
    body: BulkBody,
    idempotencyKey: "With a row's index, the identity of a row that has no idempotency_key or " +
      "(under unique_external_reference) client_order_reference of its own",
    response: BulkBookedAnswer,
    refusals: {
      validation_failed: "a bad Idempotency-Key header (a bad row is answered in `results`)",
    },
  }, async (c, { body }) => {
    const header = idempotencyHeader(c);
    const caller = await callerOf(c);
    const levels = await serviceLevelCodes(c);
    const checked = bulkRequests(body.shipments, header, caller.client, levels);
    const valid = checked.filter((r): r is Exclude<typeof r, ApiError> => !(r instanceof ApiError));
    const booked = await bookRows(c, caller, valid);
    let next = 0;
    const results = checked.map((r, index) => {
      const outcome = r instanceof ApiError ? r : booked[next++]!;
      return outcome instanceof ApiError
        ? { index, error: errorView(outcome) }
        : { index, ...rowBooked(c, outcome) };
    });
    return ok(c, summary(results));
  });

  define(api, {
    method: "post",
    path: "/client/shipments/csv",
    summary: "Book from a CSV upload (multipart field `file`, or a text/csv body), columns as " +
      "GET /client/shipments/csv/template, at most " +
      `${CSV_BOOKING_LINES_MAX} lines and ${UPLOAD_BODY_BYTES_MAX} bytes. Answers ` +
      "`{booked, failed, results: [{line, waybill, tracking_url, already_booked} or {line, " +
      "code, errors: [{column, message}]}]}` (the header is line 1). A line is known by its " +
      "idempotency_key, else its client_order_reference (with unique_external_reference), " +
      "else the call's Idempotency-Key and " +
      "the line's content: uploading the file again books no line twice",
    tag,
    security,
    middleware: [client()],
    upload: "text/csv",
    idempotencyKey:
      "With a line's content, the identity of a line that has no idempotency_key or " +
      "(under unique_external_reference) client_order_reference of its own",
    response: CsvBookedAnswer,
    refusals: {
      validation_failed: "no CSV file, or not valid UTF-8 CSV; no header or shipment lines, " +
        "missing or repeated columns, too many lines; a bad Idempotency-Key header (a bad line " +
        "is answered in `results`)",
    },
  }, async (c) => {
    const header = idempotencyHeader(c);
    const file = readCsv(await uploadText(c), await serviceLevelCodes(c));
    const caller = await callerOf(c);
    const booked = await bookRows(c, caller, await csvRequests(file.lines, header, caller.client));
    let next = 0;
    const results = file.lines.map((l) => {
      if (!("req" in l)) return { line: l.line, code: "validation_failed", errors: l.errors };
      const outcome = booked[next++]!;
      return outcome instanceof ApiError
        ? { line: l.line, code: outcome.code, errors: lineErrors(outcome) }
        : { line: l.line, ...rowBooked(c, outcome) };
    });
    return ok(c, { ...summary(results), ignored_columns: file.ignored_columns });
  });

  define(api, {
    method: "get",
    path: "/client/shipments/csv/template",
    summary: "The CSV booking template (text/csv): the header line and one example line",
    tag,
    security,
    middleware: [client()],
    produces: "text/csv",
  }, async (c) => {
    const code = (await serviceLevelCodes(c))[0] ?? "express";
    return c.body(csvTemplate(code), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": 'attachment; filename="shipments-template.csv"',
    });
  });

  define(api, {
    method: "get",
    path: "/client/shipments/{waybill}",
    summary: "One of the client's shipments: frozen pricing, where each piece is now, and the " +
      "custody timeline (no courier-internal notes)",
    tag,
    security,
    middleware: [client()],
    params: WaybillParam,
    response: ClientShipmentDetailAnswer,
  }, async (c, { params }) => {
    const p = clientPrincipalOf(c);
    // spec: courier 4.6: a client sees only its own shipments; another's waybill does not exist.
    const s = await clientShipmentIn(c.get("env").runtime, {
      tenant: p.business.id,
      clientId: p.client_id,
      waybill: params.waybill,
    });
    return ok(c, detailView(c, s));
  });
}

/** The codes of the courier's service levels, which bulk and CSV rows are checked against. */
async function serviceLevelCodes(c: Context<AppEnv>): Promise<string[]> {
  const p = clientPrincipalOf(c);
  const catalogue = await read(c, courierCatalogueActor, p.business.id, p.business.id, {
    kind: "get",
  });
  return catalogue.service_levels.map((s) => s.code);
}

/** Each bulk row checked on its own: its request and identity, or its refusal naming every field. */
function bulkRequests(
  rows: readonly unknown[],
  header: string | null,
  client: CourierClient,
  serviceLevels: readonly string[],
) {
  return rows.map((row, index) => {
    const parsed = ShipmentRequest.safeParse(row);
    // spec: courier 4.6: a row books as POST /client/shipments does, so its service level is
    // checked as that call reads it (trimmed); one it cannot read is the schema's error.
    const named = typeof row === "object" && row !== null && "service_level" in row
      ? ShipmentRequest.shape.service_level.safeParse(row.service_level)
      : null;
    const level = named?.success ? unknownServiceLevel(named.data, serviceLevels) : null;
    const errors: FieldError[] = parsed.success ? [] : parsed.error.issues.map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
    if (level && !errors.some((e) => e.path === "service_level")) {
      errors.push({ path: "service_level", message: level });
    }
    if (!parsed.success || errors.length > 0) return validationFailed(errors);
    const derived = header ? `batch:${header}:${index}` : null;
    return { req: parsed.data, identity: identityOf(parsed.data, derived, client) };
  });
}

/** The CSV lines that make requests, with their identities. */
async function csvRequests(
  lines: readonly CsvLine[],
  header: string | null,
  client: CourierClient,
) {
  const seen = new Map<string, number>();
  const rows: { req: ShipmentRequestBody; identity: string | null }[] = [];
  for (const l of lines) {
    if (!("req" in l)) continue;
    let derived = null;
    if (header) {
      // The n-th line with this content: two identical lines are two shipments.
      const digest = await hashSecret(l.content);
      const n = (seen.get(digest) ?? 0) + 1;
      seen.set(digest, n);
      derived = `csv:${header}:${digest}:${n}`;
    }
    rows.push({ req: l.req, identity: identityOf(l.req, derived, client) });
  }
  return rows;
}

/** The fields a read shows: the shipment without its tracking token. */
type ShipmentFields = Omit<Shipment, "tracking_token" | "tracking_token_hash">;

function listView(s: ShipmentFields) {
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
function detailView(c: Context<AppEnv>, s: Shipment) {
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

function rowBooked(c: Context<AppEnv>, b: Booked) {
  const v = bookingView(c, b);
  return { waybill: v.waybill, tracking_url: v.tracking_url, already_booked: v.already_booked };
}

function errorView(e: ApiError) {
  return { code: e.code, message: e.message, ...e.extra };
}

/** A refusal of a CSV line as the columns it names (a refusal of the whole line: none). */
function lineErrors(e: ApiError): { column: string | null; message: string }[] {
  const fields = e.extra.errors as readonly FieldError[] | undefined;
  if (!fields?.length) return [{ column: null, message: e.message }];
  return fields.map((f) => ({ column: columnOf(f.path.split(".")), message: f.message }));
}

function summary<R extends object>(results: R[]) {
  const failed = results.filter((r) => "error" in r || "errors" in r).length;
  return { booked: results.length - failed, failed, results };
}

/** The CSV of the upload: a multipart `file` field, or the body itself. */
async function uploadText(c: Context<AppEnv>): Promise<string> {
  const type = c.req.header("Content-Type") ?? "";
  const tooLarge = `upload over ${UPLOAD_BODY_BYTES_MAX} bytes`;
  if (type.startsWith("multipart/form-data")) {
    const form = await boundedForm(c, UPLOAD_BODY_BYTES_MAX, tooLarge);
    const file = form.get("file");
    if (file instanceof File) return csvText(new Uint8Array(await file.arrayBuffer()));
    if (typeof file === "string" && file !== "") return file;
    throw validationFailed([{ path: "file", message: "a CSV file is required" }]);
  }
  if (type.startsWith("text/csv") || type.startsWith("text/plain")) {
    return csvText(await boundedBody(c, UPLOAD_BODY_BYTES_MAX, tooLarge));
  }
  throw validationFailed([{
    path: "body",
    message: `send text/csv, or multipart/form-data with a file field: ${type || "no type"}`,
  }]);
}
